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
 * {@link #main} prints the prediction for 1, 2, 4 and 8 ranks.
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
