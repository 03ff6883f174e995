/**
 * The Java CPU backend, registered as {@code cpu}: the reference implementation of the
 * {@link io.lobatto.core.backend.Backend} SPI and the default when no OpenCL GPU is present. Device vectors
 * are host arrays; every operation runs synchronously on a fixed pool of daemon worker threads with a fixed
 * summation order, and the element operators are applied by sum factorisation. It loads no native code.
 */
package io.lobatto.backend.cpu;
