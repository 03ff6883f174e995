package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceFdm;
import io.lobatto.core.backend.DeviceGeometry;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.HexMesh;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The handles the SPI is given back ({@link BackendCore#own}): a scatter operator, element data, a geometry and a fast
 * diagonalisation made by another backend are refused with {@link IllegalArgumentException}, closed ones with
 * {@link IllegalStateException}, each naming the argument; null with {@link NullPointerException} naming it.
 */
class HandleChecksTest {

    private static AparapiBackend a;
    private static AparapiBackend other;

    @BeforeAll
    static void open() {
        a = OpenClAvailability.backend();
        other = new AparapiBackend(OpenClDevices.select(OpenClDevices.configuredSelector()));
    }

    @AfterAll
    static void close() {
        if (other != null) {
            other.close();
        }
    }

    private static void refused(Class<? extends RuntimeException> type, String message, Executable call) {
        RuntimeException e = assertThrows(type, call);
        assertTrue(e.getMessage() != null && e.getMessage().startsWith(message), e.getMessage());
    }

    private static DeviceScatter scatter(AparapiBackend b) {
        return b.uploadScatter(new int[] {0, 1}, new int[] {0, 1, 2}, new int[] {0, 1}, null, new double[] {1, 1}, 2);
    }

    @Test
    void scatterOperators() {
        try (DeviceScatter mine = scatter(a); DeviceScatter theirs = scatter(other); DeviceVector g = a.allocate(2);
             DeviceVector l = a.allocate(2)) {
            a.scatter(mine, g, l);
            refused(IllegalArgumentException.class, "z is not a scatter operator of this aparapi backend", () -> a.scatter(theirs, g, l));
            refused(NullPointerException.class, "z", () -> a.scatter(null, g, l));
            DeviceScatter closed = scatter(a);
            closed.close();
            refused(IllegalStateException.class, "z is closed", () -> a.scatter(closed, g, l));
        }
    }

    @Test
    void elementData() {
        Basis1D basis = Basis1D.of(2);
        ElementKernel k = ElementKernel.STIFFNESS_BP35;
        double[] geo = HostReference.geometry(k, basis, 1, 7);
        try (DeviceElementData mine = a.uploadElementData(k, basis, 1, geo);
             DeviceElementData theirs = other.uploadElementData(k, basis, 1, geo);
             DeviceVector x = a.allocate(basis.np()); DeviceVector y = a.allocate(basis.np())) {
            a.applyElements(mine, 0, x, y);
            refused(IllegalArgumentException.class, "data is not element data of this aparapi backend",
                    () -> a.applyElements(theirs, 0, x, y));
            DeviceElementData closed = a.uploadElementData(k, basis, 1, geo);
            closed.close();
            refused(IllegalStateException.class, "data is closed", () -> a.applyElements(closed, 0, x, y));
        }
    }

    @Test
    void geometries() {
        ElementGeometry g = ElementGeometry.trilinear(HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1), null);
        Basis1D basis = Basis1D.of(2);
        int fpp = ElementKernel.STIFFNESS_BP35.factorsPerPoint();
        try (DeviceGeometry mine = a.uploadGeometry(g); DeviceGeometry theirs = other.uploadGeometry(g)) {
            try (DeviceVector v = a.geometricFactors(mine, basis, Quadrature.GLL, fpp)) {
                assertEquals(fpp * basis.np(), v.length());
            }
            refused(IllegalArgumentException.class, "geometry is not a geometry of this aparapi backend",
                    () -> a.geometricFactors(theirs, basis, Quadrature.GLL, fpp));
            DeviceGeometry closed = a.uploadGeometry(g);
            closed.close();
            refused(IllegalStateException.class, "geometry is closed", () -> a.geometricFactors(closed, basis, Quadrature.GLL, fpp));
        }
    }

    @Test
    void fastDiagonalisations() {
        int n = 3;
        double[] vectors = new double[3 * n * n];
        double[] values = new double[3 * n];
        for (int d = 0; d < 3; d++) {
            for (int i = 0; i < n; i++) {
                vectors[d * n * n + i * n + i] = 1;
                values[d * n + i] = 1 + i;
            }
        }
        try (DeviceFdm mine = a.uploadFdm(n, 1, vectors, values); DeviceFdm theirs = other.uploadFdm(n, 1, vectors, values);
             DeviceVector x = a.allocate(n * n * n); DeviceVector y = a.allocate(n * n * n)) {
            a.applyFdm(mine, x, y);
            refused(IllegalArgumentException.class, "fdm is not a fast diagonalisation of this aparapi backend",
                    () -> a.applyFdm(theirs, x, y));
            DeviceFdm closed = a.uploadFdm(n, 1, vectors, values);
            closed.close();
            refused(IllegalStateException.class, "fdm is closed", () -> a.applyFdm(closed, x, y));
        }
    }
}
