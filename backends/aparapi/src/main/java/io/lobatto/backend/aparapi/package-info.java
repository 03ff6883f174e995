/**
 * The Aparapi backend, registered as {@code aparapi}: the {@link io.lobatto.core.backend.Backend} SPI on an
 * OpenCL device. Its kernels are Java classes (package {@code io.lobatto.backend.aparapi.kernels}) that
 * Aparapi's code generator translates to OpenCL C; the backend builds, caches and launches them through its
 * own JOCL runtime (package {@code io.lobatto.backend.aparapi.runtime}). This package holds the backend, its
 * provider (chosen by {@link io.lobatto.core.backend.Backends#best()} on an OpenCL GPU), the device selection,
 * the per-operator launch plans, the device-side vectors and scatter operator, and a self-check against
 * plain Java loops. It never falls back silently to Java threads: a failure names the kernel, the device and
 * the OpenCL error.
 */
package io.lobatto.backend.aparapi;
