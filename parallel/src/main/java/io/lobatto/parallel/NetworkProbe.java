package io.lobatto.parallel;

import java.util.Locale;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.parallel.Communicator;

/**
 * The communication costs that {@link ScalingModel} needs, measured on the ranks of a job (collective; every value the
 * max over ranks):
 * <ul>
 *   <li>the pairwise exchange of ranks 2k and 2k+1 as the halo runs it ({@link Communicator#startExchange}, both
 *       directions at once): the time of an 8-byte exchange (latency) and the bandwidth of a large one (bytes one way
 *       over the time less the latency);</li>
 *   <li>an 8-byte Allreduce (CG's reductions);</li>
 *   <li>the device copies of the halo: an asynchronous read of 8 bytes waited for (latency), and of a large vector
 *       (bandwidth), and a pipelined kernel launch (many tiny fills, then one synchronize).</li>
 * </ul>
 * The means of {@code reps} repetitions after warm-up ones; odd rank counts leave the last rank out of the exchange.
 *
 * @param exchangeLatency    seconds of an 8-byte pairwise exchange
 * @param exchangeBandwidth  bytes per second one way of a large pairwise exchange
 * @param allreduceSeconds   seconds of an 8-byte Allreduce
 * @param readLatency        seconds of an 8-byte device-to-host copy, waited for
 * @param readBandwidth      bytes per second of a large device-to-host copy
 * @param launchSeconds      seconds per pipelined kernel launch
 */
public record NetworkProbe(double exchangeLatency, double exchangeBandwidth, double allreduceSeconds, double readLatency,
                           double readBandwidth, double launchSeconds) {

    /** Doubles of the large exchange and copy (8 MB). */
    static final int LARGE = 1 << 20;

    /** Measures on {@code comm} and {@code backend} with {@code reps} repetitions of each small operation. */
    public static NetworkProbe measure(Communicator comm, Backend backend, int reps) {
        int r = comm.rank(), size = comm.size();
        int partner = (r ^ 1) < size ? r ^ 1 : -1;
        double exSmall = exchange(comm, partner, 1, reps);
        double exLarge = exchange(comm, partner, LARGE, Math.max(3, reps / 50));
        comm.barrier();
        for (int i = 0; i < 10; i++) {
            comm.allreduceSum(1.0);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            comm.allreduceSum(1.0);
        }
        double allreduce = (System.nanoTime() - t0) * 1e-9 / reps;
        double readSmall;
        double readLarge;
        double launch;
        try (DeviceVector small = backend.allocate(1); DeviceVector large = backend.allocate(LARGE)) {
            double[] one = new double[1];
            double[] many = new double[LARGE];
            readSmall = read(backend, small, one, reps);
            readLarge = read(backend, large, many, Math.max(3, reps / 50));
            for (int i = 0; i < 10; i++) {
                backend.fill(small, i);
            }
            backend.synchronize();
            t0 = System.nanoTime();
            for (int i = 0; i < reps; i++) {
                backend.fill(small, i);
            }
            backend.synchronize();
            launch = (System.nanoTime() - t0) * 1e-9 / reps;
        }
        double[] v = {exSmall, exLarge, allreduce, readSmall, readLarge, launch};
        for (int i = 0; i < v.length; i++) {
            v[i] = comm.allreduceMax(v[i]);
        }
        double exBw = partner < 0 && size == 1 ? Double.POSITIVE_INFINITY : 8.0 * LARGE / Math.max(1e-12, v[1] - v[0]);
        double rdBw = 8.0 * LARGE / Math.max(1e-12, v[4] - v[3]);
        return new NetworkProbe(v[0], exBw, v[2], v[3], rdBw, v[5]);
    }

    private static double exchange(Communicator comm, int partner, int n, int reps) {
        int[] nb = partner < 0 ? new int[0] : new int[] {partner};
        double[][] send = partner < 0 ? new double[0][] : new double[][] {new double[n]};
        double[][] recv = partner < 0 ? new double[0][] : new double[][] {new double[n]};
        comm.barrier();
        for (int i = 0; i < 3; i++) {
            comm.startExchange(nb, send, recv).finish();
        }
        comm.barrier();
        long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            comm.startExchange(nb, send, recv).finish();
        }
        return (System.nanoTime() - t0) * 1e-9 / reps;
    }

    private static double read(Backend backend, DeviceVector v, double[] host, int reps) {
        for (int i = 0; i < 3; i++) {
            backend.readAsync(v, host).await();
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            backend.readAsync(v, host).await();
        }
        return (System.nanoTime() - t0) * 1e-9 / reps;
    }

    /** One line: the six values in µs and GB/s. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "network: exchange 8 B %.2f us, %.2f GB/s one way (8 MB); allreduce 8 B %.2f us; "
                        + "device read 8 B %.2f us, %.2f GB/s (8 MB); launch %.2f us", 1e6 * exchangeLatency,
                exchangeBandwidth / 1e9, 1e6 * allreduceSeconds, 1e6 * readLatency, readBandwidth / 1e9, 1e6 * launchSeconds);
    }
}
