package io.lobatto.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

/** Bad input throws with a message that says what is wrong; provider and device info. */
class ValidationTest {

    private CpuBackend b;

    @BeforeEach
    void open() {
        b = new CpuBackend(2);
    }

    @AfterEach
    void close() {
        b.close();
    }

    private static <T extends Throwable> void assertMessage(Class<T> type, Executable call, String... parts) {
        T t = assertThrows(type, call);
        for (String p : parts) {
            assertTrue(t.getMessage().contains(p), "message '" + t.getMessage() + "' lacks '" + p + "'");
        }
    }

    @Test
    void lengthMismatchNamesArgumentAndBothLengths() {
        DeviceVector x = b.allocate(5);
        DeviceVector y = b.allocate(7);
        assertMessage(IllegalArgumentException.class, () -> b.copy(x, y), "y", "7", "x", "5");
        assertMessage(IllegalArgumentException.class, () -> b.axpby(1, x, 1, y), "y", "7", "5");
        assertMessage(IllegalArgumentException.class, () -> b.dot(x, y), "y", "7", "5");
        assertMessage(IllegalArgumentException.class, () -> b.pointwiseMultiply(x, x, y), "y", "7", "5");
        assertMessage(IllegalArgumentException.class, () -> b.cgUpdate(1, x, x, b.allocate(5), y), "r", "7", "5");
        assertMessage(IllegalArgumentException.class, () -> b.write(new double[3], x), "values", "3", "5");
        assertMessage(IllegalArgumentException.class, () -> b.read(x, new double[4]), "values", "4", "5");
    }

    @Test
    void closedVectorsAreRejected() {
        DeviceVector x = b.allocate(5);
        DeviceVector y = b.allocate(5);
        x.close();
        x.close(); // idempotent
        assertTrue(x.isClosed());
        assertMessage(IllegalStateException.class, () -> b.copy(x, y), "x", "vector is closed");
        assertMessage(IllegalStateException.class, () -> b.norm2(x), "vector is closed");
        assertMessage(IllegalStateException.class, () -> b.download(x), "vector is closed");
    }

    @Test
    void nullsForeignVectorsAndAliasingAreRejected() {
        DeviceVector x = b.allocate(5);
        assertMessage(NullPointerException.class, () -> b.copy(null, x), "x");
        try (CpuBackend other = new CpuBackend(1)) {
            DeviceVector foreign = other.allocate(5);
            assertMessage(IllegalArgumentException.class, () -> b.copy(foreign, x), "x", "not a vector of this cpu backend");
        }
        assertMessage(IllegalArgumentException.class, () -> b.copy(x, x), "distinct");
        DeviceVector p = b.allocate(5);
        assertMessage(IllegalArgumentException.class, () -> b.cgUpdate(1, p, p, x, x), "x and r", "distinct");
        assertMessage(IllegalArgumentException.class, () -> b.cgUpdate(1, p, p, p, x), "distinct");
    }

    @Test
    void closedBackendIsRejected() {
        DeviceVector x = b.allocate(5);
        b.close();
        b.close();
        assertMessage(IllegalStateException.class, () -> b.norm2(x), "backend is closed");
        assertMessage(IllegalStateException.class, () -> b.allocate(3), "backend is closed");
    }

