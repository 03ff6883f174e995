package io.lobatto.core.backend;

/**
 * A {@link DeviceHalo} kept on the host, for backends without a halo kernel ({@link Backend#uploadHalo}'s default):
 * the validated arrays and the host arithmetic of {@link Backend#sumHalo}, which every backend must match bitwise.
 */
public final class HostHalo implements DeviceHalo {

    private final int[] rows;
    private final int[] starts;
    private final int[] sources;
    private final int receivedSize;
    private final int globalSize;
    private boolean closed;

    /**
     * Checks and copies the arrays of {@link Backend#uploadHalo}.
     *
     * @throws IllegalArgumentException naming the first array entry that is out of range
     */
    public HostHalo(int[] rows, int[] starts, int[] sources, int receivedSize, int globalSize) {
        validate(rows, starts, sources, receivedSize, globalSize);
        this.rows = rows.clone();
        this.starts = starts.clone();
        this.sources = sources.clone();
        this.receivedSize = receivedSize;
        this.globalSize = globalSize;
    }

    /** The checks every backend's {@link Backend#uploadHalo} makes. */
    public static void validate(int[] rows, int[] starts, int[] sources, int receivedSize, int globalSize) {
        if (rows == null || starts == null || sources == null) {
            throw new IllegalArgumentException("uploadHalo: rows, starts and sources must not be null");
        }
        if (receivedSize < 0 || globalSize < 0) {
            throw new IllegalArgumentException("uploadHalo: receivedSize " + receivedSize + " and globalSize " + globalSize
                    + " must be >= 0");
        }
        if (starts.length != rows.length + 1 || starts[0] != 0 || starts[rows.length] != sources.length) {
            throw new IllegalArgumentException("uploadHalo: starts must have length rows.length + 1 = " + (rows.length + 1)
                    + ", start at 0 and end at sources.length = " + sources.length);
        }
        boolean[] seen = new boolean[globalSize];
        for (int u = 0; u < rows.length; u++) {
            if (rows[u] < 0 || rows[u] >= globalSize) {
                throw new IllegalArgumentException("uploadHalo: rows[" + u + "] = " + rows[u] + " not in [0, " + globalSize + ")");
            }
            if (seen[rows[u]]) {
                throw new IllegalArgumentException("uploadHalo: row " + rows[u] + " appears twice (rows must be distinct)");
            }
            seen[rows[u]] = true;
            if (starts[u + 1] < starts[u]) {
                throw new IllegalArgumentException("uploadHalo: starts not ascending at row " + u);
            }
        }
        for (int k = 0; k < sources.length; k++) {
            if (sources[k] < -1 || sources[k] >= receivedSize) {
                throw new IllegalArgumentException("uploadHalo: sources[" + k + "] = " + sources[k] + " not in [-1, "
                        + receivedSize + ")");
            }
        }
    }

    /** The halo sum on host arrays: the arithmetic of {@link Backend#sumHalo}. */
    public void sum(double[] received, double[] yG) {
        for (int u = 0; u < rows.length; u++) {
            int row = rows[u];
            double own = yG[row];
            double s = 0;
            for (int k = starts[u]; k < starts[u + 1]; k++) {
                int j = sources[k];
                s += j < 0 ? own : received[j];
            }
            yG[row] = s;
        }
    }

    @Override
    public int rows() {
        return rows.length;
    }

    @Override
    public int receivedSize() {
        return receivedSize;
    }

    @Override
    public int globalSize() {
        return globalSize;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
