/**
 * The scatter operator Z between assembled (global, Dirichlet nodes excluded) and element-local vectors,
 * with the CSR-plus-blockStarts layout of Z^T used by the BS6 gather kernel and the scatterIds array of
 * the BS7 scatter kernel (streaming paper, section 5; hipBone, "DOF storage").
 */
package io.lobatto.gs;
