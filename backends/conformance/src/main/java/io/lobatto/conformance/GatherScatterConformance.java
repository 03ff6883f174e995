package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import org.junit.jupiter.api.Test;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * Conformance of the gather/scatter kernels BS6 (x_G = Z^T x_L) and BS7 (x_L = Z x_G, -1 masked)
 * against the host {@link ScatterOperator}, and their adjointness on the device.
 */
public abstract class GatherScatterConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    static DeviceScatter upload(Backend be, ScatterOperator z) {
        return be.uploadScatter(z.scatterIds(), z.gatherStarts(), z.gatherIds(), z.blockStarts(), z.inverseDegree(),
                z.globalSize());
    }

    @Test
    void scatterAndGatherMatchHost() {
        qt().withExamples(12).forAll(integers().between(1, 3).zip(integers().between(1, 3), Grid::new), integers().between(1, 7),
                integers().between(0, 2), longs().all()).checkAssert((grid, degree, maskKind, seed) -> {
            int nx = grid.nx(), ny = grid.ny();
            Backend be = backend();
            SpectralElementMesh mesh = TestProblems.deformedBox(nx, ny, 2, degree);
            ScatterOperator z = switch (maskKind) {
                case 0 -> TestProblems.unmasked(mesh);
                case 1 -> TestProblems.partlyMasked(mesh);
                default -> TestProblems.dirichlet(mesh);
            };
            double[] xg = random(z.globalSize(), seed);
            double[] xl = random(z.localSize(), seed + 1);
            double[] hostL = new double[z.localSize()];
            double[] hostG = new double[z.globalSize()];
            z.scatter(xg, hostL);
            z.gather(xl, hostG);
            try (DeviceScatter dz = upload(be, z); DeviceVector dxg = be.upload(xg); DeviceVector dxl = be.upload(xl);
                 DeviceVector yl = be.allocate(z.localSize()); DeviceVector yg = be.allocate(z.globalSize())) {
                be.scatter(dz, dxg, yl);
                assertArrayEquals(hostL, be.download(yl), 0.0, "scatter");
                be.gather(dz, dxl, yg);
                assertArrayEquals(hostG, be.download(yg), 1e-14 * 8, "gather");
                // adjoint on the device: x_L . Z x_G = Z^T x_L . x_G
                double lhs = be.dot(dxl, yl);
                double rhs = be.dot(yg, dxg);
                assertEquals(lhs, rhs, 1e-12 * Math.max(1, Math.abs(lhs)));
            }
        });
    }

    @Test
    void gatherOfScatteredOnesIsTheMultiplicity() {
        qt().withExamples(48).forAll(integers().between(1, 6)).checkAssert(degree -> {
            Backend be = backend();
            SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, degree);
            ScatterOperator z = TestProblems.partlyMasked(mesh);
            double[] ones = new double[z.globalSize()];
            java.util.Arrays.fill(ones, 1);
            int[] deg = z.degree();
            try (DeviceScatter dz = upload(be, z); DeviceVector o = be.upload(ones); DeviceVector l = be.allocate(z.localSize());
                 DeviceVector g = be.allocate(z.globalSize())) {
                be.scatter(dz, o, l);
                be.gather(dz, l, g);
                double[] got = be.download(g);
                for (int i = 0; i < deg.length; i++) {
                    assertEquals(deg[i], got[i], 0.0, "multiplicity of assembled node " + i);
                }
            }
        });
    }

    /** Elements in x and y of one case (one generator: QuickTheories takes at most four). */
    private record Grid(int nx, int ny) {
    }
}
