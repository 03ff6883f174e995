package io.lobatto.core.mesh;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a hexahedral mesh from a Gmsh <b>4.1</b> {@code .msh} file, ASCII or binary.
 *
 * <p>Sections: {@code $MeshFormat} (must come first; version 4.1, file-type 0 = ASCII or 1 = binary, data-size 4 or
 * 8 = the bytes of a size_t; a binary file's endianness is taken from the int 1 that follows), {@code $PhysicalNames}
 * (optional, checked but not kept), {@code $Entities} (optional; maps each surface entity to its first physical
 * tag), {@code $Nodes} (required; node tags may be sparse and are renumbered 0.. in file order), {@code $Elements}
 * (required, after {@code $Nodes}): type 5 (8-node hexahedron) and type 12 (27-node second-order hexahedron) become
 * elements, both with the Gmsh corner order = {@link HexReference}; type 3 (4-node) and type 10 (9-node
 * quadrangle) on a surface entity with a physical tag set the tag of the hexahedron face(s) with the same 4 corners
 * (both sides for an interior surface; the first tag wins if several surfaces cover a face); all other element types
 * are ignored. Unknown sections are skipped.
 *
 * <p>The {@link HexMesh} holds every node as a vertex and the 8 corners of each hexahedron. A 27-node hexahedron's
 * other 19 nodes (edge midpoints, face centres, centre, in Gmsh's order) define its triquadratic geometry; {@link
 * #load(Path)} returns it as a {@link NodeMap} that sends each point of the straight-sided (trilinear) element to
 * the triquadratic one, so that {@code SpectralElementMesh.of(hexMesh, N, nodeMap)} puts the GLL nodes on the curved
 * element ({@link GmshMesh#spectralMesh(int)}).
 *
 * <p>Malformed input raises {@link MeshFormatException} with the line number (for binary data: the line of its
 * section header) and what was expected; I/O errors raise {@link UncheckedIOException}. Every count in a header
 * (entities, entity blocks, nodes, elements) is checked before anything is allocated or read for it: against the
 * int range and against what the rest of the input can hold at the fewest bytes such an item takes.
 */
public final class GmshReader {

    private static final int TYPE_QUAD4 = 3;
    private static final int TYPE_HEX8 = 5;
    private static final int TYPE_QUAD9 = 10;
    private static final int TYPE_HEX27 = 12;
    private static final String[] ENTITY_COUNTS = {"number of point entities", "number of curve entities",
        "number of surface entities", "number of volume entities"};

    private GmshReader() {
    }

    /**
     * A mesh read from a Gmsh file: the straight-sided hexahedra on the corner nodes, the map that bends them into
     * the file's second-order geometry ({@link NodeMap#identity()} when the file has no 27-node hexahedra), and
     * whether it does bend any.
     */
    public record GmshMesh(HexMesh hexMesh, NodeMap nodeMap, boolean curved) {

        /** The degree-N spectral-element mesh on the file's geometry (curved where the file has 27-node hexahedra). */
        public SpectralElementMesh spectralMesh(int degree) {
            return SpectralElementMesh.of(hexMesh, degree, nodeMap);
        }
    }

    /** Reads a Gmsh 4.1 file, ASCII or binary; the hexahedra of its corner nodes (see {@link #load(Path)} for hex27). */
    public static HexMesh read(Path path) {
        return load(path).hexMesh();
    }

    /** Reads Gmsh 4.1 ASCII text; the reader is consumed but not closed. Binary files need {@link #load(InputStream)}. */
    public static HexMesh read(Reader reader) {
        StringWriter w = new StringWriter();
        try {
            reader.transferTo(w);
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read Gmsh input: " + ex.getMessage(), ex);
        }
        byte[] bytes = w.toString().getBytes(StandardCharsets.UTF_8);
        return parse(new ByteArrayInputStream(bytes), false, bytes.length).hexMesh();
    }

    /** Reads a Gmsh 4.1 file, ASCII or binary, with its second-order geometry. */
    public static GmshMesh load(Path path) {
        try (InputStream in = Files.newInputStream(path)) {
            return parse(in, true, Files.size(path));
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read Gmsh file " + path + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Reads a Gmsh 4.1 stream, ASCII or binary, with its second-order geometry; the stream is consumed but not closed.
     * It is read into memory first, so that the counts in its headers can be checked against its length.
     */
    public static GmshMesh load(InputStream in) {
        byte[] bytes;
        try {
            bytes = in.readAllBytes();
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read Gmsh input: " + ex.getMessage(), ex);
        }
        return parse(new ByteArrayInputStream(bytes), true, bytes.length);
    }

    private static GmshMesh parse(InputStream in, boolean binaryAllowed, long length) {
        try {
            InputStream buffered = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
            return new Parser(new Counting(buffered), binaryAllowed, length).parse();
        } catch (EOFException ex) {
            throw new MeshFormatException(0, "unexpected end of input inside binary data (" + ex.getMessage() + ")");
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot read Gmsh input: " + ex.getMessage(), ex);
        }
    }

    /** Counts the bytes the parser has consumed, to know how many are left. */
    private static final class Counting extends FilterInputStream {
        long position;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c >= 0) {
                position++;
            }
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int r = super.read(b, off, len);
            if (r > 0) {
                position += r;
            }
            return r;
        }

        @Override
        public long skip(long n) throws IOException {
            long k = super.skip(n);
            position += k;
            return k;
        }
    }

    // ------------------------------------------------------------------ parser

    private static final class Parser {
        /** Largest int count of one Java array (a few below Integer.MAX_VALUE, as the JDK's own limit). */
        private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

        private final Counting in;
        private final long length;
        private final boolean binaryAllowed;
        private int lineNo;
        private boolean binary;
        private ByteOrder order = ByteOrder.LITTLE_ENDIAN;
        private int sizeT = 8;
        private final byte[] scratch = new byte[8];
        private final StringBuilder lineBuf = new StringBuilder();

        private final Map<Integer, Integer> surfacePhysical = new HashMap<>();
        private final Map<Long, Integer> nodeIndex = new HashMap<>();
        private double[] coords = new double[0];
        private int nodeCount;
        private boolean haveNodes;
        private boolean haveElements;
        private int[] hexes = new int[0];
        private int hexCount;
        /** Per hexahedron, the offset of its 27 node indices in {@code hex27}, or -1 for an 8-node one. */
        private int[] hexHigh = new int[0];
        private int[] hex27 = new int[0];
        private int hex27Count;
        /** Quads on tagged surfaces: 4 vertex indices, tag, line. */
        private final List<int[]> quads = new ArrayList<>();

        Parser(Counting in, boolean binaryAllowed, long length) {
            this.in = in;
            this.binaryAllowed = binaryAllowed;
            this.length = length;
        }

        /**
         * A count from a header, checked before anything is allocated or read for it: within the int range of an
         * array, and no more items than the rest of the input can hold when each takes at least {@code minBytes}.
         */
        private int fits(long count, String what, String section, long minBytes, String unit, int line) {
            if (count < 0 || count > MAX_ARRAY) {
                throw new MeshFormatException(line, what + " " + Long.toUnsignedString(count) + " in the " + section
                    + " header exceeds the limit " + MAX_ARRAY + " (int indexing)");
            }
            long remaining = Math.max(0, length - in.position);
            long max = remaining / minBytes;
            if (count > max) {
                throw new MeshFormatException(line, what + " " + count + " in the " + section + " header exceeds the limit "
                    + max + ": the remaining " + remaining + " bytes of the input hold no more, at " + minBytes
                    + " bytes or more per " + unit);
            }
            return (int) count;
        }

        /** The next line (bytes up to a newline, ISO-8859-1, without the line break); null at end of input. */
        private String line() throws IOException {
            lineBuf.setLength(0);
            int c = in.read();
            if (c < 0) {
                return null;
            }
            while (c >= 0 && c != '\n') {
                lineBuf.append((char) c);
                c = in.read();
            }
            return lineBuf.toString();
        }

        /** Next non-blank line, trimmed; null at end of input. */
        private String next() throws IOException {
            String s;
            do {
                s = line();
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

        // ------------------------------------------------------------------ binary primitives

        private ByteBuffer bytes(int n) throws IOException {
            byte[] b = n <= scratch.length ? scratch : new byte[n];
            int off = 0;
            while (off < n) {
                int r = in.read(b, off, n - off);
                if (r < 0) {
                    throw new EOFException("expected " + n + " more bytes after line " + lineNo);
                }
                off += r;
            }
            return ByteBuffer.wrap(b, 0, n).order(order);
        }

        private int i32() throws IOException {
            return bytes(4).getInt();
        }

        private double f64() throws IOException {
            return bytes(8).getDouble();
        }

        /** A size_t of the file's data-size (4 or 8 bytes), as an unsigned value. */
        private long size() throws IOException {
            return sizeT == 8 ? bytes(8).getLong() : Integer.toUnsignedLong(bytes(4).getInt());
        }

        private double finite(double v, String what, int line) {
            if (!Double.isFinite(v)) {
                throw new MeshFormatException(line, "binary " + what + " is not a finite number: " + v);
            }
            return v;
        }

        GmshMesh parse() throws IOException {
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
                        if (binary) {
                            entitiesBinary();
                        } else {
                            entitiesText();
                        }
                        break;
                    case "Nodes":
                        if (haveNodes) {
                            throw new MeshFormatException(lineNo, "second $Nodes section");
                        }
                        if (binary) {
                            nodesBinary();
                        } else {
                            nodesText();
                        }
                        break;
                    case "Elements":
                        if (!haveNodes) {
                            throw new MeshFormatException(lineNo, "$Elements before $Nodes; expected $Nodes first");
                        }
                        if (haveElements) {
                            throw new MeshFormatException(lineNo, "second $Elements section");
                        }
                        if (binary) {
                            elementsBinary();
                        } else {
                            elementsText();
                        }
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
                throw new MeshFormatException(0, "no hexahedra found (element type 5, 8 nodes, or 12, 27 nodes); only hexahedral meshes are supported");
            }
            return build();
        }

        private void meshFormat() throws IOException {
            String[] t = tokens("'version file-type data-size' (e.g. '4.1 0 8')", 3);
            if (!t[0].equals("4.1")) {
                throw new MeshFormatException(lineNo, "unsupported Gmsh format version " + t[0] + "; only 4.1 is supported "
                    + "(export with Mesh.MshFileVersion = 4.1)");
            }
            int fileType = integer(t[1], "file-type");
            if (fileType != 0 && fileType != 1) {
                throw new MeshFormatException(lineNo, "expected file-type 0 (ASCII) or 1 (binary), found " + fileType);
            }
            int dataSize = integer(t[2], "data-size");
            if (fileType == 1) {
                if (!binaryAllowed) {
                    throw new MeshFormatException(lineNo, "binary Gmsh file (file-type 1) given as characters; read it as bytes "
                        + "(GmshReader.read(Path) or load(InputStream))");
                }
                if (dataSize != 4 && dataSize != 8) {
                    throw new MeshFormatException(lineNo, "expected data-size (bytes of a size_t) 4 or 8, found " + dataSize);
                }
                sizeT = dataSize;
                binary = true;
                int one = bytes(4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                if (one == 1) {
                    order = ByteOrder.LITTLE_ENDIAN;
                } else if (Integer.reverseBytes(one) == 1) {
                    order = ByteOrder.BIG_ENDIAN;
                } else {
                    throw new MeshFormatException(lineNo + 1, "expected the binary int 1 after the format line (endianness check), found "
                        + one);
                }
            }
            end("MeshFormat");
        }

        private void physicalNames() throws IOException {
            int n = fits(count(tokens("number of physical names", 1)[0], "number of physical names"), "number of physical names",
                "$PhysicalNames", 6, "name 'dim tag \"name\"'", lineNo);
            for (int i = 0; i < n; i++) {
                String[] t = tokens("'dimension physicalTag \"name\"'", 3);
                integer(t[0], "dimension");
                integer(t[1], "physical tag");
            }
            end("PhysicalNames");
        }

        private void entitiesText() throws IOException {
            String[] h = tokens("'numPoints numCurves numSurfaces numVolumes'", 4);
            int[] counts = new int[4];
            for (int d = 0; d < 4; d++) {
                counts[d] = fits(count(h[d], "entity count"), ENTITY_COUNTS[d], "$Entities", d == 0 ? 10 : 18,
                    d == 0 ? "point entity line" : "entity line", lineNo);
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

        private void entitiesBinary() throws IOException {
            int line = lineNo;
            int[] counts = new int[4];
            for (int d = 0; d < 4; d++) {
                counts[d] = fits(size(), ENTITY_COUNTS[d], "$Entities", d == 0 ? 4 + 24 + sizeT : 4 + 48 + 2L * sizeT,
                    d == 0 ? "point entity" : "entity", line);
            }
            for (int d = 0; d < 4; d++) {
                for (int i = 0; i < counts[d]; i++) {
                    int tag = i32();
                    for (int c = 0; c < (d == 0 ? 3 : 6); c++) {
                        finite(f64(), "entity bounding box", line);
                    }
                    int np = fits(size(), "number of physical tags", "entity", 4, "tag", line);
                    int firstPhysical = 0;
                    for (int k = 0; k < np; k++) {
                        int ph = i32();
                        if (k == 0) {
                            firstPhysical = ph;
                        }
                    }
                    if (d > 0) {
                        int nb = fits(size(), "number of bounding entities", "entity", 4, "tag", line);
                        for (int k = 0; k < nb; k++) {
                            i32();
                        }
                    }
                    if (d == 2 && np > 0) {
                        if (firstPhysical <= 0) {
                            throw new MeshFormatException(line, "surface entity " + tag + " has non-positive physical tag " + firstPhysical);
                        }
                        surfacePhysical.put(tag, firstPhysical);
                    }
                }
            }
            end("Entities");
        }

        private void checkNodeCount(int total, int line) {
            if (3L * total > MAX_ARRAY) {
                throw new MeshFormatException(line, "number of nodes " + total + " in the $Nodes header exceeds the limit "
                    + MAX_ARRAY / 3 + " (3 coordinates each, int indexing)");
            }
        }

        private void nodesText() throws IOException {
            String[] h = tokens("'numEntityBlocks numNodes minNodeTag maxNodeTag'", 4);
            int blocks = fits(count(h[0], "number of entity blocks"), "number of entity blocks", "$Nodes", 8,
                "block header 'dim tag parametric n'", lineNo);
            int total = fits(count(h[1], "number of nodes"), "number of nodes", "$Nodes", 8, "node (a tag line and an 'x y z' line)",
                lineNo);
            checkNodeCount(total, lineNo);
            coords = new double[3 * total];
            int read = 0;
            for (int b = 0; b < blocks; b++) {
                String[] bh = tokens("node block header 'entityDim entityTag parametric numNodesInBlock'", 4);
                int dim = integer(bh[0], "entity dimension");
                int parametric = integer(bh[2], "parametric flag");
                int n = fits(count(bh[3], "number of nodes in block"), "number of nodes", "node block", 8,
                    "node (a tag line and an 'x y z' line)", lineNo);
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

        private void nodesBinary() throws IOException {
            int line = lineNo;
            int blocks = fits(size(), "number of entity blocks", "$Nodes", 12 + sizeT, "block header", line);
            int total = fits(size(), "number of nodes", "$Nodes", sizeT + 24, "node (a tag and 3 coordinates)", line);
            size();
            size();
            checkNodeCount(total, line);
            coords = new double[3 * total];
            int read = 0;
            for (int b = 0; b < blocks; b++) {
                int dim = i32();
                i32();
                int parametric = i32();
                int n = fits(size(), "number of nodes", "node block", sizeT + 24, "node (a tag and 3 coordinates)", line);
                if (parametric != 0 && parametric != 1) {
                    throw new MeshFormatException(line, "binary node block " + b + ": expected parametric flag 0 or 1, found " + parametric);
                }
                if (read + (long) n > total) {
                    throw new MeshFormatException(line, "node blocks hold more nodes than the " + total + " announced in the $Nodes header");
                }
                long[] tags = new long[n];
                for (int i = 0; i < n; i++) {
                    tags[i] = size();
                }
                int extra = parametric == 1 ? Math.max(dim, 0) : 0;
                for (int i = 0; i < n; i++) {
                    for (int d = 0; d < 3; d++) {
                        coords[3 * (read + i) + d] = finite(f64(), "node coordinate", line);
                    }
                    for (int d = 0; d < extra; d++) {
                        f64();
                    }
                }
                for (int i = 0; i < n; i++) {
                    if (nodeIndex.putIfAbsent(tags[i], read + i) != null) {
                        throw new MeshFormatException(line, "duplicate node tag " + tags[i]);
                    }
                }
                read += n;
            }
            if (read != total) {
                throw new MeshFormatException(line, "the $Nodes header announces " + total + " nodes but the blocks hold " + read);
            }
            nodeCount = total;
            end("Nodes");
            haveNodes = true;
        }

        /** Nodes per element of the Gmsh element types (0: unknown), needed to step over other types in binary files. */
        private static int nodesOf(int type) {
            switch (type) {
                case 15: return 1;
                case 1: return 2;
                case 2: case 8: return 3;
                case 3: case 4: case 26: return 4;
                case 7: case 27: return 5;
                case 6: case 9: case 28: return 6;
                case 5: case 16: return 8;
                case 10: case 20: return 9;
                case 11: case 21: return 10;
                case 19: return 13;
                case 14: return 14;
                case 18: return 15;
                case 36: return 16;
                case 13: return 18;
                case 17: case 29: return 20;
                case 37: return 25;
                case 12: return 27;
                case 92: return 64;
                case 93: return 125;
                default: return 0;
            }
        }

        private void elementsText() throws IOException {
            String[] h = tokens("'numEntityBlocks numElements minElementTag maxElementTag'", 4);
            int blocks = fits(count(h[0], "number of entity blocks"), "number of entity blocks", "$Elements", 8,
                "block header 'dim tag type n'", lineNo);
            long total = fits(count(h[1], "number of elements"), "number of elements", "$Elements", 4,
                "element line 'tag nodes...'", lineNo);
            long read = 0;
            for (int b = 0; b < blocks; b++) {
                String[] bh = tokens("element block header 'entityDim entityTag elementType numElementsInBlock'", 4);
                integer(bh[0], "entity dimension");
                int entity = integer(bh[1], "entity tag");
                int type = integer(bh[2], "element type");
                int n = fits(count(bh[3], "number of elements in block"), "number of elements", "element block", 4,
                    "element line 'tag nodes...'", lineNo);
                if (read + n > total) {
                    throw new MeshFormatException(lineNo, "element blocks hold more elements than the " + total + " announced in the $Elements header");
                }
                Integer physical = type == TYPE_QUAD4 || type == TYPE_QUAD9 ? surfacePhysical.get(entity) : null;
                for (int i = 0; i < n; i++) {
                    if (type == TYPE_HEX8 || type == TYPE_HEX27 || type == TYPE_QUAD4 || type == TYPE_QUAD9) {
                        int k = nodesOf(type);
                        String what = describe(type);
                        String[] t = tokens(what, k + 1);
                        checkLength(t, k + 1, what);
                        longInt(t[0], "element tag");
                        int[] v = new int[k];
                        for (int m = 0; m < k; m++) {
                            v[m] = node(longInt(t[1 + m], "node tag"), t[0]);
                        }
                        add(type, v, physical);
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

        private void elementsBinary() throws IOException {
            int line = lineNo;
            int blocks = fits(size(), "number of entity blocks", "$Elements", 12 + sizeT, "block header", line);
            long total = fits(size(), "number of elements", "$Elements", 2L * sizeT, "element (a tag and a node)", line);
            size();
            size();
            long read = 0;
            for (int b = 0; b < blocks; b++) {
                i32();
                int entity = i32();
                int type = i32();
                int n = fits(size(), "number of elements", "element block", 2L * sizeT, "element (a tag and a node)", line);
                if (read + n > total) {
                    throw new MeshFormatException(line, "element blocks hold more elements than the " + total + " announced in the $Elements header");
                }
                int k = nodesOf(type);
                if (k == 0) {
                    throw new MeshFormatException(line, "binary element block " + b + " has element type " + type
                        + ", whose node count this reader does not know, so it cannot step over it");
                }
                fits(n, "number of elements", "element block", (1L + k) * sizeT, "element of type " + type + " (a tag and " + k + " nodes)",
                    line);
                boolean used = type == TYPE_HEX8 || type == TYPE_HEX27 || type == TYPE_QUAD4 || type == TYPE_QUAD9;
                Integer physical = type == TYPE_QUAD4 || type == TYPE_QUAD9 ? surfacePhysical.get(entity) : null;
                for (int i = 0; i < n; i++) {
                    long tag = size();
                    int[] v = new int[k];
                    for (int m = 0; m < k; m++) {
                        long nodeTag = size();
                        if (used) {
                            v[m] = node(nodeTag, Long.toString(tag));
                        }
                    }
                    if (used) {
                        add(type, v, physical);
                    }
                }
                read += n;
            }
            if (read != total) {
                throw new MeshFormatException(line, "the $Elements header announces " + total + " elements but the blocks hold " + read);
            }
            end("Elements");
            haveElements = true;
        }

        private static String describe(int type) {
            switch (type) {
                case TYPE_HEX8: return "8-node hexahedron 'elementTag n1 ... n8'";
                case TYPE_HEX27: return "27-node hexahedron 'elementTag n1 ... n27'";
                case TYPE_QUAD4: return "4-node quadrangle 'elementTag n1 ... n4'";
                default: return "9-node quadrangle 'elementTag n1 ... n9'";
            }
        }

        private int node(long tag, String element) {
            Integer idx = nodeIndex.get(tag);
            if (idx == null) {
                throw new MeshFormatException(lineNo, "element " + element + " refers to unknown node tag " + tag + " (not in $Nodes)");
            }
            return idx;
        }

        /** Records a hexahedron (with its 27 nodes for type 12) or a tagged quadrangle (its 4 corners). */
        private void add(int type, int[] v, Integer physical) {
            if (type == TYPE_QUAD4 || type == TYPE_QUAD9) {
                if (physical != null) {
                    quads.add(new int[] {v[0], v[1], v[2], v[3], physical, lineNo});
                }
                return;
            }
            if (8L * (hexCount + 1) > Integer.MAX_VALUE - 8) {
                throw new MeshFormatException(lineNo, "too many hexahedra for int indexing");
            }
            if (8 * (hexCount + 1) > hexes.length) {
                hexes = Arrays.copyOf(hexes, Math.max(64, 2 * hexes.length));
                hexHigh = Arrays.copyOf(hexHigh, hexes.length / 8);
            }
            System.arraycopy(v, 0, hexes, 8 * hexCount, 8);
            if (type == TYPE_HEX27) {
                if (27L * (hex27Count + 1) > Integer.MAX_VALUE - 8) {
                    throw new MeshFormatException(lineNo, "too many 27-node hexahedra for int indexing");
                }
                if (27 * (hex27Count + 1) > hex27.length) {
                    hex27 = Arrays.copyOf(hex27, Math.max(27 * 16, 2 * hex27.length));
                }
                System.arraycopy(v, 0, hex27, 27 * hex27Count, 27);
                hexHigh[hexCount] = 27 * hex27Count;
                hex27Count++;
            } else {
                hexHigh[hexCount] = -1;
            }
            hexCount++;
        }

        private void checkLength(String[] t, int n, String what) {
            if (t.length != n) {
                throw new MeshFormatException(lineNo, "expected " + what + " (" + n + " values), found " + t.length);
            }
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

        private GmshMesh build() {
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
            HexMesh mesh;
            try {
                mesh = new HexMesh(v, elements, tags);
            } catch (IllegalArgumentException ex) {
                throw new MeshFormatException(0, "invalid hexahedral mesh: " + ex.getMessage());
            }
            if (hex27Count == 0) {
                return new GmshMesh(mesh, NodeMap.identity(), false);
            }
            return new GmshMesh(mesh, new Hex27Map(v, elements, Arrays.copyOf(hexHigh, hexCount), Arrays.copyOf(hex27, 27 * hex27Count)), true);
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

    /**
     * The triquadratic geometry of the 27-node hexahedra as a {@link NodeMap}: a point x0 of the straight-sided mesh is
     * located in the first element (in element order) whose trilinear map reaches it, the trilinear map is inverted
     * there by Newton's method, and the element's 27-node map is evaluated at the reference point found. Points of
     * 8-node elements stay where they are. A pure function of x0 (a shared node lands where the lowest-numbered element
     * holding it puts it; neighbours agree on a shared face or edge, whose nodes they share, to round-off).
     */
    static final class Hex27Map implements NodeMap {
        /** Reference coordinates (in {-1, 0, 1}) of the 27 nodes in Gmsh's order. */
        static final int[][] REF = new int[27][3];
        private static final int[][] EDGES = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
        private static final int[][] FACES = {{0, 1, 2, 3}, {0, 1, 5, 4}, {0, 3, 7, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};

        static {
            for (int c = 0; c < 8; c++) {
                for (int d = 0; d < 3; d++) {
                    REF[c][d] = 2 * HexReference.cornerBit(c, d) - 1;
                }
            }
            for (int k = 0; k < 12; k++) {
                for (int d = 0; d < 3; d++) {
                    REF[8 + k][d] = (REF[EDGES[k][0]][d] + REF[EDGES[k][1]][d]) / 2;
                }
            }
            for (int k = 0; k < 6; k++) {
                for (int d = 0; d < 3; d++) {
                    int sum = 0;
                    for (int c : FACES[k]) {
                        sum += REF[c][d];
                    }
                    REF[20 + k][d] = sum / 4;
                }
            }
            // REF[26] = centre (0, 0, 0)
        }

        private static final double INSIDE = 1e-9;

        private final double[] v;
        private final int[] elements;
        private final int[] high;
        private final int[] hex27;
        private final double[] box;
        private final double[] lo = new double[3];
        private final double[] h = new double[3];
        private final int[] dims = new int[3];
        private final int[] cellStart;
        private final int[] cellList;

        Hex27Map(double[] v, int[] elements, int[] high, int[] hex27) {
            this.v = v;
            this.elements = elements;
            this.high = high;
            this.hex27 = hex27;
            int ne = elements.length / 8;
            box = new double[6 * ne];
            double[] hi = new double[3];
            Arrays.fill(lo, Double.POSITIVE_INFINITY);
            Arrays.fill(hi, Double.NEGATIVE_INFINITY);
            for (int e = 0; e < ne; e++) {
                for (int d = 0; d < 3; d++) {
                    double a = Double.POSITIVE_INFINITY, b = Double.NEGATIVE_INFINITY;
                    for (int c = 0; c < 8; c++) {
                        double x = v[3 * elements[8 * e + c] + d];
                        a = Math.min(a, x);
                        b = Math.max(b, x);
                    }
                    double pad = 1e-9 * Math.max(b - a, Math.max(Math.abs(a), Math.abs(b))) + 1e-300;
                    box[6 * e + d] = a - pad;
                    box[6 * e + 3 + d] = b + pad;
                    lo[d] = Math.min(lo[d], a - pad);
                    hi[d] = Math.max(hi[d], b + pad);
                }
            }
            int n = (int) Math.max(1, Math.min(256, Math.round(Math.cbrt(ne))));
            for (int d = 0; d < 3; d++) {
                dims[d] = n;
                h[d] = Math.max((hi[d] - lo[d]) / n, 1e-300);
            }
            int cells = n * n * n;
            int[] counts = new int[cells + 1];
            int[] all = null;
            for (int pass = 0; pass < 2; pass++) {
                int[] fill = pass == 1 ? new int[cells] : null;
                int[] list = pass == 1 ? new int[counts[cells]] : null;
                for (int e = 0; e < ne; e++) {
                    int[] a = new int[3], b = new int[3];
                    for (int d = 0; d < 3; d++) {
                        a[d] = cell(box[6 * e + d], d);
                        b[d] = cell(box[6 * e + 3 + d], d);
                    }
                    for (int z = a[2]; z <= b[2]; z++) {
                        for (int y = a[1]; y <= b[1]; y++) {
                            for (int x = a[0]; x <= b[0]; x++) {
                                int c = x + n * (y + n * z);
                                if (pass == 0) {
                                    counts[c + 1]++;
                                } else {
                                    list[counts[c] + fill[c]++] = e;
                                }
                            }
                        }
                    }
                }
                if (pass == 0) {
                    for (int c = 0; c < cells; c++) {
                        counts[c + 1] += counts[c];
                    }
                } else {
                    all = list;
                }
            }
            cellStart = counts;
            cellList = all;
        }

        private int cell(double x, int d) {
            int i = (int) Math.floor((x - lo[d]) / h[d]);
            return Math.max(0, Math.min(dims[d] - 1, i));
        }

        @Override
        public void map(double[] x0, double[] x) {
            int c = cell(x0[0], 0) + dims[0] * (cell(x0[1], 1) + dims[1] * cell(x0[2], 2));
            double[] rst = new double[3];
            for (int k = cellStart[c]; k < cellStart[c + 1]; k++) {
                int e = cellList[k];
                if (x0[0] < box[6 * e] || x0[0] > box[6 * e + 3] || x0[1] < box[6 * e + 1] || x0[1] > box[6 * e + 4]
                        || x0[2] < box[6 * e + 2] || x0[2] > box[6 * e + 5]) {
                    continue;
                }
                if (invertTrilinear(e, x0, rst)) {
                    if (high[e] < 0) {
                        x[0] = x0[0];
                        x[1] = x0[1];
                        x[2] = x0[2];
                    } else {
                        quadratic(high[e], rst, x);
                    }
                    return;
                }
            }
            throw new IllegalStateException("point (" + x0[0] + ", " + x0[1] + ", " + x0[2] + ") lies in no hexahedron of the mesh; "
                + "the 27-node map applies to points of the mesh read");
        }

        /** Newton's method for the reference point of x0 in element e's trilinear map; true if it converges inside. */
        private boolean invertTrilinear(int e, double[] x0, double[] rst) {
            double r = 0, s = 0, t = 0;
            double scale = 0;
            for (int d = 0; d < 3; d++) {
                scale = Math.max(scale, box[6 * e + 3 + d] - box[6 * e + d]);
            }
            for (int it = 0; it < 40; it++) {
                double[] f = new double[3];
                double[] jac = new double[9];
                for (int c = 0; c < 8; c++) {
                    double rc = 2 * HexReference.cornerBit(c, 0) - 1, sc = 2 * HexReference.cornerBit(c, 1) - 1, tc = 2 * HexReference.cornerBit(c, 2) - 1;
                    double fr = (1 + r * rc) / 2, fs = (1 + s * sc) / 2, ft = (1 + t * tc) / 2;
                    double phi = fr * fs * ft;
                    double dr = rc / 2 * fs * ft, ds = fr * sc / 2 * ft, dt = fr * fs * tc / 2;
                    int vc = 3 * elements[8 * e + c];
                    for (int d = 0; d < 3; d++) {
                        double xc = v[vc + d];
                        f[d] += phi * xc;
                        jac[3 * d] += dr * xc;
                        jac[3 * d + 1] += ds * xc;
                        jac[3 * d + 2] += dt * xc;
                    }
                }
                for (int d = 0; d < 3; d++) {
                    f[d] -= x0[d];
                }
                double det = jac[0] * (jac[4] * jac[8] - jac[5] * jac[7]) - jac[1] * (jac[3] * jac[8] - jac[5] * jac[6])
                    + jac[2] * (jac[3] * jac[7] - jac[4] * jac[6]);
                if (!(Math.abs(det) > 0)) {
                    return false;
                }
                double dr = (f[0] * (jac[4] * jac[8] - jac[5] * jac[7]) - jac[1] * (f[1] * jac[8] - jac[5] * f[2])
                    + jac[2] * (f[1] * jac[7] - jac[4] * f[2])) / det;
                double ds = (jac[0] * (f[1] * jac[8] - jac[5] * f[2]) - f[0] * (jac[3] * jac[8] - jac[5] * jac[6])
                    + jac[2] * (jac[3] * f[2] - f[1] * jac[6])) / det;
                double dt = (jac[0] * (jac[4] * f[2] - f[1] * jac[7]) - jac[1] * (jac[3] * f[2] - f[1] * jac[6])
                    + f[0] * (jac[3] * jac[7] - jac[4] * jac[6])) / det;
                r -= dr;
                s -= ds;
                t -= dt;
                if (Math.abs(r) > 4 || Math.abs(s) > 4 || Math.abs(t) > 4) {
                    return false;
                }
                if (Math.max(Math.abs(dr), Math.max(Math.abs(ds), Math.abs(dt))) < 1e-15 * 4
                        || Math.max(Math.abs(f[0]), Math.max(Math.abs(f[1]), Math.abs(f[2]))) <= 1e-16 * scale) {
                    break;
                }
            }
            if (Math.abs(r) > 1 + INSIDE || Math.abs(s) > 1 + INSIDE || Math.abs(t) > 1 + INSIDE) {
                return false;
            }
            rst[0] = Math.max(-1, Math.min(1, r));
            rst[1] = Math.max(-1, Math.min(1, s));
            rst[2] = Math.max(-1, Math.min(1, t));
            return true;
        }

        /**
         * The same geometry as {@link ElementGeometry} of order 2: per element its 27 nodes numbered a + 3 (b + 3 c)
         * by their reference position in {-1, 0, 1}^3 (an 8-node hexahedron of the file gets the trilinear positions
         * of those points), no map. A backend interpolates them directly instead of locating each point.
         */
        ElementGeometry elementGeometry() {
            int ne = elements.length / 8;
            double[] out = new double[81 * ne];
            for (int e = 0; e < ne; e++) {
                for (int n = 0; n < 27; n++) {
                    int lex = (REF[n][0] + 1) + 3 * ((REF[n][1] + 1) + 3 * (REF[n][2] + 1));
                    int o = 81 * e + 3 * lex;
                    if (high[e] >= 0) {
                        System.arraycopy(v, 3 * hex27[high[e] + n], out, o, 3);
                    } else {
                        for (int c = 0; c < 8; c++) {
                            double w = 1;
                            for (int d = 0; d < 3; d++) {
                                int rc = 2 * HexReference.cornerBit(c, d) - 1;
                                w *= (1 + REF[n][d] * rc) / 2.0;
                            }
                            if (w != 0) {
                                for (int d = 0; d < 3; d++) {
                                    out[o + d] += w * v[3 * elements[8 * e + c] + d];
                                }
                            }
                        }
                    }
                }
            }
            return ElementGeometry.of(2, out, null);
        }

        /** The 27-node (triquadratic Lagrange) map of the element whose nodes start at {@code offset}, at rst. */
        private void quadratic(int offset, double[] rst, double[] x) {
            double[][] l = new double[3][3];
            for (int d = 0; d < 3; d++) {
                double q = rst[d];
                l[d][0] = q * (q - 1) / 2;
                l[d][1] = 1 - q * q;
                l[d][2] = q * (q + 1) / 2;
            }
            double a = 0, b = 0, c = 0;
            for (int n = 0; n < 27; n++) {
                double w = l[0][REF[n][0] + 1] * l[1][REF[n][1] + 1] * l[2][REF[n][2] + 1];
                int p = 3 * hex27[offset + n];
                a += w * v[p];
                b += w * v[p + 1];
                c += w * v[p + 2];
            }
            x[0] = a;
            x[1] = b;
            x[2] = c;
        }
    }
}
