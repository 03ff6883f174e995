/**
 * The OpenCL runtime of the Aparapi backend, on JOCL ("Aparapi compiles, Lobatto runs"): Aparapi only
 * generates the OpenCL C of a kernel class ({@link io.lobatto.backend.aparapi.runtime.KernelSource}, with
 * {@link io.lobatto.backend.aparapi.runtime.BuildConstant} fields fixed per build); this package owns the
 * context and in-order queue on one device ({@link io.lobatto.backend.aparapi.runtime.ClContext}), the device
 * buffers, the built programs (cached in memory and on disk as program binaries,
 * {@link io.lobatto.backend.aparapi.runtime.ProgramCache}) and the kernel launches with their arguments.
 */
package io.lobatto.backend.aparapi.runtime;
