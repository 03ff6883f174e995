/**
 * User operators: the pointwise physics at quadrature points ({@link io.lobatto.core.pointwise.PointwiseFunction},
 * libCEED's QFunction written in Java), its setup ({@link io.lobatto.core.pointwise.PointwiseSetup}) and the
 * quadrature it integrates with. Backends fuse the function into their sum-factorised element kernels.
 */
package io.lobatto.core.pointwise;
