/**
 * The Java CPU backend, registered as {@code cpu}: the reference implementation of the
 * {@link io.lobatto.core.backend.Backend} SPI and the default when no OpenCL GPU is present. Device vectors
 * are host arrays; every operation runs synchronously on a fixed pool of daemon worker threads with a fixed
 * summation order, and the element operators are applied by sum factorisation: up to N = 8 on blocks of
 * interleaved elements with contractions generated per N (which the JIT vectorises), and the assembled
 * operator fused over coloured slabs of blocks. It loads no native code.
 */
package io.lobatto.backend.cpu;
