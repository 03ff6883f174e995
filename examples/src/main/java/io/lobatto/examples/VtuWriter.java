package io.lobatto.examples;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * Writes nodal fields on a spectral-element mesh as a VTK XML unstructured grid (.vtu, ASCII) for
 * ParaView: the points are the global GLL nodes and every element of degree N is split into N^3
 * linear hexahedral sub-cells (VTK_HEXAHEDRON) between neighbouring GLL nodes.
 */
public final class VtuWriter {

    private final SpectralElementMesh mesh;
    private final Map<String, double[]> fields = new LinkedHashMap<>();

    public VtuWriter(SpectralElementMesh mesh) {
        this.mesh = mesh;
    }

    /** Adds a point field given per global node (original numbering). */
    public VtuWriter field(String name, double[] values) {
        if (values.length != mesh.globalNodeCount()) {
            throw new IllegalArgumentException("field " + name + " has " + values.length + " values, the mesh has "
                    + mesh.globalNodeCount() + " nodes");
        }
        fields.put(name, values.clone());
        return this;
    }

    /** Number of sub-cells written: E N^3. */
    public int cellCount() {
        int n = mesh.degree();
        return mesh.elementCount() * n * n * n;
    }

    public void write(Path file) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(w);
        }
    }

    public void write(Writer w) throws IOException {
        int n = mesh.degree(), nq = n + 1, np = nq * nq * nq;
        int points = mesh.globalNodeCount();
        int cells = cellCount();
        int[] l2g = mesh.localToGlobal();
        double[] xyz = mesh.globalCoordinates();
        w.write("<?xml version=\"1.0\"?>\n");
        w.write("<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n");
        w.write("  <UnstructuredGrid>\n");
        w.write("    <Piece NumberOfPoints=\"" + points + "\" NumberOfCells=\"" + cells + "\">\n");
        w.write("      <PointData Scalars=\"" + (fields.isEmpty() ? "" : fields.keySet().iterator().next()) + "\">\n");
        for (Map.Entry<String, double[]> f : fields.entrySet()) {
            w.write("        <DataArray type=\"Float64\" Name=\"" + f.getKey() + "\" format=\"ascii\">\n");
            writeNumbers(w, f.getValue());
            w.write("        </DataArray>\n");
        }
        w.write("      </PointData>\n");
        w.write("      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
        writeNumbers(w, xyz);
        w.write("        </DataArray>\n      </Points>\n");
        w.write("      <Cells>\n        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
        StringBuilder sb = new StringBuilder();
        for (int e = 0; e < mesh.elementCount(); e++) {
            for (int k = 0; k < n; k++) {
                for (int j = 0; j < n; j++) {
                    for (int i = 0; i < n; i++) {
                        int[][] c = {{i, j, k}, {i + 1, j, k}, {i + 1, j + 1, k}, {i, j + 1, k},
                            {i, j, k + 1}, {i + 1, j, k + 1}, {i + 1, j + 1, k + 1}, {i, j + 1, k + 1}};
                        sb.setLength(0);
                        sb.append("         ");
                        for (int[] v : c) {
                            sb.append(' ').append(l2g[e * np + v[0] + nq * (v[1] + nq * v[2])]);
                        }
                        sb.append('\n');
                        w.write(sb.toString());
                    }
                }
            }
        }
        w.write("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
        for (int c = 1; c <= cells; c++) {
            w.write(Integer.toString(8 * c));
            w.write(c % 16 == 0 ? "\n" : " ");
        }
        w.write("\n        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
        for (int c = 1; c <= cells; c++) {
            w.write("12");
            w.write(c % 32 == 0 ? "\n" : " ");
        }
        w.write("\n        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    }

    private static void writeNumbers(Writer w, double[] v) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < v.length; i++) {
            sb.append(v[i]).append(i % 6 == 5 ? '\n' : ' ');
            if (sb.length() > 8192) {
                w.write(sb.toString());
                sb.setLength(0);
            }
        }
        sb.append('\n');
        w.write(sb.toString());
    }
}
