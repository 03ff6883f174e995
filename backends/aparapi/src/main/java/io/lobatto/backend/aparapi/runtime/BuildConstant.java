package io.lobatto.backend.aparapi.runtime;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@code int} field of a kernel class as a compile-time constant of each build: the
 * {@link KernelSource} replaces every read of it by a macro whose value the backend fixes per build
 * (the degree N, a variant of the kernel family, a work-group shape), so the OpenCL compiler sees
 * constant loop bounds, unrolls the element loops and drops the branches of other variants.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface BuildConstant {
}
