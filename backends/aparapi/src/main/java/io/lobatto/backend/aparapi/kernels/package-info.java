/**
 * The kernels of the Aparapi backend, written as Java classes that Aparapi translates to OpenCL C: the
 * streaming kernels (fill, copy, axpby, pointwise product; BS1-BS2), the reductions (norm, dot, the fused CG
 * update; BS3-BS5), the gather and scatter of Z (BS6-BS7) and the element kernels BP1.0, BP3.5 and BP3.0
 * (sum-factorised, optionally fused with the scatter as in hipBone's assembled operator). Fields marked
 * {@link io.lobatto.backend.aparapi.runtime.BuildConstant} (the degree N, the variant, the work-group shape)
 * become compile-time constants of each build.
 */
package io.lobatto.backend.aparapi.kernels;
