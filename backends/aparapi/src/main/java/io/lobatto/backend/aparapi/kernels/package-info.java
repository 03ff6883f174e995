/**
 * The kernels of the Aparapi backend, written as Java classes that Aparapi translates to OpenCL C: the
 * streaming kernels (fill, copy, axpby, pointwise product; BS1-BS2), the reductions (norm, dot, the fused CG
 * update; BS3-BS5: {@link io.lobatto.backend.aparapi.kernels.DotKernel},
 * {@link io.lobatto.backend.aparapi.kernels.CgUpdateKernel} and CG's whole vector step with p = r + beta p folded in,
 * {@link io.lobatto.backend.aparapi.kernels.CgStepKernel}, with only their own arguments, ending in
 * {@link io.lobatto.backend.aparapi.kernels.GroupSumKernel}'s tree; the general
 * {@link io.lobatto.backend.aparapi.kernels.ReductionKernel} for the other reductions), the gather and scatter of Z
 * (BS6-BS7) and the element kernels BP1.0, BP3.5 and BP3.0 (sum-factorised, optionally fused with the scatter as in hipBone's assembled operator), and the element kernels
 * of user operators y^e = B^T f(B x^e), into which the backend splices the user's translated function:
 * the general {@link io.lobatto.backend.aparapi.kernels.PointwiseKernel}, and for functions of values only
 * {@link io.lobatto.backend.aparapi.kernels.PointwiseLineKernel} (Gauss points, BP1.0's lines) and
 * {@link io.lobatto.backend.aparapi.kernels.PointwiseMapKernel} (GLL points, a map), for one-component functions of
 * gradients at high N {@link io.lobatto.backend.aparapi.kernels.PointwiseColumnKernel} (BP3.5/BP3.0's columns).
 * Fields marked
 * {@link io.lobatto.backend.aparapi.runtime.BuildConstant} (the degree N, the variant, the work-group shape)
 * become compile-time constants of each build.
 */
package io.lobatto.backend.aparapi.kernels;
