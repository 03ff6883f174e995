package io.lobatto.backend.aparapi;

/**
 * Profiled device time of one kernel of the backend (OpenCL event profiling, {@code CL_PROFILING_COMMAND_END
 * - START}), summed over its launches since profiling was switched on.
 *
 * @param op          kernel label, e.g. "pcgUpdate", "BP3.5 N=7 (assembled)", "gather+dot"
 * @param launches    number of profiled launches
 * @param kernelNanos summed device time
 */
public record LaunchStatistics(String op, long launches, long kernelNanos) {

    /** Mean device time per launch in microseconds. */
    public double kernelMicrosPerLaunch() {
        return launches == 0 ? 0 : kernelNanos / 1e3 / launches;
    }
}
