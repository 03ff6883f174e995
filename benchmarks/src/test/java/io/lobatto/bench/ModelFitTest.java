package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** The T(B) = T0 + B/Wmax fits on synthetic measurements: what they recover, which sizes they use, when they are rejected. */
class ModelFitTest {

    /** Sizes 2 KiB .. 1 GiB by doubling, as the streaming suite sweeps BS1 (16 bytes per entry from 128 entries). */
    private static double[] sizes() {
        double[] b = new double[20];
        for (int i = 0; i < b.length; i++) {
            b[i] = 2048.0 * (1L << i);
        }
        return b;
    }

    @Test
    void recoversT0AndWmaxFromNoisySyntheticData() {
        double t0 = 6e-6, wmax = 2.9e12;
        Random rnd = new Random(3);
        double[] b = sizes(), t = new double[b.length];
        for (int i = 0; i < b.length; i++) {
            t[i] = (t0 + b[i] / wmax) * (1 + 0.002 * rnd.nextGaussian());
        }
        for (ModelFit fit : new ModelFit[] {ModelFit.fit(b, t), ModelFit.fitStreaming(b, b, t, 0)}) {
            assertEquals(wmax, fit.wmax(), 0.01 * wmax);
            assertEquals(t0, fit.t0Seconds(), 0.05 * t0);
            assertEquals(4 * t0 * wmax, fit.b08(), 0.06 * 4 * t0 * wmax);
            assertTrue(fit.ok(), fit.problem());
            assertTrue(fit.r2() > 0.999, "R^2 " + fit.r2());
            // at B0.8 the model reaches 80% of Wmax
            assertEquals(0.8, fit.b08() / fit.time(fit.b08()) / fit.wmax(), 1e-12);
        }
    }

    @Test
    void relativeFitRecoversTheModelUnderNoiseProportionalToTime() {
        // timing noise of 1% of each time, 20 draws: T0 within 10%, Wmax within 3%, accepted every time
        double t0 = 8e-6, wmax = 3e12;
        for (int seed = 0; seed < 20; seed++) {
            Random rnd = new Random(seed);
            double[] b = sizes(), t = new double[b.length];
            for (int i = 0; i < b.length; i++) {
                t[i] = (t0 + b[i] / wmax) * (1 + 0.01 * rnd.nextGaussian());
            }
            ModelFit rel = ModelFit.fitStreaming(b, b, t, 0);
            assertEquals(t0, rel.t0Seconds(), 0.1 * t0, "seed " + seed);
            assertEquals(wmax, rel.wmax(), 0.03 * wmax, "seed " + seed);
            assertTrue(rel.ok(), rel.problem());
        }
    }

    @Test
    void slowSmallSizesAreNotTheModelAndAreRejected() {
        // the first sizes of a sweep run while the host code is still being compiled: 60-80 us where
        // later launch-bound sizes take 45 us (the stored H100 BS1 run at 23a8a01). Time that falls as
        // the bytes grow is not T0 + B/Wmax; the relative fit, which weighs every size, says so
        double t0 = 45e-6, wmax = 2.3e12;
        double[] b = sizes(), t = new double[b.length];
        for (int i = 0; i < b.length; i++) {
            t[i] = t0 + b[i] / wmax + (i < 6 ? 35e-6 * (6 - i) / 6 : 0);
        }
        ModelFit fit = ModelFit.fitStreaming(b, b, t, 0);
        assertFalse(fit.ok(), "accepted: " + fit);
    }

    @Test
    void leavesOutTheCacheResidentSizes() {
        // below a 50 MB cache repeated launches stream at 3x the memory rate: that part of the sweep is not
        // T0 + B/Wmax with the memory's Wmax. Fitting every size overestimates Wmax; the streaming fit uses
        // the launch-bound sizes and those whose working set is at least twice the cache
        double t0 = 8e-6, wmax = 3e12, cache = 50e6;
        double[] b = sizes(), t = new double[b.length];
        for (int i = 0; i < b.length; i++) {
            t[i] = t0 + b[i] / (b[i] < cache ? 3 * wmax : wmax);
        }
        ModelFit all = ModelFit.fitStreaming(b, b, t, 0);
        assertTrue(all.wmax() > 1.1 * wmax || all.t0Seconds() > 1.5 * t0 || !all.ok(),
                "fitting across the cache regime should be visibly wrong: " + all);
        ModelFit fit = ModelFit.fitStreaming(b, b, t, cache);
        assertEquals(wmax, fit.wmax(), 0.01 * wmax);
        assertEquals(t0, fit.t0Seconds(), 0.05 * t0);
        assertTrue(fit.ok(), fit.problem());
        for (int i = 0; i < b.length; i++) {
            boolean launchBound = b[i] / wmax <= 0.1 * t0;
            boolean memory = b[i] >= 2 * cache;
            assertEquals(launchBound || memory, fit.used()[i], "size " + b[i]);
        }
    }

    @Test
    void aFitWithLowR2IsRejected() {
        // times that do not grow with the bytes (noise around 50 us): whatever the line, R^2 stays low
        Random rnd = new Random(7);
        double[] b = sizes(), t = new double[b.length];
        for (int i = 0; i < b.length; i++) {
            t[i] = 50e-6 * (1 + 0.5 * rnd.nextDouble());
        }
        ModelFit fit = ModelFit.fitStreaming(b, b, t, 0);
        assertTrue(fit.r2() < ModelFit.MIN_R2, "R^2 " + fit.r2());
        assertFalse(fit.ok());
        assertNotNull(fit.problem());
        assertTrue(fit.problem().startsWith("R^2"), fit.problem());
    }

    @Test
    void negativeT0AndTooFewSizesAreRejected() {
        double[] b = {1e6, 2e6, 4e6, 8e6};
        double[] t = {1e-6, 4e-6, 10e-6, 22e-6}; // convex: the line crosses zero below 1 MB
        ModelFit fit = ModelFit.fitStreaming(b, b, t, 0);
        assertTrue(fit.t0Seconds() < 0, "T0 " + fit.t0Seconds());
        assertFalse(fit.ok());
        ModelFit two = ModelFit.fitStreaming(new double[] {1e6, 2e6}, new double[] {1e6, 2e6}, new double[] {1e-6, 2e-6}, 0);
        assertFalse(two.ok());
        assertTrue(two.problem().contains("sizes"), two.problem());
    }

    @Test
    void needsTwoPoints() {
        assertThrows(IllegalArgumentException.class, () -> ModelFit.fit(new double[] {1}, new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> ModelFit.fitStreaming(new double[] {1}, new double[] {1},
                new double[] {1}, 0));
    }
}
