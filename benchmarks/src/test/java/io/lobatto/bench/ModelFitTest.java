package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** The T(B) = T0 + B/Wmax least-squares fit recovers the model from synthetic measurements. */
class ModelFitTest {

    @Test
    void recoversT0AndWmaxFromNoisySyntheticData() {
        double t0 = 6e-6, wmax = 2.9e12;
        Random rnd = new Random(3);
        double[] b = new double[20], t = new double[20];
        for (int i = 0; i < b.length; i++) {
            b[i] = 1024.0 * (1L << i);
            t[i] = (t0 + b[i] / wmax) * (1 + 0.002 * rnd.nextGaussian());
        }
        ModelFit fit = ModelFit.fit(b, t);
        assertEquals(wmax, fit.wmax(), 0.01 * wmax);
        assertEquals(t0, fit.t0Seconds(), 0.05 * t0);
        assertEquals(4 * t0 * wmax, fit.b08(), 0.06 * 4 * t0 * wmax);
        // at B0.8 the model reaches 80% of Wmax
        assertEquals(0.8, fit.b08() / fit.time(fit.b08()) / fit.wmax(), 1e-12);
    }

    @Test
    void needsTwoPoints() {
        assertThrows(IllegalArgumentException.class, () -> ModelFit.fit(new double[] {1}, new double[] {1}));
    }
}
