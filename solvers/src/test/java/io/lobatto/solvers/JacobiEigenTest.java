package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.ejml.data.Complex_F64;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.factory.DecompositionFactory_DDRM;
import org.ejml.interfaces.decomposition.EigenDecomposition_F64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;

/**
 * The cyclic Jacobi eigensolver of the fast diagonalisation ({@link JacobiEigen}) against EJML: the eigenvalues of
 * random symmetric matrices and of the FDM's 1D generalised problems S v = lambda M v (EJML's dense eigen
 * decomposition of M^-1 S) to 1e-12 relative, orthonormal eigenvectors, and the FDM tables of the Jacobi and the
 * Hipparchus solvers equal as operators V diag(1/lambda) V^T to 1e-12.
 */
class JacobiEigenTest {

    private static double[] sortedEjmlEigenvalues(DMatrixRMaj a, boolean symmetric) {
        EigenDecomposition_F64<DMatrixRMaj> eig = DecompositionFactory_DDRM.eig(a.numRows, false, symmetric);
        assertTrue(eig.decompose(a.copy()), "EJML's eigen decomposition");
        double[] out = new double[a.numRows];
        for (int i = 0; i < out.length; i++) {
            Complex_F64 v = eig.getEigenvalue(i);
            assertEquals(0, v.imaginary, 1e-9 * Math.max(1, Math.abs(v.real)), "a real eigenvalue");
            out[i] = v.real;
        }
        Arrays.sort(out);
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8, 10, 13, 18})
    void randomSymmetricMatricesAgreeWithEjml(int m) {
        Random rnd = new Random(1000 + m);
        for (int trial = 0; trial < 20; trial++) {
            double[] a = new double[m * m];
            for (int p = 0; p < m; p++) {
                for (int q = 0; q <= p; q++) {
                    double v = rnd.nextGaussian() * (trial % 2 == 0 ? 1 : Math.pow(10, rnd.nextInt(7) - 3));
                    a[p * m + q] = v;
                    a[q * m + p] = v;
                }
            }
            DMatrixRMaj am = new DMatrixRMaj(m, m, true, a);
            double[] lambda = new double[m], v = new double[m * m];
            JacobiEigen.decompose(a.clone(), m, lambda, v, new double[2 * m]);
            for (int i = 1; i < m; i++) {
                assertTrue(lambda[i - 1] >= lambda[i], "descending: " + Arrays.toString(lambda));
            }
            double norm = CommonOps_DDRM.elementMaxAbs(am);
            double[] ejml = sortedEjmlEigenvalues(am, true);
            for (int i = 0; i < m; i++) {
                assertEquals(ejml[m - 1 - i], lambda[i], 1e-12 * m * norm, "m = " + m + " trial " + trial + " eigenvalue " + i);
            }
            // A V = V diag(lambda) and V^T V = I
            for (int i = 0; i < m; i++) {
                for (int r = 0; r < m; r++) {
                    double av = 0;
                    for (int c = 0; c < m; c++) {
                        av += a[r * m + c] * v[c * m + i];
                    }
                    assertEquals(lambda[i] * v[r * m + i], av, 1e-12 * m * norm, "m = " + m + " residual of pair " + i);
                }
                for (int j = 0; j < m; j++) {
                    double vv = 0;
                    for (int r = 0; r < m; r++) {
                        vv += v[r * m + i] * v[r * m + j];
                    }
                    assertEquals(i == j ? 1 : 0, vv, 1e-13 * m, "m = " + m + " V^T V (" + i + ", " + j + ")");
                }
            }
        }
    }

    @Test
    void aDiagonalMatrixIsItsOwnDecomposition() {
        double[] a = {2, 0, 0, 0, -1, 0, 0, 0, 5};
        double[] lambda = new double[3], v = new double[9];
        JacobiEigen.decompose(a, 3, lambda, v, new double[6]);
        assertArrayEquals(new double[] {5, 2, -1}, lambda);
        assertArrayEquals(new double[] {0, 1, 0, 0, 0, 1, 1, 0, 0}, v);
    }

    @Test
    void aNonFiniteEntryIsRejected() {
        double[] a = {1, Double.NaN, Double.NaN, 1};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JacobiEigen.decompose(a, 2, new double[2], new double[4], new double[4]));
        assertTrue(e.getMessage().contains("(0, 1) = NaN"), e.getMessage());
    }

    private static boolean[] extMask(SpectralElementMesh mesh) {
        return FastDiagonalization.extendedMask(mesh.boundaryMaskAllTagged(), mesh.globalNodeCount());
    }

    /**
     * Each line of the table solves its 1D generalised problem: the eigenvalues (less the shift lambda_h / 3) are those
     * of EJML's decomposition of M^-1 S on the kept points to 1e-12 relative, and V^T M V = I, V^T S V = diag(lambda).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 3, 7, 15})
    void fdmLinesAgreeWithEjmlsGeneralisedEigenvalues(int degree) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 2, 2, 0, 1, 0, 1, 0, 1), degree, NodeMap.kershaw(0.3));
        ExtendedElements ext = ExtendedElements.faces(mesh);
        boolean[] masked = extMask(mesh);
        double shift = 0.6 / 3;
        FastDiagonalization.Table t = FastDiagonalization.table(ext, masked, 0.6);
        int n = t.points();
        boolean[] seen = new boolean[t.lines()];
        for (int q = 0; q < t.lineOf().length; q++) {
            int l = t.lineOf()[q];
            if (seen[l]) {
                continue;
            }
            seen[l] = true;
            FastDiagonalization.Line line = FastDiagonalization.line(ext, masked, q / 3, q % 3);
            int[] kept = new int[n];
            int m = 0;
            for (int i = 0; i < n; i++) {
                if (line.kept()[i]) {
                    kept[m++] = i;
                }
            }
            DMatrixRMaj minvS = new DMatrixRMaj(m, m);
            for (int p = 0; p < m; p++) {
                for (int r = 0; r < m; r++) {
                    minvS.set(p, r, line.stiffness()[kept[p]][kept[r]] / line.mass()[kept[p]]);
                }
            }
            double[] ejml = sortedEjmlEigenvalues(minvS, false);
            double[] ours = new double[m];
            for (int i = 0; i < m; i++) {
                ours[i] = t.values()[l * n + i] - shift;
            }
            Arrays.sort(ours);
            double scale = Math.abs(ejml[m - 1]);
            for (int i = 0; i < m; i++) {
                assertEquals(ejml[i], ours[i], 1e-12 * scale, "N=" + degree + " line " + l + " eigenvalue " + i);
            }
            // V^T M V = I and V^T S V = diag(lambda) on the kept points
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < m; j++) {
                    double vmv = 0, vsv = 0;
                    for (int p = 0; p < m; p++) {
                        double vpi = t.vectors()[l * n * n + kept[p] * n + i];
                        vmv += vpi * line.mass()[kept[p]] * t.vectors()[l * n * n + kept[p] * n + j];
                        for (int r = 0; r < m; r++) {
                            vsv += vpi * line.stiffness()[kept[p]][kept[r]] * t.vectors()[l * n * n + kept[r] * n + j];
                        }
                    }
                    assertEquals(i == j ? 1 : 0, vmv, 1e-12 * m, "N=" + degree + " line " + l + " V^T M V");
                    assertEquals(i == j ? t.values()[l * n + i] - shift : 0, vsv, 1e-12 * m * scale, "N=" + degree + " line " + l + " V^T S V");
                }
            }
        }
    }

    /** The Jacobi and the Hipparchus tables: the same lines, and V diag(1/lambda) V^T equal to 1e-12 relative. */
    @ParameterizedTest
    @ValueSource(ints = {2, 7})
    void jacobiAndHipparchusTablesGiveTheSameLocalSolves(int degree) {
        SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(6, 4, 2, 0, 1, 0, 1, 0, 1), degree, NodeMap.kershaw(0.3));
        ExtendedElements ext = ExtendedElements.faces(mesh);
        boolean[] masked = extMask(mesh);
        FastDiagonalization.Table j = FastDiagonalization.table(ext, masked, 0.2, FastDiagonalization.DEFAULT_LENGTH_BITS,
                FastDiagonalization.Eigensolver.JACOBI);
        FastDiagonalization.Table h = FastDiagonalization.table(ext, masked, 0.2, FastDiagonalization.DEFAULT_LENGTH_BITS,
                FastDiagonalization.Eigensolver.HIPPARCHUS);
        assertArrayEquals(h.lineOf(), j.lineOf());
        int n = j.points();
        for (int l = 0; l < j.lines(); l++) {
            double[] a = inverse(j, l), b = inverse(h, l);
            double scale = 0;
            for (double v : b) {
                scale = Math.max(scale, Math.abs(v));
            }
            for (int i = 0; i < n * n; i++) {
                assertEquals(b[i], a[i], 1e-12 * scale, "N=" + degree + " line " + l + " entry " + i);
            }
        }
    }

    /** V diag(1/lambda) V^T of line l. */
    private static double[] inverse(FastDiagonalization.Table t, int l) {
        int n = t.points();
        double[] out = new double[n * n];
        for (int p = 0; p < n; p++) {
            for (int r = 0; r < n; r++) {
                double s = 0;
                for (int i = 0; i < n; i++) {
                    s += t.vectors()[l * n * n + p * n + i] * t.vectors()[l * n * n + r * n + i] / t.values()[l * n + i];
                }
                out[p * n + r] = s;
            }
        }
        return out;
    }
}
