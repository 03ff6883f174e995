package io.lobatto.backend.aparapi;

/**
 * A device object of this backend, made by one of its areas ({@link ElementOperators}, {@link UserOperators},
 * {@link SetupKernels}, {@link GatherScatter}, {@link Multigrid}, {@link Schwarz}): the area that made it, and whether it
 * was closed. {@link BackendCore#own} checks a handle that the SPI is given back.
 */
interface ClHandle {

    /** The area of the backend that made this handle. */
    Object owner();

    /** Whether the handle was closed. */
    boolean isClosed();
}
