package io.lobatto.core.geometry;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

import io.lobatto.core.mesh.ElementGeometry;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;

/** The closed form of {@link TrilinearFactors} against the factors of {@link GeometricFactors#atGll}. */
class TrilinearFactorsTest {

    private static HexMesh perturbed(int n, double amplitude, long seed) {
        HexMesh box = HexMesh.box(n, n, n, -1, 1, 0, 2, 1, 2.5);
        double[] v = box.vertices();
        Random rnd = new Random(seed);
        for (int i = 0; i < v.length; i++) {
            v[i] += amplitude * (2.0 / n) * (2 * rnd.nextDouble() - 1);
        }
        return new HexMesh(v, box.elements(), box.faceTags());
    }

    @Test
    void closedFormEqualsTheFactorsOfTheInterpolatedPositions() {
        for (int degree : new int[] {1, 2, 4, 7, 10}) {
            SpectralElementMesh mesh = SpectralElementMesh.of(perturbed(3, 0.2, degree), degree);
            double[] expect = GeometricFactors.atGll(mesh).packed();
            double[] got = TrilinearFactors.packed(mesh.elementGeometry().orElseThrow(), mesh.basis());
            double max = 0;
            for (double v : expect) {
                max = Math.max(max, Math.abs(v));
            }
            double diff = 0;
            for (int i = 0; i < got.length; i++) {
                diff = Math.max(diff, Math.abs(got[i] - expect[i]));
            }
            assertTrue(diff / max < 1e-13, "N=" + degree + ": relative difference " + diff / max);
        }
    }

    @Test
    void rejectsMeshesThatAreNotTrilinear() {
        SpectralElementMesh mapped = SpectralElementMesh.of(HexMesh.box(1, 1, 1, 0, 1, 0, 1, 0, 1), 2,
                io.lobatto.core.mesh.NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        ElementGeometry g = mapped.elementGeometry().orElseThrow();
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> TrilinearFactors.packed(g, mapped.basis()));
        assertTrue(ex.getMessage().contains("point map"), ex.getMessage());
    }

    @Test
    void namesTheElementOfANonPositiveJacobian() {
        HexMesh box = HexMesh.box(2, 1, 1, 0, 2, 0, 1, 0, 1);
        int[] el = box.elements();
        // element 1 with its r-direction reversed: corners 0<->1, 3<->2, 4<->5, 7<->6
        int[] swap = {1, 0, 3, 2, 5, 4, 7, 6};
        int[] inv = el.clone();
        for (int c = 0; c < 8; c++) {
            inv[8 + c] = el[8 + swap[c]];
        }
        HexMesh bad = new HexMesh(box.vertices(), inv, box.faceTags());
        SpectralElementMesh m = SpectralElementMesh.of(bad, 2);
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> TrilinearFactors.packed(m.elementGeometry().orElseThrow(), m.basis()));
        assertTrue(ex.getMessage().startsWith("element 1:"), ex.getMessage());
    }
}
