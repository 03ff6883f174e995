package io.lobatto.core.mesh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@link HexMesh} from a Gmsh <b>4.1 ASCII</b> {@code .msh} file.
 *
 * <p>Sections: {@code $MeshFormat} (must come first; binary files and other versions are rejected),
 * {@code $PhysicalNames} (optional, checked but not kept), {@code $Entities} (optional; maps each surface entity to its
 * first physical tag), {@code $Nodes} (required; node tags may be sparse and are renumbered 0.. in file order),
 * {@code $Elements} (required, after {@code $Nodes}): type 5 (8-node hexahedron, Gmsh corner order = {@link HexReference})
 * become elements; type 3 (4-node quadrangle) on a surface entity with a physical tag set the tag of the hexahedron
 * face(s) with the same 4 vertices (both sides for an interior surface; the first tag wins if several surfaces
 * cover a face); all other element types are ignored. Unknown sections are skipped.
 *
 * <p>Malformed input raises {@link MeshFormatException} with the line number and what was expected; I/O errors
 * raise {@link UncheckedIOException}.
 */
public final class GmshReader {

    private static final int TYPE_QUAD4 = 3;
    private static final int TYPE_HEX8 = 5;

    private GmshReader() {
    }

    /** Reads a Gmsh 4.1 ASCII file (UTF-8). */
    public static HexMesh read(Path path) {
        try (BufferedReader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            return read(r);
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read Gmsh file " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** Reads Gmsh 4.1 ASCII text; the reader is consumed but not closed. */
    public static HexMesh read(Reader reader) {
        try {
            return new Parser(reader instanceof BufferedReader ? (BufferedReader) reader : new BufferedReader(reader)).parse();
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read Gmsh input: " + ex.getMessage(), ex);
        }
    }

    // ------------------------------------------------------------------ parser

    private static final class Parser {
        private final BufferedReader in;
        private int lineNo;

        private final Map<Integer, Integer> surfacePhysical = new HashMap<>();
        private final Map<Long, Integer> nodeIndex = new HashMap<>();
        private double[] coords = new double[0];
        private int nodeCount;
        private boolean haveNodes;
        private boolean haveElements;
        private int[] hexes = new int[0];
        private int hexCount;
        /** Quads on tagged surfaces: 4 vertex indices, tag, line. */
        private final List<int[]> quads = new ArrayList<>();

        Parser(BufferedReader in) {
            this.in = in;
        }

        /** Next non-blank line, trimmed; null at end of input. */
        private String next() throws IOException {
            String s;
            do {
                s = in.readLine();
                if (s == null) {
                    return null;
                }
                lineNo++;
                s = s.strip();
            } while (s.isEmpty());
            return s;
        }

        private String require(String what) throws IOException {
            String s = next();
            if (s == null) {
                throw new MeshFormatException(lineNo + 1, "unexpected end of input, expected " + what);
            }
            return s;
        }

        private String[] tokens(String what, int min) throws IOException {
            String s = require(what);
            if (s.startsWith("$")) {
                throw new MeshFormatException(lineNo, "expected " + what + ", found section marker '" + s + "' (count too large?)");
            }
            String[] t = s.split("\\s+");
            if (t.length < min) {
                throw new MeshFormatException(lineNo, "expected " + what + " (at least " + min + " values), found " + t.length + ": '" + s + "'");
            }
            return t;
        }

        private int integer(String tok, String what) {
            try {
                return Integer.parseInt(tok);
            } catch (NumberFormatException ex) {
                throw new MeshFormatException(lineNo, "expected an integer " + what + ", found '" + tok + "'");
            }
        }

        private long longInt(String tok, String what) {
            try {
                return Long.parseLong(tok);
            } catch (NumberFormatException ex) {
                throw new MeshFormatException(lineNo, "expected an integer " + what + ", found '" + tok + "'");
            }
        }

        private int count(String tok, String what) {
            int c = integer(tok, what);
            if (c < 0) {
                throw new MeshFormatException(lineNo, "expected a non-negative " + what + ", found " + c);
            }
            return c;
        }

        private double real(String tok, String what) {
            try {
                double v = Double.parseDouble(tok);
                if (!Double.isFinite(v)) {
                    throw new NumberFormatException();
                }
                return v;
            } catch (NumberFormatException ex) {
                throw new MeshFormatException(lineNo, "expected a finite number " + what + ", found '" + tok + "'");
            }
        }

        private void end(String section) throws IOException {
            String s = require("$End" + section);
            if (!s.equals("$End" + section)) {
                throw new MeshFormatException(lineNo, "expected $End" + section + ", found '" + s + "' (count in the section header too small?)");
            }
        }

        HexMesh parse() throws IOException {
            String first = next();
            if (first == null) {
                throw new MeshFormatException(1, "empty input, expected $MeshFormat");
            }
            if (!first.equals("$MeshFormat")) {
                throw new MeshFormatException(lineNo, "expected $MeshFormat as the first line of a Gmsh file, found '" + abbreviate(first) + "'");
            }
            meshFormat();
            String s;
            while ((s = next()) != null) {
                if (!s.startsWith("$") || s.startsWith("$End")) {
                    throw new MeshFormatException(lineNo, "expected a section header such as $Nodes or $Elements, found '" + abbreviate(s) + "'");
                }
                String name = s.substring(1);
                switch (name) {
                    case "MeshFormat":
                        throw new MeshFormatException(lineNo, "second $MeshFormat section");
                    case "PhysicalNames":
                        physicalNames();
                        break;
                    case "Entities":
                        entities();
                        break;
                    case "Nodes":
                        if (haveNodes) {
                            throw new MeshFormatException(lineNo, "second $Nodes section");
                        }
                        nodes();
                        break;
                    case "Elements":
                        if (!haveNodes) {
                            throw new MeshFormatException(lineNo, "$Elements before $Nodes; expected $Nodes first");
                        }
                        if (haveElements) {
                            throw new MeshFormatException(lineNo, "second $Elements section");
                        }
                        elements();
                        break;
                    default:
                        skip(name);
                }
            }
            if (!haveNodes) {
                throw new MeshFormatException(0, "missing $Nodes section");
            }
            if (!haveElements) {
                throw new MeshFormatException(0, "missing $Elements section");
            }
            if (hexCount == 0) {
                throw new MeshFormatException(0, "no 8-node hexahedra (element type 5) found; only linear hexahedral meshes are supported");
            }
            return build();
        }

        private void meshFormat() throws IOException {
            String[] t = tokens("'version file-type data-size' (e.g. '4.1 0 8')", 3);
            if (!t[0].equals("4.1")) {
                throw new MeshFormatException(lineNo, "unsupported Gmsh format version " + t[0] + "; only 4.1 (ASCII) is supported "
                    + "(export with Mesh.MshFileVersion = 4.1)");
            }
            int fileType = integer(t[1], "file-type");
            if (fileType != 0) {
                throw new MeshFormatException(lineNo, "binary Gmsh files (file-type " + fileType + ") are not supported; "
                    + "export as ASCII (Mesh.Binary = 0)");
            }
            end("MeshFormat");
        }

        private void physicalNames() throws IOException {
            int n = count(tokens("number of physical names", 1)[0], "number of physical names");
            for (int i = 0; i < n; i++) {
                String[] t = tokens("'dimension physicalTag \"name\"'", 3);
                integer(t[0], "dimension");
                integer(t[1], "physical tag");
            }
            end("PhysicalNames");
        }

        private void entities() throws IOException {
            String[] h = tokens("'numPoints numCurves numSurfaces numVolumes'", 4);
            int[] counts = new int[4];
            for (int d = 0; d < 4; d++) {
                counts[d] = count(h[d], "entity count");
            }
            for (int d = 0; d < 4; d++) {
                for (int i = 0; i < counts[d]; i++) {
                    int coordsCount = d == 0 ? 3 : 6;
                    String what = d == 0 ? "point entity 'tag x y z numPhysicalTags tags...'"
                        : (d == 1 ? "curve" : d == 2 ? "surface" : "volume")
                            + " entity 'tag minX minY minZ maxX maxY maxZ numPhysicalTags tags... numBounding tags...'";
                    String[] t = tokens(what, 2 + coordsCount);
                    int tag = integer(t[0], "entity tag");
                    for (int c = 1; c <= coordsCount; c++) {
                        real(t[c], "(entity bounding box)");
                    }
                    int np = count(t[1 + coordsCount], "number of physical tags");
                    int pos = 2 + coordsCount;
                    if (t.length < pos + np + (d == 0 ? 0 : 1)) {
                        throw new MeshFormatException(lineNo, "expected " + np + " physical tags" + (d == 0 ? "" : " and a bounding-entity count")
                            + " in " + what + ", line has only " + t.length + " values");
                    }
                    int firstPhysical = 0;
                    for (int k = 0; k < np; k++) {
                        int ph = integer(t[pos + k], "physical tag");
                        if (k == 0) {
                            firstPhysical = ph;
                        }
                    }
                    if (d > 0) {
                        int nb = count(t[pos + np], "number of bounding entities");
                        if (t.length != pos + np + 1 + nb) {
                            throw new MeshFormatException(lineNo, "expected " + nb + " bounding entity tags in " + what + ", found "
                                + (t.length - pos - np - 1));
                        }
                    }
                    if (d == 2 && np > 0) {
                        if (firstPhysical <= 0) {
                            throw new MeshFormatException(lineNo, "surface entity " + tag + " has non-positive physical tag " + firstPhysical);
                        }
                        surfacePhysical.put(tag, firstPhysical);
                    }
                }
            }
            end("Entities");
        }

        private void nodes() throws IOException {
            String[] h = tokens("'numEntityBlocks numNodes minNodeTag maxNodeTag'", 4);
            int blocks = count(h[0], "number of entity blocks");
            int total = count(h[1], "number of nodes");
            coords = new double[3 * total];
            int read = 0;
            for (int b = 0; b < blocks; b++) {
                String[] bh = tokens("node block header 'entityDim entityTag parametric numNodesInBlock'", 4);
                int dim = integer(bh[0], "entity dimension");
                int parametric = integer(bh[2], "parametric flag");
                int n = count(bh[3], "number of nodes in block");
                if (parametric != 0 && parametric != 1) {
                    throw new MeshFormatException(lineNo, "expected parametric flag 0 or 1, found " + parametric);
                }
                if (read + (long) n > total) {
                    throw new MeshFormatException(lineNo, "node blocks hold more nodes than the " + total + " announced in the $Nodes header");
                }
                int need = 3 + (parametric == 1 ? Math.max(dim, 0) : 0);
                long[] tags = new long[n];
                int[] tagLines = new int[n];
                for (int i = 0; i < n; i++) {
                    tags[i] = longInt(tokens("node tag", 1)[0], "node tag");
                    tagLines[i] = lineNo;
                }
                for (int i = 0; i < n; i++) {
                    String[] t = tokens("node coordinates 'x y z'", need);
                    for (int d = 0; d < 3; d++) {
                        coords[3 * (read + i) + d] = real(t[d], "node coordinate");
                    }
                }
                for (int i = 0; i < n; i++) {
                    if (nodeIndex.putIfAbsent(tags[i], read + i) != null) {
                        throw new MeshFormatException(tagLines[i], "duplicate node tag " + tags[i]);
                    }
                }
                read += n;
            }
            if (read != total) {
                throw new MeshFormatException(lineNo, "the $Nodes header announces " + total + " nodes but the blocks hold " + read);
            }
            nodeCount = total;
            end("Nodes");
            haveNodes = true;
        }

        private void elements() throws IOException {
            String[] h = tokens("'numEntityBlocks numElements minElementTag maxElementTag'", 4);
            int blocks = count(h[0], "number of entity blocks");
            long total = count(h[1], "number of elements");
            long read = 0;
            for (int b = 0; b < blocks; b++) {
                String[] bh = tokens("element block header 'entityDim entityTag elementType numElementsInBlock'", 4);
                integer(bh[0], "entity dimension");
                int entity = integer(bh[1], "entity tag");
                int type = integer(bh[2], "element type");
                int n = count(bh[3], "number of elements in block");
                if (read + n > total) {
                    throw new MeshFormatException(lineNo, "element blocks hold more elements than the " + total + " announced in the $Elements header");
                }
                Integer physical = type == TYPE_QUAD4 ? surfacePhysical.get(entity) : null;
                for (int i = 0; i < n; i++) {
                    if (type == TYPE_HEX8) {
                        String[] t = tokens("8-node hexahedron 'elementTag n1 ... n8'", 9);
                        checkLength(t, 9, "8-node hexahedron 'elementTag n1 ... n8'");
                        int[] v = vertexIds(t, 8);
                        if (8L * (hexCount + 1) > Integer.MAX_VALUE - 8) {
                            throw new MeshFormatException(lineNo, "too many hexahedra for int indexing");
                        }
                        if (8 * (hexCount + 1) > hexes.length) {
                            hexes = Arrays.copyOf(hexes, Math.max(64, 2 * hexes.length));
                        }
                        System.arraycopy(v, 0, hexes, 8 * hexCount, 8);
                        hexCount++;
                    } else if (type == TYPE_QUAD4) {
                        String[] t = tokens("4-node quadrangle 'elementTag n1 ... n4'", 5);
                        checkLength(t, 5, "4-node quadrangle 'elementTag n1 ... n4'");
                        int[] v = vertexIds(t, 4);
                        if (physical != null) {
                            quads.add(new int[] {v[0], v[1], v[2], v[3], physical, lineNo});
                        }
                    } else {
                        tokens("element of type " + type, 2);
                    }
                }
                read += n;
            }
            if (read != total) {
                throw new MeshFormatException(lineNo, "the $Elements header announces " + total + " elements but the blocks hold " + read);
            }
            end("Elements");
            haveElements = true;
        }

        private void checkLength(String[] t, int n, String what) {
            if (t.length != n) {
                throw new MeshFormatException(lineNo, "expected " + what + " (" + n + " values), found " + t.length);
            }
        }

        private int[] vertexIds(String[] t, int n) {
            longInt(t[0], "element tag");
            int[] v = new int[n];
            for (int k = 0; k < n; k++) {
                long tag = longInt(t[1 + k], "node tag");
                Integer idx = nodeIndex.get(tag);
                if (idx == null) {
                    throw new MeshFormatException(lineNo, "element " + t[0] + " refers to unknown node tag " + tag + " (not in $Nodes)");
                }
                v[k] = idx;
            }
            return v;
        }

        private void skip(String name) throws IOException {
            int start = lineNo;
            String s;
            while ((s = next()) != null) {
                if (s.equals("$End" + name)) {
                    return;
                }
            }
            throw new MeshFormatException(start, "section $" + name + " is not closed by $End" + name);
        }

        private HexMesh build() {
            int[] elements = Arrays.copyOf(hexes, 8 * hexCount);
            int[] tags = new int[6 * hexCount];
            Map<String, List<Integer>> faceOwners = new HashMap<>();
            int[] w = new int[4];
            for (int e = 0; e < hexCount; e++) {
                for (int f = 0; f < 6; f++) {
                    for (int m = 0; m < 4; m++) {
                        w[m] = elements[8 * e + HexReference.faceCorner(f, m)];
                    }
                    faceOwners.computeIfAbsent(key(w), k -> new ArrayList<>(2)).add(6 * e + f);
                }
            }
            for (int[] q : quads) {
                List<Integer> owners = faceOwners.get(key(Arrays.copyOf(q, 4)));
                if (owners == null) {
                    throw new MeshFormatException(q[5], "quadrangle with physical tag " + q[4] + " does not match any hexahedron face");
                }
                for (int slot : owners) {
                    if (tags[slot] == 0) {
                        tags[slot] = q[4];
                    }
                }
            }
            double[] v = Arrays.copyOf(coords, 3 * nodeCount);
            try {
                return new HexMesh(v, elements, tags);
            } catch (IllegalArgumentException ex) {
                throw new MeshFormatException(0, "invalid hexahedral mesh: " + ex.getMessage());
            }
        }

        private static String key(int[] w) {
            int[] s = w.clone();
            Arrays.sort(s);
            return s[0] + ":" + s[1] + ":" + s[2] + ":" + s[3];
        }

        private static String abbreviate(String s) {
            return s.length() > 60 ? s.substring(0, 60) + "..." : s;
        }
    }
}
