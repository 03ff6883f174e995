package io.lobatto.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.lobatto.core.mesh.GmshReader;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import picocli.CommandLine.Option;

/** Mesh options shared by the commands: a (deformed) unit-cube box or a Gmsh file. */
final class MeshOptions {

    @Option(names = {"-e", "--elements"}, split = ",", defaultValue = "6,6,6",
            description = "elements per direction of the unit-cube box, nx,ny,nz. Default: ${DEFAULT-VALUE}")
    int[] elements;

    @Option(names = "--deform", defaultValue = "0.05",
            description = "amplitude of the smooth interior deformation of the box (0 = affine). Default: ${DEFAULT-VALUE}")
    double deform;

    @Option(names = "--kershaw", description = "Kershaw's distortion of the unit-cube box with this epsilon in (0, 1] (0.3: the "
            + "CEED benchmarks' hard case; element counts a multiple of 6 in x and even in y, z follow its kinks) instead of --deform")
    Double kershaw;

    @Option(names = "--mesh", description = "a Gmsh 4.1 .msh file (ASCII or binary) with 8- or 27-node hexahedra; 27-node "
            + "elements give a curved geometry; Dirichlet conditions on the tagged boundary faces (instead of the box)")
    Path mesh;

    private HexMesh hexMesh;
    /** The geometry of a read mesh (curved for 27-node hexahedra), or null for the box. */
    private NodeMap readMap;

    /** The hexahedral mesh (read or built once), after checking the options; errors say which option to change. */
    HexMesh hexMesh() throws IOException {
        if (hexMesh == null) {
            if (mesh != null) {
                if (!Files.isRegularFile(mesh)) {
                    throw new IllegalArgumentException("--mesh " + mesh + ": " + (Files.exists(mesh) ? "not a file" : "no such file")
                            + "; give the path of a Gmsh 4.1 .msh file");
                }
                GmshReader.GmshMesh read = GmshReader.load(mesh);
                hexMesh = read.hexMesh();
                readMap = read.nodeMap();
            } else {
                CliChecks.requireElements(elements, "--elements");
                if (kershaw != null) {
                    NodeMap.requireKershawElements("--elements", elements[0], elements[1], elements[2]);
                }
                hexMesh = HexMesh.box(elements[0], elements[1], elements[2], 0, 1, 0, 1, 0, 1);
            }
        }
        return hexMesh;
    }

    SpectralElementMesh build(int degree) throws IOException {
        if (mesh != null) {
            HexMesh h = hexMesh();
            return SpectralElementMesh.of(h, degree, readMap);
        }
        NodeMap map = kershaw != null ? NodeMap.kershaw(kershaw)
                : deform == 0 ? NodeMap.identity() : NodeMap.sinusoidal(deform, 0, 1, 0, 1, 0, 1);
        return SpectralElementMesh.of(hexMesh(), degree, map);
    }

    String describe() {
        return mesh != null ? mesh.toString()
                : kershaw != null ? String.format("unit cube, %dx%dx%d elements, Kershaw epsilon %.3g", elements[0], elements[1], elements[2], kershaw)
                : String.format("unit cube, %dx%dx%d elements, deformation %.3g", elements[0], elements[1], elements[2], deform);
    }
}
