/**
 * The backend SPI: {@link io.lobatto.core.backend.Backend} holds the kernels of the CEED benchmark papers
 * (device memory, the streaming kernels BS1-BS5, the gather/scatter kernels BS6-BS7 and the element kernels
 * BP1.0, BP3.5 and BP3.0, including hipBone's fused assembled operator) on vectors that live in the backend's
 * memory ({@link io.lobatto.core.backend.DeviceVector}); every other layer of Lobatto talks to a device only
 * through it. {@link io.lobatto.core.backend.Backends} finds the implementations on the class path through
 * {@link io.lobatto.core.backend.BackendProvider} and {@link java.util.ServiceLoader} and picks one
 * ({@code lobatto-backend-cpu} is the Java reference, {@code lobatto-backend-aparapi} the OpenCL one).
 */
package io.lobatto.core.backend;
