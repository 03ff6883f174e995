package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceIntVector;
import io.lobatto.core.backend.DeviceVector;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Schwarz local solves of {@link io.lobatto.backend.aparapi.kernels.FdmLinesKernel} (a work-item per line) against
 * {@link io.lobatto.backend.aparapi.kernels.FdmElementKernel} (a work-item per point) bit for bit, in all three modes
 * (the block, the block times weights, the inner points times weights), and against a plain Java evaluation of
 * y = W (V_t (x) V_s (x) V_r) D^-1 (V_t (x) V_s (x) V_r)^T x to 1e-13: random tables of distinct lines, eigenvalues of
 * both signs (so that some D_ijk &lt;= 0 give 0), ids with -1 entries, and an element count that is not a multiple of
 * the elements per group. N = 1..11 covers one to sixteen elements per group and odd and even n.
 */
@ExtendWith(io.lobatto.backend.aparapi.conformance.SkipWithoutOpenCl.class)
class FdmLinesKernelTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8, 11})
    void linesEqualPointsBitForBit(int degree) {
        AparapiBackend be = OpenClAvailability.backend();
        int n = degree + 3;
        int n2 = n * n;
        int n3 = n2 * n;
        int m = n - 2;
        int m3 = m * m * m;
        int epg = KernelBuilds.fdmLinesElements(n, 48 * 1024);
        assertTrue(epg >= 1, "n = " + n);
        int elements = 2 * epg + 1;
        int lines = 5;
        int globals = 3 * elements * n2;
        Random rnd = new Random(degree * 7919L);
        double[] vm = new double[lines * n2];
        for (int i = 0; i < vm.length; i++) {
            vm[i] = 2 * rnd.nextDouble() - 1;
        }
        double[] lm = new double[lines * n];
        for (int i = 0; i < lm.length; i++) {
            lm[i] = 3 * rnd.nextDouble() - 0.4;
        }
        int[] lineOf = new int[3 * elements];
        for (int i = 0; i < lineOf.length; i++) {
            lineOf[i] = rnd.nextInt(lines);
        }
        int[] ids = new int[elements * n3];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = rnd.nextInt(10) == 0 ? -1 : rnd.nextInt(globals);
        }
        double[] x = new double[globals];
        for (int i = 0; i < x.length; i++) {
            x[i] = 2 * rnd.nextDouble() - 1;
        }
        double[] wFull = new double[elements * n3];
        for (int i = 0; i < wFull.length; i++) {
            wFull[i] = rnd.nextDouble();
        }
        double[] wInner = new double[elements * m3];
        for (int i = 0; i < wInner.length; i++) {
            wInner[i] = rnd.nextDouble();
        }
        double[] block = reference(n, elements, vm, lm, lineOf, ids, x);
        try (DeviceFdm fdm = be.uploadFdm(n, elements, vm, lm, lineOf); DeviceVector dx = be.upload(x);
             DeviceIntVector di = be.upload(ids); DeviceVector dwf = be.upload(wFull); DeviceVector dwi = be.upload(wInner);
             DeviceVector full = be.allocate(elements * n3); DeviceVector inner = be.allocate(elements * m3)) {
            ClFdm f = (ClFdm) fdm;
            for (int mode = 0; mode <= 2; mode++) {
                DeviceVector out = mode == 2 ? inner : full;
                DeviceVector w = mode == 2 ? dwi : dwf;
                double[][] got = new double[2][];
                for (int lines01 = 0; lines01 < 2; lines01++) {
                    be.fill(out, 7);
                    long before = launches(be, lines01 == 1, n);
                    be.schwarzLocal(f, mode, (ClVector) dx, (ClVector) di, (ClVector) w, (ClVector) out, lines01 == 1);
                    assertEquals(before + 1, launches(be, lines01 == 1, n), "N=" + degree + ": the kernel asked for ran");
                    got[lines01] = be.download(out);
                }
                assertArrayEquals(got[0], got[1], 0.0, "N=" + degree + " mode " + mode + ": lines against points");
                double scale = 0;
                for (double v : block) {
                    scale = Math.max(scale, Math.abs(v));
                }
                assertTrue(scale > 0);
                for (int e = 0; e < elements; e++) {
                    for (int p = 0; p < n3; p++) {
                        int i = p % n;
                        int j = (p / n) % n;
                        int k = p / n2;
                        double want = block[e * n3 + p];
                        if (mode == 2) {
                            if (i == 0 || j == 0 || k == 0 || i == n - 1 || j == n - 1 || k == n - 1) {
                                continue;
                            }
                            int q = e * m3 + (i - 1) + m * ((j - 1) + m * (k - 1));
                            assertEquals(want * wInner[q], got[1][q], 1e-13 * scale, "N=" + degree + " mode 2, e " + e + " point " + p);
                        } else {
                            double wv = mode == 1 ? wFull[e * n3 + p] : 1;
                            assertEquals(want * wv, got[1][e * n3 + p], 1e-13 * scale, "N=" + degree + " mode " + mode + ", e " + e + " point " + p);
                        }
                    }
                }
            }
        }
    }

    private static long launches(AparapiBackend be, boolean lines, int n) {
        var k = be.builtKernels().get((lines ? "schwarz-local (lines) n=" : "schwarz-local n=") + n);
        return k == null ? 0 : k.launches();
    }

    /** y_e = (V_t (x) V_s (x) V_r) D^-1 (V_t (x) V_s (x) V_r)^T (x through ids), as the formula reads, per element. */
    private static double[] reference(int n, int elements, double[] vm, double[] lm, int[] lineOf, int[] ids, double[] x) {
        int n2 = n * n;
        int n3 = n2 * n;
        double[] y = new double[elements * n3];
        for (int e = 0; e < elements; e++) {
            double[][] v = new double[3][];
            double[][] l = new double[3][];
            for (int d = 0; d < 3; d++) {
                v[d] = java.util.Arrays.copyOfRange(vm, lineOf[3 * e + d] * n2, lineOf[3 * e + d] * n2 + n2);
                l[d] = java.util.Arrays.copyOfRange(lm, lineOf[3 * e + d] * n, lineOf[3 * e + d] * n + n);
            }
            double[] u = new double[n3];
            for (int p = 0; p < n3; p++) {
                int id = ids[e * n3 + p];
                u[p] = id >= 0 ? x[id] : 0;
            }
            double[] hat = new double[n3];
            for (int c = 0; c < n; c++) {
                for (int b = 0; b < n; b++) {
                    for (int a = 0; a < n; a++) {
                        double s = 0;
                        for (int k = 0; k < n; k++) {
                            for (int j = 0; j < n; j++) {
                                for (int i = 0; i < n; i++) {
                                    s += v[0][i * n + a] * v[1][j * n + b] * v[2][k * n + c] * u[i + n * (j + n * k)];
                                }
                            }
                        }
                        double d = l[0][a] + l[1][b] + l[2][c];
                        hat[a + n * (b + n * c)] = d > 0 ? s / d : 0;
                    }
                }
            }
            for (int k = 0; k < n; k++) {
                for (int j = 0; j < n; j++) {
                    for (int i = 0; i < n; i++) {
                        double s = 0;
                        for (int c = 0; c < n; c++) {
                            for (int b = 0; b < n; b++) {
                                for (int a = 0; a < n; a++) {
                                    s += v[0][i * n + a] * v[1][j * n + b] * v[2][k * n + c] * hat[a + n * (b + n * c)];
                                }
                            }
                        }
                        y[e * n3 + i + n * (j + n * k)] = s;
                    }
                }
            }
        }
        return y;
    }
}
