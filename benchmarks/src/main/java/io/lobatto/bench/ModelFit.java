package io.lobatto.bench;

import java.util.Arrays;

import org.hipparchus.stat.regression.SimpleRegression;

/**
 * The streaming paper's model T(B) = T0 + B / Wmax (streamParanumal, eq. 8) fitted by least squares of
 * time on bytes: T0 is the intercept, 1/Wmax the slope; the Fischer-Brown point B0.8 = 4 T0 Wmax is
 * where 80% of Wmax is reached.
 *
 * <p>{@link #fitStreaming} is what the streaming suite reports. It fits only the sizes where the model
 * applies and weighs each size by its relative error:
 * <ul>
 *   <li>Wmax is the rate from device memory. Repeated launches on a working set that fits the
 *       last-level cache stream from the cache at a higher rate (the L2 spike of the paper's BS1/BS2
 *       plots), so a size takes part only when its working set is at least twice the cache, or when it
 *       is launch-bound (B / Wmax at most a tenth of T0: where the bytes come from does not matter
 *       there). The selection uses the fit itself, so it is iterated until it stops changing.</li>
 *   <li>Timing noise grows with the time, so each residual is weighed by 1/T² (relative residuals, the
 *       maximum-likelihood fit for noise proportional to the time): every size counts once, and R² says
 *       how well the model holds across the whole sweep. Over geometric sizes (2 KB to 1 GB) the R² of an
 *       unweighted fit of seconds is a statistic of the few largest sizes only.</li>
 * </ul>
 * A fit is a result only when {@link #ok()}: R² at least {@link #MIN_R2}, T0 not negative, Wmax
 * positive, at least three sizes.
 *
 * @param t0Seconds  launch/latency overhead T0
 * @param wmax       asymptotic bandwidth in bytes/s
 * @param r2         coefficient of determination of the (weighted) fit
 * @param points     sizes used by the fit
 * @param used       for each input point, whether the fit used it (empty for {@link #fit})
 */
public record ModelFit(double t0Seconds, double wmax, double r2, int points, boolean[] used) {

    /** The least R² for which a fit is reported as a result. */
    public static final double MIN_R2 = 0.95;

    /** A working set counts as streaming from memory from this multiple of the last-level cache on. */
    public static final double CACHE_MULTIPLE = 2;

    /** A size counts as launch-bound when B / Wmax is at most this fraction of T0. */
    public static final double LAUNCH_BOUND_FRACTION = 0.1;

    /**
     * Fits T = T0 + B / Wmax by ordinary least squares of seconds on bytes over every pair (the
     * paper's fit, kept for comparison: {@link #fitStreaming} is the one to report).
     */
    public static ModelFit fit(double[] bytes, double[] seconds) {
        check(bytes, seconds);
        SimpleRegression r = new SimpleRegression(true);
        for (int i = 0; i < bytes.length; i++) {
            r.addData(bytes[i], seconds[i]);
        }
        boolean[] all = new boolean[bytes.length];
        Arrays.fill(all, true);
        return new ModelFit(r.getIntercept(), 1 / r.getSlope(), r.getRSquare(), bytes.length, all);
    }

    /**
     * Fits T = T0 + B / Wmax minimising the relative residuals (T_i - T0 - B_i / Wmax) / T_i over the
     * pairs with {@code use[i]}; R² is the weighted one, 1 - sum w r² / sum w (T - T_w)², w = 1/T².
     */
    public static ModelFit fitRelative(double[] bytes, double[] seconds, boolean[] use) {
        check(bytes, seconds);
        double sw = 0, sx = 0, sy = 0;
        int n = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (use[i]) {
                double w = 1 / (seconds[i] * seconds[i]);
                sw += w;
                sx += w * bytes[i];
                sy += w * seconds[i];
                n++;
            }
        }
        if (n < 2) {
            return new ModelFit(Double.NaN, Double.NaN, Double.NaN, n, use.clone());
        }
        double mx = sx / sw, my = sy / sw, sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (use[i]) {
                double w = 1 / (seconds[i] * seconds[i]);
                sxy += w * (bytes[i] - mx) * (seconds[i] - my);
                sxx += w * (bytes[i] - mx) * (bytes[i] - mx);
                syy += w * (seconds[i] - my) * (seconds[i] - my);
            }
        }
        double slope = sxy / sxx;
        double t0 = my - slope * mx;
        double res = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (use[i]) {
                double r = seconds[i] - t0 - slope * bytes[i];
                res += r * r / (seconds[i] * seconds[i]);
            }
        }
        return new ModelFit(t0, 1 / slope, syy > 0 ? 1 - res / syy : Double.NaN, n, use.clone());
    }

    /**
     * The fit over the sizes where the model applies (see the class comment): {@code workingSet[i]}
     * is the bytes the operation touches (its vectors), {@code cacheBytes} the last-level cache to step
     * over (0: no cache regime to exclude).
     */
    public static ModelFit fitStreaming(double[] bytes, double[] workingSet, double[] seconds, double cacheBytes) {
        check(bytes, seconds);
        if (workingSet.length != bytes.length) {
            throw new IllegalArgumentException("working sets: " + workingSet.length + " for " + bytes.length + " points");
        }
        boolean[] use = new boolean[bytes.length];
        Arrays.fill(use, true);
        ModelFit f = fitRelative(bytes, seconds, use);
        if (cacheBytes <= 0) {
            return f;
        }
        for (int iteration = 0; iteration < 10; iteration++) {
            boolean[] next = new boolean[bytes.length];
            double launchBound = f.t0Seconds() > 0 && f.wmax() > 0 ? LAUNCH_BOUND_FRACTION * f.t0Seconds() * f.wmax() : 0;
            for (int i = 0; i < bytes.length; i++) {
                next[i] = workingSet[i] >= CACHE_MULTIPLE * cacheBytes || bytes[i] <= launchBound;
            }
            if (Arrays.equals(next, f.used())) {
                break;
            }
            f = fitRelative(bytes, seconds, next);
        }
        return f;
    }

    private static void check(double[] bytes, double[] seconds) {
        if (bytes.length != seconds.length || bytes.length < 2) {
            throw new IllegalArgumentException("need at least two (bytes, seconds) pairs of equal count, got "
                    + bytes.length + " and " + seconds.length);
        }
    }

    /** True when the fit is a result: R² >= {@link #MIN_R2}, T0 >= 0, Wmax > 0, at least three sizes. */
    public boolean ok() {
        return problem() == null;
    }

    /** Why the fit is not a result, or null when it is. */
    public String problem() {
        if (points < 3) {
            return "only " + points + " sizes where the model applies";
        }
        if (!(r2 >= MIN_R2)) {
            return String.format(java.util.Locale.ROOT, "R^2 %.3f < %.2f", r2, MIN_R2);
        }
        if (!(t0Seconds >= 0)) {
            return "T0 < 0";
        }
        if (!(wmax > 0) || Double.isInfinite(wmax)) {
            return "Wmax not positive";
        }
        return null;
    }

    /** B0.8 = 4 T0 Wmax, the bytes at which a kernel reaches 80% of Wmax. */
    public double b08() {
        return 4 * t0Seconds * wmax;
    }

    /** The model's time for B bytes. */
    public double time(double bytes) {
        return t0Seconds + bytes / wmax;
    }
}
