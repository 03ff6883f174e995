/**
 * The Aparapi backend, registered as {@code aparapi}: the {@link io.lobatto.core.backend.Backend} SPI on an
 * OpenCL device. Its kernels are Java classes (package {@code io.lobatto.backend.aparapi.kernels}) that
 * Aparapi's code generator translates to OpenCL C; the backend builds, caches and launches them through its
 * own JOCL runtime (package {@code io.lobatto.backend.aparapi.runtime}). This package holds the backend, its
 * provider (chosen by {@link io.lobatto.core.backend.Backends#best()} on an OpenCL GPU), the device selection,
 * the per-operator launch plans, the device-side vectors and scatter operator, and a self-check against
 * plain Java loops. User operators: {@link io.lobatto.backend.aparapi.PointwiseTranslator} checks a
 * {@link io.lobatto.core.pointwise.PointwiseFunction}'s bytecode against the translatable subset and has Aparapi
 * translate it, and {@link io.lobatto.backend.aparapi.kernels.PointwiseKernel} calls it at every quadrature point;
 * {@link io.lobatto.backend.aparapi.KernelBuilds#pointwiseKernels} shows the OpenCL C it builds. It never falls back silently to Java threads: a failure names the kernel, the device and
 * the OpenCL error.
 */
package io.lobatto.backend.aparapi;
