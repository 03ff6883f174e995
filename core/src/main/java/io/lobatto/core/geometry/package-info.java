/**
 * Geometric factors of a spectral-element mesh at the quadrature points of every element
 * ({@link io.lobatto.core.geometry.GeometricFactors}): the weighted Jacobian determinant wJ = w |J| and the
 * symmetric tensor G = wJ J^-1 J^-T that the mass and stiffness operators read, at the GLL nodes (BP3.5) or
 * at the GL points (BP1.0, BP3.0).
 */
package io.lobatto.core.geometry;
