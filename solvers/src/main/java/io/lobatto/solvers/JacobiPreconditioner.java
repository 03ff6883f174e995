package io.lobatto.solvers;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.operators.AssembledOperator;

/**
 * Jacobi (diagonal) preconditioning, z = diag(A)^-1 r, with diag(A) computed matrix-free from the
 * element operator ({@link AssembledOperator#inverseDiagonal(String)}) and kept on the device.
 */
public final class JacobiPreconditioner implements Preconditioner {

    private final Backend backend;
    private final DeviceVector inverseDiagonal;

    private JacobiPreconditioner(Backend backend, double[] diagonal) {
        double[] inv = new double[diagonal.length];
        for (int i = 0; i < diagonal.length; i++) {
            if (!(diagonal[i] > 0) || !Double.isFinite(diagonal[i])) {
                throw new IllegalArgumentException("Jacobi needs a positive diagonal, but diag(A)[" + i + "] = " + diagonal[i]);
            }
            inv[i] = 1 / diagonal[i];
        }
        this.backend = backend;
        this.inverseDiagonal = backend.upload(inv);
    }

    private JacobiPreconditioner(Backend backend, DeviceVector inverseDiagonal) {
        this.backend = backend;
        this.inverseDiagonal = inverseDiagonal;
    }

    /** Jacobi preconditioner of an assembled operator (its diagonal computed on the device where the backend can). */
    public static JacobiPreconditioner of(AssembledOperator operator) {
        return new JacobiPreconditioner(operator.backend(), operator.inverseDiagonal("Jacobi"));
    }

    /** Jacobi preconditioner from an explicitly given positive diagonal. */
    public static JacobiPreconditioner ofDiagonal(Backend backend, double[] diagonal) {
        return new JacobiPreconditioner(backend, diagonal);
    }

    /**
     * The device vector diag(A)^-1 (owned by this preconditioner; do not close or modify it).
     * {@link ConjugateGradient} passes it to the fused {@link Backend#pcgUpdate}.
     */
    public DeviceVector inverseDiagonal() {
        return inverseDiagonal;
    }

    /** The backend the inverse diagonal lives on. */
    Backend backend() {
        return backend;
    }

    @Override
    public void apply(DeviceVector r, DeviceVector z) {
        backend.pointwiseMultiply(inverseDiagonal, r, z);
    }

    @Override
    public void close() {
        inverseDiagonal.close();
    }
}
