package io.lobatto.parallel;

import java.util.Locale;

/**
 * A per-iteration time model of the distributed Jacobi PCG with hipBone's overlap, from measured inputs:
 * <pre>
 *   T(R) = T_elements · b + max(T_elements · (1 - b), T_exchange) + T_rest + 2 T_allreduce
 *   T_exchange = 2 (t_launch + t_pcie) + t_mpi,  t_pcie = L_pcie + 8 S / B_pcie,  t_mpi = L_mpi + 8 S / B_mpi
 * </pre>
 * with b the fraction of a rank's elements that touch a shared node (applied before the exchange starts), S the
 * shared nodes per neighbour of a z-slab (one GLL plane) and T_elements, T_rest the operator's and the rest of the
 * iteration's time measured on one device at the same DOFs per device (weak scaling). The exchange is hidden when it
 * is shorter than the interior elements; the two Allreduces (CG's p.Ap and the fused r.r, r.z) are not.
 * {@link #main} prints the prediction for 1, 2, 4 and 8 ranks. {@link #fit} takes the inputs from a one-rank
 * {@code --profile} (the element kernels' device time) and a {@link NetworkProbe};
 * {@link #iterationSeconds(int, double, long, long, double)} is the model of the schedule as it now runs, and
 * {@link #cubeCurve} its weak-scaling curve on a 3D grid of ranks.
 */
