package io.lobatto.core.backend;

/**
 * A backend could not do what it was asked: no device, an OpenCL build or launch error, a silent
 * fallback detected, out of device memory. The message names the backend, the kernel and the device.
 */
public class BackendException extends RuntimeException {

    public BackendException(String message) {
        super(message);
    }

    public BackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
