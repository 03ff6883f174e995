package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reductions less some rows (a distributed rank's rows that a neighbour owns): x . y, BS5's r . r and the Jacobi
 * PCG update's r . r and r . z against host sums over the kept rows, with rows that are one range (left out in the
 * reduction's own pass: one launch) and rows that are not (a second launch over them).
 */
class ExcludedRowsTest {

    private static final int N = 70_001;

    private static int[] rows(boolean contiguous) {
        int[] r = new int[2_000];
        for (int i = 0; i < r.length; i++) {
            r[i] = contiguous ? N - r.length + i : 7 + 31 * i;
        }
        return r;
    }

    private static double[] values(int seed) {
        double[] v = new double[N];
        java.util.Random rnd = new java.util.Random(seed);
        for (int i = 0; i < N; i++) {
            v[i] = rnd.nextDouble() - 0.5;
        }
        return v;
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void reductionsLessRowsMatchTheHostSumsOverTheKeptRows(boolean contiguous) {
        AparapiBackend b = AparapiBackendTest.b();
        int[] ex = rows(contiguous);
        boolean[] skip = new boolean[N];
        for (int i : ex) {
            skip[i] = true;
        }
        double[] p = values(1), ap = values(2), x = values(3), r = values(4), d = values(5);
        for (int i = 0; i < N; i++) {
            d[i] = 1 + Math.abs(d[i]);
        }
        double alpha = 0.37;
        double xy = 0, rr = 0, rz = 0;
        for (int i = 0; i < N; i++) {
            double ri = r[i] - alpha * ap[i];
            if (!skip[i]) {
                xy += x[i] * p[i];
                rr += ri * ri;
                rz += ri * d[i] * ri;
            }
        }
        try (DeviceIntVector rowsV = b.upload(ex); DeviceVector dp = b.upload(p); DeviceVector dap = b.upload(ap);
             DeviceVector dx = b.upload(x); DeviceVector dr = b.upload(r); DeviceVector dd = b.upload(d);
             DeviceVector dz = b.allocate(N)) {
            long before = b.launches();
            assertEquals(xy, b.dot(dx, dp, rowsV), 1e-12 * N);
            assertEquals(contiguous ? 1 : 2, b.launches() - before, "launches of a dot less rows");
            double[] dots = new double[2];
            before = b.launches();
            b.pcgUpdate(alpha, dp, dap, dx, dr, dd, dz, rowsV, dots);
            assertEquals(contiguous ? 1 : 2, b.launches() - before, "launches of a PCG update less rows");
            assertEquals(rr, dots[0], 1e-12 * N);
            assertEquals(rz, dots[1], 1e-12 * N);
            double[] z = b.download(dz);
            for (int i = 0; i < N; i += 997) {
                assertEquals(d[i] * (r[i] - alpha * ap[i]), z[i], 1e-15, "z at " + i + " (excluded rows are updated too)");
            }
            b.write(r, dr);
            b.write(x, dx);
            assertEquals(rr, b.cgUpdate(alpha, dp, dap, dx, dr, rowsV), 1e-12 * N);
        }
    }
}
