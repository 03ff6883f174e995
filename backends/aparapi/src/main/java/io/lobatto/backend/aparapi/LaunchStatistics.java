package io.lobatto.backend.aparapi;

/**
 * Accumulated timings of one op of the device program: launches, host wall time around
 * {@code Kernel.execute} (includes Aparapi's host-side work and the kernel), and the kernel time from
 * OpenCL profiling (only when Aparapi profiling is on: {@code -Dcom.aparapi.enableProfiling=true}).
 * Their difference is the per-launch overhead T0 that the streaming paper's model fits.
 *
 * @param op           op name, e.g. "cgUpdate", "BP3.5 assembled", "gather"
 * @param launches     number of launches
 * @param wallNanos    summed host wall time of the launches
 * @param kernelNanos  summed OpenCL-profiled kernel execution time (0 when profiling is off)
 */
public record LaunchStatistics(String op, long launches, long wallNanos, long kernelNanos) {

    LaunchStatistics add(long wall, long kernel) {
        return new LaunchStatistics(op, launches + 1, wallNanos + wall, kernelNanos + kernel);
    }

    /** Mean wall time per launch in microseconds. */
    public double wallMicrosPerLaunch() {
        return launches == 0 ? 0 : wallNanos / 1e3 / launches;
    }

    /** Mean profiled kernel time per launch in microseconds (0 without profiling). */
    public double kernelMicrosPerLaunch() {
        return launches == 0 ? 0 : kernelNanos / 1e3 / launches;
    }
}