    @Test
    void wrongGeometricDataLengthSaysWhatWasExpected() {
        Basis1D basis = Basis1D.of(3);
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadElementData(ElementKernel.STIFFNESS_BP35, basis, 2, new double[2 * 64 * 7 - 1]),
                "STIFFNESS_BP35", "895", "2 * 64", "4^3 GLL", "* 7 = 896");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadElementData(ElementKernel.MASS_BP10, basis, 2, new double[2 * 64]),
                "MASS_BP10", "5^3 GL", "250");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadElementData(ElementKernel.STIFFNESS_BP30, basis, 1, new double[64 * 7]),
                "STIFFNESS_BP30", "875");
        double[] bad = new double[125];
        bad[17] = Double.NaN;
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadElementData(ElementKernel.MASS_BP10, basis, 1, bad), "geometricData[17]", "NaN");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadElementData(ElementKernel.MASS_BP10, basis, -1, new double[0]), "elements");
    }

    @Test
    void elementApplyChecksDataAndVectors() {
        Basis1D basis = Basis1D.of(2);
        DeviceElementData data = b.uploadElementData(ElementKernel.MASS_BP10, basis, 3,
                TestSupport.geometry(new Random(1), ElementKernel.MASS_BP10, basis, 3, true));
        DeviceVector x = b.allocate(81);
        DeviceVector y = b.allocate(80);
        assertMessage(IllegalArgumentException.class, () -> b.applyElements(data, 0, x, y), "yL", "80", "81");
        assertMessage(IllegalArgumentException.class, () -> b.applyElements(data, 0, x, x), "distinct");
        data.close();
        assertTrue(data.isClosed());
        assertMessage(IllegalStateException.class, () -> b.applyElements(data, 0, x, b.allocate(81)), "closed");

        TestSupport.ScatterMap map = TestSupport.mapOf(new int[] {0, 1, 1, -1}, 2, 1);
        DeviceScatter z = map.upload(b);
        DeviceElementData data2 = b.uploadElementData(ElementKernel.MASS_BP10, basis, 3,
                TestSupport.geometry(new Random(1), ElementKernel.MASS_BP10, basis, 3, true));
        assertMessage(IllegalArgumentException.class,
                () -> b.applyAssembled(data2, z, 0, 0, b.allocate(2), x, b.allocate(2)), "z.localSize()", "4", "81");
    }

    @Test
    void inconsistentScatterArraysAreRejected() {
        int[] ids = {0, 1, 1, -1};
        TestSupport.ScatterMap ok = TestSupport.mapOf(ids, 2, 1);
        int[] gs = ok.gatherStarts();
        int[] gi = ok.gatherIds();
        int[] bs = ok.blockStarts();
        double[] w = ok.inverseDegree();
        try (DeviceScatter z = ok.upload(b)) {
            assertEquals(4, z.localSize());
        }
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(new int[] {0, 2, 1, -1}, gs, gi, bs, w, 2), "scatterIds[1] = 2", "out of range");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(new int[] {0, 1, 1, -2}, gs, gi, bs, w, 2), "scatterIds[3] = -2");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(ids, new int[] {0, 1}, gi, bs, w, 2), "gatherStarts has length 2", "N_G + 1 = 3");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(ids, new int[] {0, 2, 1}, gi, bs, w, 2), "not monotone");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(ids, gs, new int[] {0, 1, 4}, bs, w, 2), "gatherIds[2] = 4", "out of range");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(ids, gs, new int[] {1, 0, 2}, bs, w, 2), "not the transpose");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(ids, gs, gi, new int[] {0, 1}, w, 2), "blockStarts must cover [0, N_G]");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(ids, gs, gi, new int[] {0, 2, 1, 2}, w, 2), "blockStarts is not monotone");
        assertMessage(IllegalArgumentException.class,
                () -> b.uploadScatter(ids, gs, gi, bs, new double[3], 2), "inverseDegree has length 3", "4");
        assertMessage(NullPointerException.class,
                () -> b.uploadScatter(ids, gs, null, bs, w, 2), "gatherIds");
    }

    @Test
    void providerIsFoundAndDeviceIsDescribed() {
        BackendProvider provider = Backends.providers().stream().filter(p -> p.name().equals("cpu")).findFirst()
                .orElseThrow();
        assertEquals(10, provider.priority());
        assertTrue(provider.unavailableReason() == null || provider.unavailableReason().isEmpty());
        try (Backend created = provider.create()) {
            assertEquals("cpu", created.name());
            int n = Runtime.getRuntime().availableProcessors();
            assertEquals("Java (" + n + (n == 1 ? " thread)" : " threads)"), created.device().name());
            assertEquals("CPU", created.device().type());
            assertFalse(created.device().isGpu());
            assertEquals(n, created.device().computeUnits());
            assertEquals(Runtime.getRuntime().maxMemory(), created.device().memoryBytes());
            assertEquals(System.getProperty("java.vendor"), created.device().vendor());
        }
        assertEquals("Java (2 threads)", b.device().name());
        assertThrows(IllegalArgumentException.class, () -> new CpuBackend(0));
    }
}
