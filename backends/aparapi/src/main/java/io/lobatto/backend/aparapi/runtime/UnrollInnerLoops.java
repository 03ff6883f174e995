package io.lobatto.backend.aparapi.runtime;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a kernel class whose counted loops without a barrier ({@code for (int m = 0; m < P; m++)} with P a
 * build constant) must be unrolled: {@link KernelSource} puts {@code #pragma unroll} before each, so the
 * {@code @PrivateMemorySpace} arrays they index stay in registers whatever the compiler's own unrolling
 * threshold (clang for nvptx kept them in stack memory at some N without it). Loops that hold a barrier
 * (the layer loops) are left rolled.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
public @interface UnrollInnerLoops {
}