public record ScalingModel(double elementsSeconds, double restSeconds, double pcieLatency, double pcieBandwidth,
                           double mpiLatency, double mpiBandwidth, double launchSeconds, double allreduceSeconds) {

    /** The predicted seconds per iteration of a rank of z-slabs of nx x ny x layers elements of degree N. */
    public double iterationSeconds(int ranks, int degree, int nx, int ny, int layers) {
        if (ranks == 1) {
            return elementsSeconds + restSeconds;
        }
        double boundary = Math.min(1.0, 2.0 / layers); // an interior slab touches two neighbours
        long shared = ((long) nx * degree + 1) * ((long) ny * degree + 1);
        double pcie = pcieLatency + 8.0 * shared * 2 / pcieBandwidth; // both planes at once
        double mpi = mpiLatency + 8.0 * shared / mpiBandwidth;
        double exchange = 2 * (launchSeconds + pcie) + mpi;
        return elementsSeconds * boundary + Math.max(elementsSeconds * (1 - boundary), exchange) + launchSeconds
                + restSeconds + 2 * allreduceSeconds;
    }

    /**
     * The predicted seconds per iteration of the slowest rank of {@code ranks}, in the schedule of
     * {@link DistributedOperator} after the folds of the halo sums and the owned reductions:
     * <pre>
     *   T = T_e b + max(T_e (1 - b), t_launch + 2 (L_pcie + 8 S / B_pcie) + L_mpi + 8 S_msg / B_mpi)
     *       + extra t_launch + T_rest + 2 ceil(log2 R) t_allreduce
     * </pre>
     * with b the fraction of the rank's elements applied before the exchange ({@code boundaryFraction}), S its shared
     * nodes (read to the host and written back), S_msg the largest message (the neighbours' messages travel at once),
     * {@code extraLaunches} the launches per iteration beyond one rank's (the element split and the compact gather) and
     * the Allreduce growing with the rounds of recursive doubling from its measured 2-rank cost.
     */
    public double iterationSeconds(int ranks, double boundaryFraction, long sharedNodes, long largestMessage,
                                   double extraLaunches) {
        if (ranks == 1) {
            return elementsSeconds + restSeconds;
        }
        double pcie = pcieLatency + 8.0 * sharedNodes / pcieBandwidth;
        double mpi = mpiLatency + 8.0 * largestMessage / mpiBandwidth;
        double exchange = launchSeconds + 2 * pcie + mpi;
        int rounds = 32 - Integer.numberOfLeadingZeros(ranks - 1); // ceil(log2 R)
        return elementsSeconds * boundaryFraction + Math.max(elementsSeconds * (1 - boundaryFraction), exchange)
                + extraLaunches * launchSeconds + restSeconds + 2 * rounds * allreduceSeconds;
    }

    /**
     * The model fitted from measurements: one rank's seconds per iteration and its element kernels' device seconds per
     * iteration (the rest is everything else of the iteration), and the ranks' {@link NetworkProbe}.
     */
    public static ScalingModel fit(double oneRankSeconds, double elementKernelSeconds, NetworkProbe net) {
        if (!(elementKernelSeconds > 0 && elementKernelSeconds <= oneRankSeconds)) {
            throw new IllegalArgumentException("element kernels " + elementKernelSeconds + " s per iteration must be in (0, "
                    + oneRankSeconds + "] (the one-rank iteration)");
        }
        return new ScalingModel(elementKernelSeconds, oneRankSeconds - elementKernelSeconds, net.readLatency(),
                net.readBandwidth(), net.exchangeLatency(), net.exchangeBandwidth(), net.launchSeconds(),
                net.allreduceSeconds());
    }

    /**
     * The weak-scaling curve on a near-cubic grid of R ranks, each a cube of m^3 elements of degree N (the 1-rank
     * problem repeated): the slowest rank has min(2, p_d - 1) face neighbours along each axis d of the p_x x p_y x p_z
     * grid, shares (mN + 1)^2 nodes per face, applies first the elements in its face layers, and launches
     * {@code extraLaunches} more kernels than one rank. Returns rows {R, seconds per iteration, efficiency T(1)/T(R)}.
     */
    public double[][] cubeCurve(int m, int degree, double extraLaunches, int[] rankCounts) {
        double t1 = elementsSeconds + restSeconds;
        double[][] out = new double[rankCounts.length][];
        long face = ((long) m * degree + 1) * ((long) m * degree + 1);
        for (int i = 0; i < rankCounts.length; i++) {
            int r = rankCounts[i];
            int[] p = grid(r);
            double interior = 1;
            int faces = 0;
            for (int d : p) {
                int k = Math.min(2, d - 1);
                faces += k;
                interior *= Math.max(0, m - k) / (double) m;
            }
            double t = r == 1 ? t1 : iterationSeconds(r, 1 - interior, faces * face, face, extraLaunches);
            out[i] = new double[] {r, t, t1 / t};
        }
        return out;
    }

    /** The near-cubic factorisation p_x <= p_y <= p_z of {@code r} (the one with the smallest largest factor). */
    static int[] grid(int r) {
        int[] best = {1, 1, r};
        for (int a = 1; (long) a * a * a <= r; a++) {
            if (r % a != 0) {
                continue;
            }
            for (int b = a; (long) b * b <= r / a; b++) {
                if ((r / a) % b == 0) {
                    int c = r / a / b;
                    if (c < best[2]) {
                        best = new int[] {a, b, c};
                    }
                }
            }
        }
        return best;
    }

    /**
     * Prints the weak-scaling prediction. Arguments (all measured): N, nx, ny, layers per rank, operator ms and rest ms
     * of one iteration on one device, PCIe latency µs and GB/s, MPI latency µs and GB/s, launch µs, Allreduce µs.
     * Example (H100, 10.4M DOFs per GPU at N = 7: 31 x 31 x 31 elements; operator 0.55 ms, rest 0.35 ms of 0.9 ms):
     * {@code java ... ScalingModel 7 31 31 31 0.55 0.35 10 20 5 10 10 15}
     */
    public static void main(String[] args) {
        if (args.length != 12) {
            System.err.println("usage: ScalingModel N nx ny layers operator_ms rest_ms pcie_latency_us pcie_GBps "
                    + "mpi_latency_us mpi_GBps launch_us allreduce_us");
            System.exit(2);
        }
        double[] a = new double[args.length];
        for (int i = 0; i < a.length; i++) {
            a[i] = Double.parseDouble(args[i]);
        }
        int n = (int) a[0], nx = (int) a[1], ny = (int) a[2], layers = (int) a[3];
        ScalingModel m = new ScalingModel(a[4] * 1e-3, a[5] * 1e-3, a[6] * 1e-6, a[7] * 1e9, a[8] * 1e-6, a[9] * 1e9,
                a[10] * 1e-6, a[11] * 1e-6);
        long dofsPerRank = (long) nx * ny * layers * n * n * n;
        double t1 = m.iterationSeconds(1, n, nx, ny, layers);
        System.out.printf(Locale.ROOT, "weak scaling, %d DOFs per rank, N = %d, z-slabs of %dx%dx%d elements%n", dofsPerRank, n,
                nx, ny, layers);
        System.out.println("ranks  ms/iteration  efficiency");
        for (int r : new int[] {1, 2, 4, 8}) {
            double t = m.iterationSeconds(r, n, nx, ny, layers);
            System.out.printf(Locale.ROOT, "%5d  %12.4f  %9.1f%%%n", r, 1e3 * t, 100 * t1 / t);
        }
    }
}
