/**
 * Unstructured conforming hexahedral meshes and their spectral-element numbering:
 * {@link io.lobatto.core.mesh.HexMesh} (8-node hexahedra with boundary tags per face, boxes built in code or
 * read from Gmsh files by {@link io.lobatto.core.mesh.GmshReader}), the reference hexahedron's topology
 * ({@link io.lobatto.core.mesh.HexReference}), and {@link io.lobatto.core.mesh.SpectralElementMesh}: the GLL
 * nodes of degree N on every element, their positions (optionally moved by a smooth
 * {@link io.lobatto.core.mesh.NodeMap}) and the continuous global numbering behind the scatter operator Z.
 */
package io.lobatto.core.mesh;
