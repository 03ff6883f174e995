/**
 * Output of meshes and fields: {@link io.lobatto.core.io.VtuWriter}, VTK XML unstructured grids with high-order
 * Lagrange hexahedra for ParaView. (Gmsh input is {@link io.lobatto.core.mesh.GmshReader}.)
 */
package io.lobatto.core.io;
