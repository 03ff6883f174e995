package io.lobatto.bench;

import org.hipparchus.stat.regression.SimpleRegression;

/**
 * The streaming paper's model T(B) = T0 + B / Wmax fitted by least squares (Hipparchus
 * {@link SimpleRegression} of time on bytes): T0 is the intercept, 1/Wmax the slope; the
 * Fischer-Brown point B0.8 = 4 T0 Wmax is where 80% of Wmax is reached.
 *
 * @param t0Seconds  launch/latency overhead T0
 * @param wmax       asymptotic bandwidth in bytes/s
 * @param r2         coefficient of determination of the fit
 */
public record ModelFit(double t0Seconds, double wmax, double r2) {

    /** Fits T = T0 + B / Wmax to the pairs (bytes[i], seconds[i]). */
    public static ModelFit fit(double[] bytes, double[] seconds) {
        if (bytes.length != seconds.length || bytes.length < 2) {
            throw new IllegalArgumentException("need at least two (bytes, seconds) pairs of equal count, got "
                    + bytes.length + " and " + seconds.length);
        }
        SimpleRegression r = new SimpleRegression(true);
        for (int i = 0; i < bytes.length; i++) {
            r.addData(bytes[i], seconds[i]);
        }
        return new ModelFit(r.getIntercept(), 1 / r.getSlope(), r.getRSquare());
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
