package io.lobatto.conformance;

import static io.lobatto.conformance.TestProblems.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceHalo;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.backend.HostHalo;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.ElementOperator;

/**
 * Conformance of the kernels a distributed operator overlaps its exchange with: the fused operator's element half
 * on element ranges ({@link Backend#applyAssembledElements}) followed by {@link Backend#gatherDot} gives bitwise the
 * same y_G for every split point, leaves the other elements' y_L alone and agrees with {@link Backend#applyAssembledDot}
 * to round-off; {@link Backend#sumHalo} is bitwise {@link HostHalo#sum}.
 */
public abstract class DistributedKernelsConformance {

    /** The backend under test (shared; do not close). */
    protected abstract Backend backend();

    static Stream<Arguments> kernelsDegreesMasks() {
        Function<SpectralElementMesh, ScatterOperator> dirichlet = TestProblems::dirichlet;
        Function<SpectralElementMesh, ScatterOperator> none = TestProblems::unmasked;
        return Stream.of(ElementKernel.values()).flatMap(k -> IntStream.of(1, 3, 7).boxed()
                .flatMap(n -> Stream.of(Arguments.of(k, n, "dirichlet", dirichlet), Arguments.of(k, n, "none", none))));
    }

    @ParameterizedTest(name = "{0} N={1} mask={2}")
    @MethodSource("kernelsDegreesMasks")
    void elementRangesThenGatherDotAreSplitInvariantAndMatchTheFusedOperator(ElementKernel kernel, int degree, String mask,
                                                                           Function<SpectralElementMesh, ScatterOperator> build) {
        Backend be = backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 3, degree);
        ScatterOperator z = build.apply(mesh);
        ElementOperator op = ElementOperator.of(kernel, mesh, 0.7);
        int e = mesh.elementCount();
        int np = mesh.basis().np();
        double[] x = random(z.globalSize(), 31L * degree + kernel.ordinal());
        double sentinel = 12345.0;
        double[] reference = null;
        double referenceDot = 0;
        try (AssembledOperator a = AssembledOperator.bind(op, z, be); DeviceVector dx = be.upload(x);
             DeviceVector yL = be.allocate(z.localSize()); DeviceVector y = be.allocate(z.globalSize());
             DeviceVector yF = be.allocate(z.globalSize())) {
            double fusedDot = a.applyDot(dx, yF);
            double[] fused = be.download(yF);
            for (int split : new int[] {0, 1, e / 2, e - 1, e}) {
                double[] fill = new double[z.localSize()];
                Arrays.fill(fill, sentinel);
                be.write(fill, yL);
                be.applyAssembledElements(a.boundElementOperator().data(), a.deviceScatter(), 0.7, 0, dx, yL, 0, split);
                double[] part = be.download(yL);
                for (int i = split * np; i < part.length; i++) {
                    assertEquals(sentinel, part[i], 0.0, "split " + split + ": y_L[" + i + "] of an element outside the range changed");
                }
                be.applyAssembledElements(a.boundElementOperator().data(), a.deviceScatter(), 0.7, 0, dx, yL, split, e);
                double dot = be.gatherDot(a.deviceScatter(), yL, dx, y);
                double[] h = be.download(y);
                if (reference == null) {
                    reference = h;
                    referenceDot = dot;
                } else {
                    assertArrayEquals(reference, h, 0.0, kernel + " N=" + degree + ": y_G depends on the split point " + split);
                    assertEquals(referenceDot, dot, 0.0, "x . y depends on the split point " + split);
                }
            }
            double scale = Arrays.stream(fused).map(Math::abs).max().orElse(1) + 1e-300;
            for (int i = 0; i < fused.length; i++) {
                assertEquals(fused[i], reference[i], 1e-13 * scale, "y_G[" + i + "] split vs fused");
            }
            assertEquals(fusedDot, referenceDot, 1e-12 * Math.abs(fusedDot) + 1e-300, "x . y split vs fused");
            assertEquals(be.dot(dx, y), referenceDot, 1e-12 * Math.abs(referenceDot) + 1e-300, "gatherDot vs dot");
            assertThrows(IllegalArgumentException.class, () -> be.applyAssembledElements(a.boundElementOperator().data(),
                    a.deviceScatter(), 0.7, 0, dx, yL, 2, 1));
            assertThrows(IllegalArgumentException.class, () -> be.applyAssembledElements(a.boundElementOperator().data(),
                    a.deviceScatter(), 0.7, 0, dx, yL, 0, e + 1));
        }
    }

    @Test
    void sumHaloIsBitwiseTheHostSumInSourceOrder() {
        Backend be = backend();
        int n = 1000, received = 300;
        // rows 0, 7, 14, ... with 1 to 4 sources each: own (-1) somewhere among received values
        int rows = 120;
        int[] rowIds = new int[rows];
        int[] starts = new int[rows + 1];
        int[] sources = new int[4 * rows];
        int k = 0;
        for (int u = 0; u < rows; u++) {
            rowIds[u] = 7 * u + (u % 3);
            int count = 1 + u % 4;
            int own = u % count;
            for (int c = 0; c < count; c++) {
                sources[k++] = c == own ? -1 : (u * 5 + c * 11) % received;
            }
            starts[u + 1] = k;
        }
        sources = Arrays.copyOf(sources, k);
        double[] y = random(n, 5);
        double[] r = random(received, 6);
        for (int i = 0; i < r.length; i++) {
            r[i] *= Math.pow(10, i % 7 - 3); // mixed magnitudes: the order of summation shows in the last bits
        }
        HostHalo host = new HostHalo(rowIds, starts, sources, received, n);
        double[] expected = y.clone();
        host.sum(r, expected);
        try (DeviceHalo h = be.uploadHalo(rowIds, starts, sources, received, n); DeviceVector dy = be.upload(y);
             DeviceVector dr = be.upload(r)) {
            assertEquals(rows, h.rows());
            be.sumHalo(h, dr, dy);
            assertArrayEquals(expected, be.download(dy), 0.0);
        }
        assertThrows(IllegalArgumentException.class, () -> be.uploadHalo(new int[] {3, 3}, new int[] {0, 1, 2},
                new int[] {-1, -1}, 0, 10), "a row listed twice");
        assertThrows(IllegalArgumentException.class, () -> be.uploadHalo(new int[] {3}, new int[] {0, 1},
                new int[] {5}, 5, 10), "a source out of range");
    }
}
