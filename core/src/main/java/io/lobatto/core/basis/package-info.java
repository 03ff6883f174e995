/**
 * The one-dimensional ingredients of a tensor-product spectral element of degree N: Gauss-Lobatto-Legendre
 * (GLL) and Gauss-Legendre (GL) nodes and weights, the GLL differentiation matrix D, the interpolation I from
 * the GLL nodes to the GL points and the differentiation matrix on the GL points
 * ({@link io.lobatto.core.basis.Basis1D}), and 1D quadrature rules
 * ({@link io.lobatto.core.basis.QuadratureRule}). The 3D operators are built from these by sum factorisation.
 */
package io.lobatto.core.basis;
