package io.lobatto.parallel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.basis.TensorInterpolation;
import io.lobatto.core.geometry.GeometricFactors;
import io.lobatto.core.mesh.GmshReader;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.core.parallel.Communicator;
import io.lobatto.core.parallel.SingleRankCommunicator;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.BoundElementOperator;
import io.lobatto.operators.MassOperator;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.ConjugateGradient;
import io.lobatto.solvers.JacobiPreconditioner;
import io.lobatto.solvers.PMultigrid;
import io.lobatto.solvers.Preconditioner;
import io.lobatto.solvers.SolveResult;

/**
 * The main job's Poisson problem, -Δu + λu = f on the deformed unit cube with u = sin πx sin πy sin πz (BP3.5, the
 * right-hand side through BP1.0), solved by CG (Jacobi, p-multigrid or none) on the parts of a {@link MeshPartition}, one per MPI
 * rank, on the rank's backend (one device per rank, {@link io.lobatto.core.backend.Backends#forLocalRank}). Rank 0 prints the per-rank balance (elements, owned DOFs, shared nodes, solve, halo
 * exchange and Allreduce time) and one {@code RESULT} line with the iterations and errors, which {@code mpi-test.sh}
 * compares across rank counts.
 *
 * <pre>
 * mpirun -np 2 java --enable-native-access=ALL-UNNAMED -cp ... io.lobatto.parallel.DistributedPoisson -N 7 -e 6,6,6
 * </pre>
 *
 * Options: {@code -N} degree (7), {@code -e nx,ny,nz} (6,6,6), {@code --deform} (0.05), {@code --lambda} (0),
 * {@code --pc jacobi|pmg|none} (jacobi; pmg: the p-multigrid V-cycle with Chebyshev-Jacobi smoothing across ranks,
 * {@link DistributedLevels}), {@code --tol} (1e-10), {@code --max-it} (5000), {@code --threads} (cores per
 * rank on the node), {@code --comm auto|mpi|single|threads:K} (auto: MPI when started by Open MPI's mpirun; threads:K:
 * K ranks as threads of one JVM, no MPI), {@code --backend auto|cpu|aparapi} (auto: the best, one device per rank),
 * {@code --schedule overlap|blocking|fused}, {@code --split serial|alongside|alongside:K|alongside:all|first:K} (how the
 * overlapped apply splits its element launch, {@link DistributedOperator.Split}; default: system property
 * {@code lobatto.parallel.split}, else alongside), {@code --profile-splits s1,s2,...} (implies {@code --profile}: each split
 * timed as the schedules are, overlapped with the exchange on), {@code --level-schedule overlap|blocking|fused} (p-MG:
 * the schedule of the levels below the fine one, {@link DistributedLevels#coarseSchedule}), {@code --coarse redundant|local}
 * (p-MG: the coarsest level solved whole on every rank, one allgather per V-cycle, or by Chebyshev iterations across
 * ranks, a halo exchange each; default: system property {@code lobatto.parallel.coarse}, else redundant),
 * {@code --coarse-link partial|device|host} (p-MG, redundant coarse solve: every rank's partial right-hand side
 * allgathered and summed on the device, no halo sum; the owned entries of the complete one, picked and placed by indexed
 * gathers on the device; or through the host with two blocking reads per V-cycle, {@link DistributedLevels.CoarseLink};
 * default: system property {@code lobatto.parallel.coarseLink}, else partial), {@code --partial-residual on|off} (p-MG: each
 * smoothed level restricts its residual as partial sums, without the exchange of the pre-smoother's last apply,
 * {@link DistributedLevels#PARTIAL_RESIDUAL_PROPERTY}; default: that system property, else on), {@code --h-levels auto|K}
 * (p-MG: the distributed h-levels below N = 1 on z-slabs with even sides, each rank halving its slab, before the coarse
 * solve; auto: until the whole coarse problem has at most {@code --gather-max} unknowns; 0: the coarse level is N = 1, the
 * path before; default: system property {@code lobatto.parallel.hLevels}, else auto), {@code --gather-max M} (default:
 * system property {@code lobatto.parallel.gatherMax}, else 100000), {@code --partition auto|slabs|rcb} (auto: z-slabs where nz divides by
 * the ranks, else recursive coordinate bisection, {@link BisectionPartition}), {@code --mesh file.msh} (a Gmsh mesh
 * instead of the box, cut by bisection), {@code --profile} (ms per iteration with the exchange overlapped, blocking,
 * fused and off; launches per iteration; the kernels' device times; each rank's surface-to-volume),
 * {@code --profile-json file} (rank 0 writes the profile's numbers), {@code --measure-network} ({@link NetworkProbe}),
 * {@code --model one-rank.json} (implies both: {@link ScalingModel} fitted from a one-rank profile JSON and this run's
 * network, its prediction for this run beside the measurement) and {@code --model-curve curve.json} (its weak-scaling
 * curve to 1000 ranks with hipBone's published points).
 */
public final class DistributedPoisson {

    private DistributedPoisson() {
    }

    /** Runs the solve and exits: code 0 when CG converged, 1 when it did not, 2 on a usage error. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the solve on the ranks of this job (MPI when started by mpirun); 0 converged, 1 not, 2 usage error. */
    static int run(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("distributed-poisson: " + e.getMessage());
            return 2;
        }
        if (o.comm.startsWith("threads:")) {
            return runThreads(o, Integer.parseInt(o.comm.substring("threads:".length())));
        }
        int code;
        try (Communicator comm = o.communicator()) {
            Result result = solve(o, comm);
            code = result == null ? 2 : result.converged() ? 0 : 1;
        } catch (RuntimeException e) {
            System.err.println("distributed-poisson: " + e.getMessage());
            code = 1;
        }
        return code;
    }

    /** The ranks as threads of this JVM ({@link ThreadCommunicator}), rank r on device r of the backend. */
    private static int runThreads(Options o, int ranks) {
        ThreadCommunicator[] comms = ThreadCommunicator.group(ranks);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(ranks);
        int code = 0;
        try {
            List<java.util.concurrent.Future<Result>> f = new ArrayList<>();
            for (ThreadCommunicator c : comms) {
                f.add(pool.submit(() -> solve(o, c)));
            }
            for (java.util.concurrent.Future<Result> r : f) {
                Result result = r.get();
                code = Math.max(code, result == null ? 2 : result.converged() ? 0 : 1);
            }
        } catch (java.util.concurrent.ExecutionException e) {
            System.err.println("distributed-poisson: " + e.getCause());
            code = 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = 1;
        } finally {
            pool.shutdownNow();
        }
        return code;
    }

    /**
     * What a distributed solve gave, the same on every rank: unknowns, CG iterations, whether it converged, and the
     * max (GLL nodes) and L2 (GL quadrature) errors against the exact solution; with p-MG its levels line
     * ({@link #pmgSchedule}), else null.
     */
    record Result(long dofs, int iterations, boolean converged, double maxError, double l2Error, double[] rankSolution,
                  String pmgSchedule) {
    }

    /** Solves on the ranks of {@code comm} (collective); rank 0 prints the report. Null on a partition error. */
    static Result solve(Options o, Communicator comm) {
        int r = comm.rank(), ranks = comm.size();
        long t0 = System.nanoTime();
        MeshPartition part;
        try {
            part = partition(o, ranks, r);
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            if (r == 0) {
                System.err.println("distributed-poisson: " + e.getMessage());
            }
            return null;
        }
        NodeMap map = o.deform == 0 ? NodeMap.identity() : NodeMap.sinusoidal(o.deform, 0, 1, 0, 1, 0, 1);
        SpectralElementMesh mesh = SpectralElementMesh.of(part.localMesh(), o.degree, map);
        boolean[] mask = mesh.boundaryMaskAllTagged();
        // the rows a neighbour owns numbered last: the reductions leave out one range, in their own pass
        OwnedLast numbering = OwnedLast.of(mesh.localToGlobal(), mesh.globalNodeCount(), mask, zm -> part.sharedNodes(mesh, zm));
        ScatterOperator z = numbering.z();
        ScatterOperator zFull = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), null);
        SharedNodes shared = numbering.shared();
        GeometricFactors gl = GeometricFactors.atGauss(mesh);
        MassOperator m = new MassOperator(mesh.basis(), gl);

        int nOrig = mesh.globalNodeCount();
        double[] xyz = mesh.globalCoordinates();
        double[] fOrig = new double[nOrig], gOrig = new double[nOrig], uExact = new double[nOrig];
        for (int g = 0; g < nOrig; g++) {
            double x = xyz[3 * g], y = xyz[3 * g + 1], zz = xyz[3 * g + 2];
            uExact[g] = Math.sin(Math.PI * x) * Math.sin(Math.PI * y) * Math.sin(Math.PI * zz);
            fOrig[g] = (3 * Math.PI * Math.PI + o.lambda) * uExact[g];
            gOrig[g] = mask[g] ? uExact[g] : 0;
        }
        double[] fL = new double[zFull.localSize()], gL = new double[zFull.localSize()];
        zFull.scatter(zFull.toAssembled(fOrig), fL);
        zFull.scatter(zFull.toAssembled(gOrig), gL);

        int threads = o.threads > 0 ? o.threads : defaultThreads();
        SolveResult result;
        double[] uG;
        double setup, commExchange = 0, commReduce = 0;
        String backendName;
        String deviceName;
        String profile = null;
        String schedule = null;
        String network = null;
        String model = null;
        java.util.Map<String, Double> metrics = new java.util.LinkedHashMap<>();
        double[] hostSteps;
        int boundaryElements;
        DistributedLevels[] levelsRef = new DistributedLevels[1];
        try (Backend backend = rankBackend(o.backend, localRank(comm), threads);
             AssembledOperator op = AssembledOperator.bind(StiffnessBp35.on(mesh, o.lambda), z, backend);
             DistributedOperator dop = new DistributedOperator(op, shared, comm);
             BoundElementOperator mb = m.bind(backend);
             DeviceVector dfL = backend.upload(fL); DeviceVector dgL = backend.upload(gL);
             DeviceVector tL = backend.allocate(z.localSize()); DeviceVector sL = backend.allocate(z.localSize());
             DeviceVector b = backend.allocate(z.globalSize()); DeviceVector lift = backend.allocate(z.globalSize());
             DeviceVector x = backend.allocate(z.globalSize());
             Preconditioner jacobi = o.jacobi ? JacobiPreconditioner.ofDiagonal(dop.backend(), dop.diagonal())
                     : o.pmg ? PMultigrid.builder(level -> StiffnessBp35.on(level, o.lambda), mesh, backend).fineOperator(op)
                             .distribution(keep(levelsRef, levels(comm, part, dop, o), o.levelSchedule)).build() : null;
             ConjugateGradient cg = new ConjugateGradient(dop, jacobi).relativeTolerance(o.tol).maxIterations(o.maxIterations)) {
            backendName = backend.name();
            deviceName = backend.device().name();
            boundaryElements = dop.boundaryElements();
            metrics.put("ranks", (double) ranks);
            metrics.put("degree", (double) o.degree);
            metrics.put("elements_per_rank", comm.allreduceMax(part.elementCount()));
            metrics.put("boundary_fraction", comm.allreduceMax(boundaryElements / (double) Math.max(1, part.elementCount())));
            metrics.put("shared_nodes", comm.allreduceMax(shared.sharedNodeCount()));
            int largest = 0;
            for (int[] ids : shared.ids()) {
                largest = Math.max(largest, ids.length);
            }
            metrics.put("largest_message", comm.allreduceMax(largest));
            if (o.schedule != null) {
                dop.schedule(o.schedule);
            }
            if (o.split != null) {
                dop.split(o.split);
            }
            mb.apply(dfL, tL);                                   // M f
            backend.gather(op.deviceScatter(), tL, b);           // Z^T M f, this rank's elements
            op.boundElementOperator().apply(dgL, sL);            // (S + λM) u_b
            backend.gather(op.deviceScatter(), sL, lift);
            backend.axpby(-1, lift, 1, b);
            dop.halo().sum(backend, b);                          // complete the gather across ranks
            comm.barrier();
            setup = (System.nanoTime() - t0) * 1e-9;
            double[] mpi0 = mpiSeconds(comm);
            double[] steps0 = dop.exchangeSeconds();
            result = cg.solve(b, x);
            double[] steps1 = dop.exchangeSeconds();
            hostSteps = new double[] {steps1[0] - steps0[0], steps1[1] - steps0[1], steps1[2] - steps0[2]};
            double[] mpi1 = mpiSeconds(comm);
            commExchange = mpi1[0] - mpi0[0];
            commReduce = mpi1[1] - mpi0[1];
            uG = backend.download(x);
            if (jacobi instanceof PMultigrid pm) {
                schedule = pmgSchedule(comm, pm, levelsRef[0]);
                List<PMultigrid.LevelInfo> infos = pm.levels();
                int h = 0;
                for (int l = 1; l < infos.size(); l++) {
                    h += infos.get(l).degree() == 1 && infos.get(l - 1).degree() == 1 ? 1 : 0;
                }
                metrics.put("pmg_h_levels", (double) h);
                metrics.put("pmg_coarse_iterations", (double) infos.get(infos.size() - 1).smootherOrder());
            }
            if (o.profile) {
                profile = profile(o, comm, dop, jacobi, levelsRef[0], b, backend, result.iterations(), metrics);
            }
            if (o.measureNetwork) {
                NetworkProbe net = NetworkProbe.measure(comm, backend, 2000);
                network = net.toString();
                metrics.put("exchange_latency_us", 1e6 * net.exchangeLatency());
                metrics.put("exchange_GBps", net.exchangeBandwidth() / 1e9);
                metrics.put("allreduce_us", 1e6 * net.allreduceSeconds());
                metrics.put("read_latency_us", 1e6 * net.readLatency());
                metrics.put("read_GBps", net.readBandwidth() / 1e9);
                metrics.put("launch_us", 1e6 * net.launchSeconds());
                if (o.model != null && o.profile) {
                    model = fitModel(o, net, metrics);
                }
            }
        }
        double[] u = numbering.toOriginal(z.fromAssembled(uG, 0));
        double maxErr = 0;
        for (int g = 0; g < nOrig; g++) {
            if (mask[g]) {
                u[g] = uExact[g];
            }
            maxErr = Math.max(maxErr, Math.abs(u[g] - uExact[g]));
        }
        double l2Squared = l2ErrorSquared(mesh, u, zFull, gl);

        // balance table: each rank fills its row, the sum over ranks gathers them on every rank
        int cols = 14;
        double[] table = new double[cols * ranks];
        SlabPartition slab = part instanceof SlabPartition sp ? sp : null;
        double[] row = {slab == null ? -1 : slab.firstLayer(), slab == null ? -1 : slab.layers(), part.elementCount(),
            shared.ownedCount(), shared.sharedCount(), result.seconds(), hostSteps[0], hostSteps[1], hostSteps[2], commReduce,
            boundaryElements, commExchange, surfaceToVolume(shared), shared.sharedNodeCount()};
        System.arraycopy(row, 0, table, cols * r, cols);
        comm.allreduceSum(table);
        double dofs = comm.allreduceSum((double) shared.ownedCount());
        double globalMax = comm.allreduceMax(maxErr);
        double l2 = Math.sqrt(comm.allreduceSum(l2Squared));
        double setupMax = comm.allreduceMax(setup);
        if (r == 0 && !o.quiet) {
            System.out.printf(Locale.ROOT, "distributed poisson: %d rank(s) (%s), backend %s on %s%s per rank, N = %d, "
                    + "%dx%dx%d elements, deformation %.3g, λ = %.3g, %s, tol %.1e, exchange %s%n", ranks,
                    comm instanceof MpiCommunicator ? "Open MPI" : comm.getClass().getSimpleName(), backendName, deviceName,
                    backendName.equals("cpu") ? " x " + threads + " threads" : "", o.degree, o.elements[0], o.elements[1],
                    o.elements[2], o.deform, o.lambda, o.jacobi ? "Jacobi PCG" : o.pmg ? "p-multigrid PCG" : "CG", o.tol,
                    o.schedule == null ? "default schedule" : o.schedule.toString().toLowerCase(Locale.ROOT));
            System.out.println("rank  layers   elements  boundary  owned_dofs  shared  shared/owned  solve_s  read_s  wait_s"
                    + "  write+sum_s  mpi_allreduce_s");
            for (int k = 0; k < ranks; k++) {
                double[] t = Arrays.copyOfRange(table, cols * k, cols * k + cols);
                String layers = t[0] < 0 ? "rcb    " : String.format(Locale.ROOT, "%2d..%-3d", (int) t[0], (int) (t[0] + t[1] - 1));
                System.out.printf(Locale.ROOT, "%4d  %s  %8d  %8d  %10d  %6d  %12.4f  %7.3f  %6.3f  %6.3f  %11.3f  %15.3f%n", k,
                        layers, (int) t[2], (int) t[10], (int) t[3], (int) t[4], t[12], t[5], t[6], t[7], t[8], t[9]);
            }
            System.out.printf(Locale.ROOT, "setup %.2f s (max over ranks); %s%n", setupMax, result);
            if (schedule != null) {
                System.out.print(schedule);
            }
            if (network != null) {
                System.out.println(network);
            }
            if (model != null) {
                System.out.print(model);
            }
            if (profile != null) {
                System.out.print(profile);
                for (int k = 0; k < ranks; k++) {
                    System.out.printf(Locale.ROOT, "profile: rank %d surface-to-volume %.4f (shared nodes per owned node: %d / %d)%n",
                            k, table[cols * k + 12], (int) table[cols * k + 13], (int) table[cols * k + 3]);
                }
            }
            System.out.printf(Locale.ROOT, "RESULT ranks=%d dofs=%d iterations=%d converged=%s max_error=%.17e l2_error=%.17e "
                    + "solve_s=%.4f per_iteration_ms=%.4f%n", ranks, (long) dofs, result.iterations(), result.converged(),
                    globalMax, l2, result.seconds(), 1e3 * result.seconds() / Math.max(1, result.iterations()));
        }
        if (r == 0 && o.profileJson != null) {
            metrics.put("dofs", dofs);
            metrics.put("iterations", (double) result.iterations());
            writeJson(o.profileJson, metrics);
        }
        return new Result((long) dofs, result.iterations(), result.converged(), globalMax, l2, uG, schedule);
    }

    /**
     * The rank's partition: slabs along z (rank r's layers, boundary layers first) or recursive coordinate bisection of
     * the box or of the Gmsh mesh of {@code --mesh}; {@code auto}: slabs where the box's z count divides by the ranks,
     * else bisection, and bisection for a Gmsh mesh.
     */
    static MeshPartition partition(Options o, int ranks, int rank) {
        boolean box = o.mesh == null;
        String how = o.partition.equals("auto") ? (box && o.elements[2] % ranks == 0 ? "slabs" : "rcb") : o.partition;
        if (how.equals("slabs")) {
            if (!box) {
                throw new IllegalArgumentException("--partition slabs: a Gmsh mesh (--mesh " + o.mesh + ") is cut by rcb only");
            }
            return SlabPartition.of(o.elements[0], o.elements[1], o.elements[2], ranks, rank).boundaryFirst();
        }
        HexMesh mesh = box ? HexMesh.box(o.elements[0], o.elements[1], o.elements[2], 0, 1, 0, 1, 0, 1)
                : GmshReader.read(java.nio.file.Path.of(o.mesh));
        return BisectionPartition.of(mesh, ranks, rank);
    }

    /** Rounds of the --profile table: each runs one solve of every row, and a row prints its best. */
    static final int PROFILE_ROUNDS = 3;

    /**
     * One row of the profile: the fine operator's schedule, the exchange on or off, and, where not null, the element
     * launch's split and the schedule and split of the p-MG levels below the fine one (the row then is an extra one, its
     * metrics keyed by them).
     */
    private record ProfileRow(DistributedOperator.Schedule schedule, boolean exchange, DistributedOperator.Split split,
                              DistributedOperator.Schedule coarse, DistributedOperator.Split coarseSplit) {

        /** A row beside the schedules' own (a split or a coarse schedule given). */
        boolean extra() {
            return split != null;
        }
    }

    /**
     * Stores {@code levels} in {@code ref[0]} (for the profile, from inside a resource declaration), sets the schedule of
     * its levels below the fine one where {@code schedule} is not null, and returns it.
     */
    private static DistributedLevels keep(DistributedLevels[] ref, DistributedLevels levels, DistributedOperator.Schedule schedule) {
        ref[0] = levels;
        if (schedule != null) {
            levels.coarseSchedule(schedule);
        }
        return levels;
    }

    /** Shared nodes (each once) per owned node: the surface-to-volume ratio of the rank's part. */
    static double surfaceToVolume(SharedNodes shared) {
        return shared.sharedNodeCount() / (double) Math.max(1, shared.ownedCount());
    }

    /**
     * The --profile table: the same number of CG iterations from x = 0 with the exchange overlapped, blocking, and
     * turned off (timing only: wrong at the shared nodes), the rows interleaved over {@link #PROFILE_ROUNDS} rounds, each
     * the best of its solves, in milliseconds per iteration (max over ranks). Restores the operator's schedule and
     * exchange.
     */
    private static String profile(Options o, Communicator comm, DistributedOperator dop, Preconditioner jacobi,
                                  DistributedLevels levels, DeviceVector b, Backend backend, int iterations,
                                  java.util.Map<String, Double> metrics) {
        StringBuilder out = new StringBuilder();
        DistributedOperator.Schedule keep = dop.schedule();
        int its = Math.max(1, iterations);
        out.append(String.format(Locale.ROOT, "profile: %d CG iterations, best of %d rounds (rows interleaved), ms per iteration (max over ranks)%n", its,
                PROFILE_ROUNDS));
        List<ProfileRow> runs = new ArrayList<>();
        for (DistributedOperator.Schedule s : DistributedOperator.Schedule.values()) {
            runs.add(new ProfileRow(s, true, null, null, null));
        }
        runs.add(new ProfileRow(keep, false, null, null, null));
        DistributedOperator.Split keepSplit = dop.split();
        for (DistributedOperator.Split sp : o.profileSplits) {
            runs.add(new ProfileRow(DistributedOperator.Schedule.OVERLAP, true, sp, null, null));
        }
        DistributedOperator.Schedule keepCoarse = levels == null ? null : levels.coarseSchedule();
        DistributedOperator.Split keepCoarseSplit = levels == null ? null : levels.coarseSplit();
        if (levels != null) {
            if (comm.size() > 1) {
                // p-multigrid: the levels below the fine one fused or blocking (their interiors are too small to hide
                // the exchange), the fine one as it is
                runs.add(new ProfileRow(DistributedOperator.Schedule.OVERLAP, true, keepSplit, DistributedOperator.Schedule.FUSED, null));
                runs.add(new ProfileRow(DistributedOperator.Schedule.OVERLAP, true, keepSplit, DistributedOperator.Schedule.BLOCKING,
                        null));
                // and overlapped with the other split: the one-queue split where the levels keep the fine level's, else
                // the fine level's (a second queue's launch is one launch more per apply)
                DistributedOperator.Split other = DistributedOperator.Split.SERIAL.equals(keepCoarseSplit)
                        ? keepSplit : DistributedOperator.Split.SERIAL;
                runs.add(new ProfileRow(DistributedOperator.Schedule.OVERLAP, true, keepSplit, DistributedOperator.Schedule.OVERLAP,
                        other));
            }
        }
        // one untimed solve first, so that no row carries the first solve's warm-up (the rows run in a fixed order)
        try (DeviceVector x = backend.allocate(b.length());
             ConjugateGradient cg = new ConjugateGradient(dop, jacobi).relativeTolerance(1e-300).maxIterations(its)) {
            comm.barrier();
            cg.solve(b, x);
        }
        // the rows interleaved: round r runs one solve of every row, so that no row gains from a later place in a
        // fixed order (in earlier runs on two GPUs the first rows were 5-15 % slower than the same schedule later)
        int n = runs.size();
        double[] bestOf = new double[n];
        java.util.Arrays.fill(bestOf, Double.MAX_VALUE);
        int[] doneOf = new int[n];
        long[][] countsOf = new long[n][3];
        boolean[] countedOf = new boolean[n];
        java.util.Arrays.fill(countedOf, true);
        boolean[] skipped = new boolean[n];
        for (int round = 0; round < PROFILE_ROUNDS; round++) {
            for (int i = 0; i < n; i++) {
                if (skipped[i]) {
                    continue;
                }
                ProfileRow run = runs.get(i);
                dop.split(run.split() != null ? run.split() : keepSplit);
                if (levels != null) {
                    levels.coarseSchedule(run.coarse() != null ? run.coarse() : keepCoarse);
                    levels.coarseSplit(run.coarseSplit() != null ? run.coarseSplit() : keepCoarseSplit);
                }
                try {
                    dop.schedule(run.schedule());
                } catch (IllegalArgumentException e) {
                    skipped[i] = true; // no element ranges on this backend
                    continue;
                }
                dop.exchange(run.exchange());
                long[] before = deviceCounts(backend);
                try (DeviceVector x = backend.allocate(b.length());
                     ConjugateGradient cg = new ConjugateGradient(dop, jacobi).relativeTolerance(1e-300).maxIterations(its)) {
                    comm.barrier();
                    SolveResult res = cg.solve(b, x);
                    doneOf[i] += res.iterations();
                    bestOf[i] = Math.min(bestOf[i], comm.allreduceMax(res.seconds()) / Math.max(1, res.iterations()));
                }
                long[] after = deviceCounts(backend);
                if (before == null || after == null) {
                    countedOf[i] = false;
                } else {
                    for (int k = 0; k < 3; k++) {
                        countsOf[i][k] += after[k] - before[k];
                    }
                }
            }
        }
        for (int i = 0; i < n; i++) {
            if (skipped[i]) {
                continue;
            }
            ProfileRow run = runs.get(i);
            DistributedOperator.Schedule s = run.schedule();
            boolean on = run.exchange();
            DistributedOperator.Split split = run.split() != null ? run.split() : keepSplit;
            DistributedOperator.Schedule coarseRow = run.coarse();
            DistributedOperator.Split coarseSplitRow = run.coarseSplit();
            double best = bestOf[i];
            int done = doneOf[i];
            String counts = "";
            // per iteration, max over ranks (the solve's setup, about one iteration's worth, spread over them); collective
            double[] per = new double[3];
            boolean counted = countedOf[i] && done > 0;
            for (int k = 0; k < 3 && counted; k++) {
                per[k] = countsOf[i][k] / (double) done;
            }
            for (int k = 0; k < 3; k++) {
                per[k] = comm.allreduceMax(counted ? per[k] : -1);
            }
            if (per[0] >= 0) {
                counts = String.format(Locale.ROOT, "  (per iteration, max over ranks: %.2f launches, %.2f queue drains, "
                        + "%.2f copy waits)", per[0], per[1], per[2]);
            }
            String splitName = (s == DistributedOperator.Schedule.OVERLAP && comm.size() > 1 ? " split " + split : "")
                    + (coarseRow != null ? ", coarse levels " + coarseRow.toString().toLowerCase(Locale.ROOT) : "")
                    + (coarseSplitRow != null ? " split " + coarseSplitRow : "");
            out.append(String.format(Locale.ROOT, "profile: schedule %-8s exchange %-3s %9.4f ms/iteration%s%s%n",
                    s.toString().toLowerCase(Locale.ROOT), on ? "on" : "off", 1e3 * best, counts, splitName));
            String key = s.toString().toLowerCase(Locale.ROOT) + (on ? "" : "_exchange_off")
                    + (run.extra() ? "_split_" + split.toString().replace(':', '_') : "")
                    + (coarseRow != null ? "_coarse_" + coarseRow.toString().toLowerCase(Locale.ROOT) : "")
                    + (coarseSplitRow != null ? "_" + coarseSplitRow.toString().replace(':', '_') : "");
            if (run.extra()) {
                // the splits' rows do not replace the schedule's own
                metrics.put("ms_" + key, 1e3 * best);
                if (per[0] >= 0) {
                    metrics.put("launches_" + key, per[0]);
                }
                continue;
            }
            metrics.put("ms_" + key, 1e3 * best);
            if (per[0] >= 0) {
                metrics.put("launches_" + key, per[0]);
            }
            if (s == keep && on) {
                metrics.put("ms_per_iteration", 1e3 * best);
                if (per[0] >= 0) {
                    metrics.put("launches_per_iteration", per[0]);
                }
            }
        }
        if (comm.size() == 1) {
            // one rank runs the same fused operator in every schedule: the best of them all
            double min = Double.MAX_VALUE;
            for (java.util.Map.Entry<String, Double> e : metrics.entrySet()) {
                if (e.getKey().startsWith("ms_") && !e.getKey().equals("ms_per_iteration")) {
                    min = Math.min(min, e.getValue());
                }
            }
            metrics.put("ms_per_iteration", min);
        }
        dop.exchange(true);
        dop.schedule(keep);
        dop.split(keepSplit);
        if (levels != null) {
            levels.coarseSchedule(keepCoarse);
            levels.coarseSplit(keepCoarseSplit);
        }
        kernelTimes(comm, dop, jacobi, b, backend, its, out, metrics);
        if (jacobi instanceof PMultigrid pm) {
            boolean ab = levels != null && comm.size() > 1;
            if (ab) {
                pathsAb(comm, dop, levels, pm, b, backend, its, out, metrics);
                // the levels of the old path first (labelled), then of the path as configured
                DistributedLevels.CoarseLink link = levels.coarseLink();
                boolean partial = levels.partialResidual();
                levels.coarseLink(DistributedLevels.CoarseLink.HOST).partialResidual(false);
                try {
                    levelTimes(comm, dop, levels, pm, b, backend, its, out, new java.util.LinkedHashMap<>(),
                            coarseName(levels), "(old path) ");
                } finally {
                    levels.coarseLink(link).partialResidual(partial);
                }
            }
            levelTimes(comm, dop, levels, pm, b, backend, its, out, metrics, levels == null ? "?" : coarseName(levels), "");
        }
        return out.toString();
    }

    /** The coarse solve and, for the redundant one, its link and the smoothed levels' residual, as the profile names them. */
    private static String coarseName(DistributedLevels levels) {
        return levels.coarse().toString().toLowerCase(Locale.ROOT)
                + (levels.coarse() == DistributedLevels.Coarse.REDUNDANT
                        ? ", link " + levels.coarseLink().toString().toLowerCase(Locale.ROOT) : "")
                + (levels.partialResidual() ? ", partial residual" : ", residual completed");
    }

    /**
     * The A/B of the p-MG paths on several ranks, interleaved in one process (old, new, new with the levels below the
     * fine one fused, and the device link of the owned entries with the partial residual; three rounds, the best of
     * each): the old path is the coarse link through the host ({@link DistributedLevels.CoarseLink#HOST}, two blocking
     * reads per V-cycle) and the residual completed before each restriction; the new one the partial coarse link
     * ({@link DistributedLevels.CoarseLink#PARTIAL}) and the partial residual ({@link DistributedLevels#partialResidual}).
     * Each row: ms per CG iteration (max over ranks) and, per iteration, launches, queue drains and copy waits (max over
     * ranks). Restores the levels' settings. Collective.
     */
    private static void pathsAb(Communicator comm, DistributedOperator dop, DistributedLevels levels, PMultigrid pm,
                                DeviceVector b, Backend backend, int its, StringBuilder out,
                                java.util.Map<String, Double> metrics) {
        DistributedLevels.CoarseLink keepLink = levels.coarseLink();
        boolean keepPartial = levels.partialResidual();
        DistributedOperator.Schedule keepSchedule = levels.coarseSchedule();
        String[] names = {"old", "new", "new_coarse_fused", "device_link"};
        String[] labels = {"old path (coarse link host, residual completed)", "new path (coarse link partial, partial residual)",
            "new path, levels below the fine one fused", "coarse link device (owned entries), partial residual"};
        DistributedLevels.CoarseLink[] links = {DistributedLevels.CoarseLink.HOST, DistributedLevels.CoarseLink.PARTIAL,
            DistributedLevels.CoarseLink.PARTIAL, DistributedLevels.CoarseLink.DEVICE};
        int variants = names.length;
        double[] best = new double[variants];
        java.util.Arrays.fill(best, Double.MAX_VALUE);
        double[][] counts = new double[variants][3];
        int[] done = new int[variants];
        try {
            for (int round = 0; round < 3; round++) {
                for (int v = 0; v < variants; v++) {
                    levels.coarseLink(links[v]).partialResidual(v != 0);
                    levels.coarseSchedule(v == 2 ? DistributedOperator.Schedule.FUSED : keepSchedule);
                    long[] before = deviceCounts(backend);
                    try (DeviceVector x = backend.allocate(b.length());
                         ConjugateGradient cg = new ConjugateGradient(dop, pm).relativeTolerance(1e-300).maxIterations(its)) {
                        comm.barrier();
                        SolveResult res = cg.solve(b, x);
                        best[v] = Math.min(best[v], comm.allreduceMax(res.seconds()) / Math.max(1, res.iterations()));
                        done[v] += res.iterations();
                    }
                    long[] after = deviceCounts(backend);
                    for (int k = 0; k < 3 && before != null && after != null; k++) {
                        counts[v][k] += after[k] - before[k];
                    }
                }
            }
        } finally {
            levels.coarseLink(keepLink).partialResidual(keepPartial);
            levels.coarseSchedule(keepSchedule);
        }
        for (int v = 0; v < variants; v++) {
            double[] per = new double[3];
            for (int k = 0; k < 3; k++) {
                per[k] = comm.allreduceMax(counts[v][k] / Math.max(1, done[v]));
            }
            metrics.put("ms_pmg_" + names[v], 1e3 * best[v]);
            out.append(String.format(Locale.ROOT, "profile: p-MG A/B %-53s %9.4f ms/iteration  (best of 3, interleaved; per "
                    + "iteration, max over ranks: %.2f launches, %.2f queue drains, %.2f copy waits)%n", labels[v], 1e3 * best[v],
                    per[0], per[1], per[2]));
        }
    }

    /**
     * The p-multigrid V-cycle's levels (degree, unknowns over all ranks, applies per cycle; the coarse Chebyshev
     * iterations) and each level's time per cycle, max over ranks, from one more solve of {@code its} iterations with
     * the levels timed ({@link PMultigrid#timeLevels}: the backend is synchronised at each level change, so the sum is a
     * little above the untimed cycle); before it, one untimed solve counts per V-cycle MPI's calls and the backend's
     * launches, queue drains and copy waits (where it counts them). Collective.
     */
    private static void levelTimes(Communicator comm, DistributedOperator dop, DistributedLevels dlevels, PMultigrid pm,
                                   DeviceVector b, Backend backend,
                                   int its, StringBuilder out, java.util.Map<String, Double> metrics, String coarseName,
                                   String label) {
        // first untimed (no synchronisation at the level changes): MPI's calls inside the V-cycles (halo exchanges,
        // allreduces, allgathers) and the backend's launches, queue drains and copy waits, counted around each cycle
        long[] calls = new long[6];
        MpiCommunicator mpi = comm instanceof MpiCommunicator m ? m : null;
        Preconditioner counted = new Preconditioner() {
            @Override
            public void apply(DeviceVector r, DeviceVector z) {
                long e = mpi == null ? 0 : mpi.exchangeCount(), a = mpi == null ? 0 : mpi.allreduceCount();
                long g = mpi == null ? 0 : mpi.allgatherCount();
                long[] d0 = deviceCounts(backend);
                pm.apply(r, z);
                long[] d1 = deviceCounts(backend);
                if (mpi != null) {
                    calls[0] += mpi.exchangeCount() - e;
                    calls[1] += mpi.allreduceCount() - a;
                    calls[2] += mpi.allgatherCount() - g;
                }
                for (int k = 0; d0 != null && d1 != null && k < 3; k++) {
                    calls[3 + k] += d1[k] - d0[k];
                }
            }

            @Override
            public boolean isVariable() {
                return pm.isVariable();
            }
        };
        long cycles0 = pm.cycles();
        // the host steps of each level's exchanges (waiting for the boundary copy, for MPI, queueing) and of the coarse link
        List<DistributedOperator> ops = new ArrayList<>();
        ops.add(dop);
        if (dlevels != null) {
            ops.addAll(dlevels.coarseOperators());
        }
        double[][] host0 = new double[ops.size()][];
        for (int k = 0; k < ops.size(); k++) {
            host0[k] = ops.get(k).exchangeSeconds();
        }
        double[] link0 = dlevels == null ? null : dlevels.coarseLinkSeconds();
        try (DeviceVector x = backend.allocate(b.length());
             ConjugateGradient cg = new ConjugateGradient(dop, counted).relativeTolerance(1e-300).maxIterations(its)) {
            comm.barrier();
            cg.solve(b, x);
        }
        double countedCycles = pm.cycles() - cycles0;
        double[][] host1 = new double[ops.size()][];
        for (int k = 0; k < ops.size(); k++) {
            host1[k] = ops.get(k).exchangeSeconds();
        }
        double[] link1 = dlevels == null ? null : dlevels.coarseLinkSeconds();
        pm.resetTimes();
        pm.timeLevels(true);
        try (DeviceVector x = backend.allocate(b.length());
             ConjugateGradient cg = new ConjugateGradient(dop, pm).relativeTolerance(1e-300).maxIterations(its)) {
            comm.barrier();
            cg.solve(b, x);
        } finally {
            pm.timeLevels(false);
        }
        List<PMultigrid.LevelInfo> levels = pm.levels();
        double total = 0;
        int h = 0;
        for (int l = 0; l < levels.size(); l++) {
            PMultigrid.LevelInfo i = levels.get(l);
            boolean coarsest = l == levels.size() - 1;
            // an h-level (N = 1 below N = 1) is named by its depth: "N =  1 h1", "h2", ...
            h += l > 0 && i.degree() == 1 && levels.get(l - 1).degree() == 1 ? 1 : 0;
            String hName = h > 0 && i.degree() == 1 ? "h" + h : "";
            double ms = comm.allreduceMax(1e3 * i.seconds() / Math.max(1, i.cycles()));
            long dofs = (long) comm.allreduceSum((double) i.dofs());
            long elements = (long) comm.allreduceSum((double) i.elements());
            total += ms;
            metrics.put("pmg_level_N" + i.degree() + (hName.isEmpty() ? "" : "_" + hName) + "_ms", ms);
            out.append(String.format(Locale.ROOT, "profile: p-MG " + label + "level N = %2d%-3s %9.4f ms per cycle  (%d applies per cycle%s; "
                    + "%d DOFs with shared nodes per rank summed, %d elements)%n", i.degree(), hName.isEmpty() ? "" : " " + hName, ms,
                    i.appliesPerCycle(), coarsest ? ", coarse Chebyshev of " + i.smootherOrder() + " iterations, " + i.smoother() : "",
                    dofs, elements));
        }
        if (countedCycles > 0) {
            double[] per = new double[6];
            for (int k = 0; k < 6; k++) {
                per[k] = comm.allreduceMax(calls[k] / countedCycles);
            }
            if (mpi != null) {
                metrics.put("pmg_exchanges_per_cycle", per[0]);
                metrics.put("pmg_allreduces_per_cycle", per[1]);
                metrics.put("pmg_allgathers_per_cycle", per[2]);
                out.append(String.format(Locale.ROOT, "profile: p-MG " + label + "MPI calls per V-cycle (max over ranks): %.2f halo exchanges, "
                        + "%.2f allreduces, %.2f allgathers (coarse solve %s)%n", per[0], per[1], per[2],
                        comm.size() == 1 ? "on one rank" : coarseName));
            }
            if (deviceCounts(backend) != null) {
                metrics.put("pmg_launches_per_cycle", per[3]);
                metrics.put("pmg_drains_per_cycle", per[4]);
                metrics.put("pmg_copy_waits_per_cycle", per[5]);
                out.append(String.format(Locale.ROOT, "profile: p-MG " + label + "device per V-cycle (max over ranks, untimed): %.2f launches, "
                        + "%.2f queue drains (blocking reads and finishes), %.2f copy waits (coarse solve %s)%n", per[3], per[4],
                        per[5], comm.size() == 1 ? "on one rank" : coarseName));
            }
        }
        if (countedCycles > 0 && comm.size() > 1) {
            // the host's share of each level's exchanges per V-cycle (max over ranks; the fine level's include CG's apply)
            for (int k = 0; k < ops.size(); k++) {
                double[] us = new double[3];
                for (int q = 0; q < 3; q++) {
                    us[q] = comm.allreduceMax(1e6 * (host1[k][q] - host0[k][q]) / countedCycles);
                }
                int degree = ops.get(k).localOperator().elementOperator().degree();
                int elements = ops.get(k).localOperator().elementOperator().elementCount();
                // the operators of the levels below the fine one in the order they were made: h-levels after N = 1
                boolean hLevel = k > 1 && degree == 1
                        && ops.get(k - 1).localOperator().elementOperator().degree() == 1;
                String key = "pmg_N" + degree + (hLevel ? "_e" + elements : "");
                metrics.put(key + "_read_wait_us", us[0]);
                metrics.put(key + "_mpi_wait_us", us[1]);
                out.append(String.format(Locale.ROOT, "profile: p-MG " + label + "exchanges of level N = %2d (%d elements on rank 0) per "
                        + "V-cycle (max over ranks, host, untimed%s): %.1f us waiting for the boundary copies, %.1f us for MPI, %.1f us "
                        + "queueing%n", degree, elements, k == 0 ? ", with CG's apply" : "", us[0], us[1], us[2]));
            }
            boolean linked = comm.allreduceMax(link0 != null && link1 != null ? 1 : 0) > 0;
            if (linked) {
                double[] us = new double[3];
                for (int q = 0; q < 3; q++) {
                    us[q] = comm.allreduceMax(link0 != null && link1 != null ? 1e6 * (link1[q] - link0[q]) / countedCycles : 0);
                }
                metrics.put("pmg_coarse_read_wait_us", us[0]);
                metrics.put("pmg_coarse_allgather_us", us[1]);
                metrics.put("pmg_coarse_link_other_us", us[2]);
                out.append(String.format(Locale.ROOT, "profile: p-MG " + label + "coarse link per V-cycle (max over ranks, host, untimed): "
                        + "%.1f us waiting for the owned right-hand side, %.1f us in the allgather, %.1f us queueing and the rest "
                        + "(%s)%n", us[0], us[1], us[2], coarseName));
            }
        }
        out.append(String.format(Locale.ROOT, "profile: p-MG " + label + "levels %.4f ms per cycle in all (levels timed: the backend "
                + "synchronised at each level change)%n", total));
        metrics.put("pmg_levels_ms", total);
    }

    /**
     * The device time per iteration of each kernel (OpenCL event profiling, the Aparapi backend's
     * {@code collectStatistics} and {@code statistics}, found by reflection) over one solve of {@code its} iterations in
     * the operator's schedule, max over ranks; the element kernels' sum goes to {@code metrics} as
     * {@code element_kernel_ms}. Nothing where the backend does not profile. Collective.
     */
    private static void kernelTimes(Communicator comm, DistributedOperator dop, Preconditioner jacobi, DeviceVector b,
                                    Backend backend, int its, StringBuilder out, java.util.Map<String, Double> metrics) {
        java.util.Map<String, double[]> ops = new java.util.TreeMap<>();
        boolean ok;
        try {
            java.lang.reflect.Method collect = backend.getClass().getMethod("collectStatistics", boolean.class);
            java.lang.reflect.Method stats = backend.getClass().getMethod("statistics");
            int done;
            collect.invoke(backend, true);
            try (DeviceVector x = backend.allocate(b.length());
                 ConjugateGradient cg = new ConjugateGradient(dop, jacobi).relativeTolerance(1e-300).maxIterations(its)) {
                comm.barrier();
                done = Math.max(1, cg.solve(b, x).iterations());
            }
            for (Object st : (List<?>) stats.invoke(backend)) {
                String op = (String) st.getClass().getMethod("op").invoke(st);
                long launches = (Long) st.getClass().getMethod("launches").invoke(st);
                long nanos = (Long) st.getClass().getMethod("kernelNanos").invoke(st);
                ops.put(op, new double[] {nanos * 1e-3 / done, launches / (double) done});
            }
            collect.invoke(backend, false);
            ok = true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            ok = false;
        }
        // every rank takes part in the same reductions: the ops of rank 0, in order, max over ranks
        if (comm.allreduceMax(ok ? 0 : 1) > 0) {
            return;
        }
        double elements = 0;
        for (java.util.Map.Entry<String, double[]> e : ops.entrySet()) {
            if (e.getKey().startsWith("BP")) {
                elements += e.getValue()[0];
            }
        }
        elements = comm.allreduceMax(elements);
        metrics.put("element_kernel_ms", elements / 1e3);
        for (java.util.Map.Entry<String, double[]> e : ops.entrySet()) {
            out.append(String.format(Locale.ROOT, "profile: kernel %-40s %9.2f us per iteration, %.2f launches (rank %d)%n",
                    e.getKey(), e.getValue()[0], e.getValue()[1], comm.rank()));
        }
        out.append(String.format(Locale.ROOT, "profile: element kernels %.2f us per iteration (max over ranks)%n", elements));
    }

    /**
     * The scaling model fitted from the one-rank profile of {@code --model} (its {@code ms_per_iteration},
     * {@code element_kernel_ms} and {@code launches_per_iteration}) and this run's network, partition and launches:
     * its prediction for this run beside the measurement, and, with {@code --model-curve}, the weak-scaling curve to
     * 1000 ranks as JSON.
     */
    static String fitModel(Options o, NetworkProbe net, java.util.Map<String, Double> metrics) {
        java.util.Map<String, Double> one = readJson(o.model);
        double t1 = one.getOrDefault("ms_per_iteration", Double.NaN) * 1e-3;
        double te = one.getOrDefault("element_kernel_ms", Double.NaN) * 1e-3;
        if (!(t1 > 0) || !(te > 0)) {
            throw new IllegalArgumentException("--model " + o.model + ": needs ms_per_iteration and element_kernel_ms of a "
                    + "one-rank --profile --profile-json run");
        }
        ScalingModel m = ScalingModel.fit(t1, te, net);
        int ranks = metrics.getOrDefault("ranks", 0.0).intValue();
        double extra = metrics.getOrDefault("launches_per_iteration", 0.0) - one.getOrDefault("launches_per_iteration", 0.0);
        double b = metrics.get("boundary_fraction");
        long shared = metrics.get("shared_nodes").longValue();
        long message = metrics.get("largest_message").longValue();
        double predicted = m.iterationSeconds(Math.max(2, ranks), b, shared, message, Math.max(0, extra));
        double measured = metrics.getOrDefault("ms_per_iteration", Double.NaN) * 1e-3;
        metrics.put("model_one_rank_ms", 1e3 * t1);
        metrics.put("model_element_kernel_ms", 1e3 * te);
        metrics.put("model_extra_launches", extra);
        metrics.put("model_ms", 1e3 * predicted);
        metrics.put("model_efficiency", t1 / predicted);
        metrics.put("measured_efficiency", t1 / measured);
        metrics.put("model_error", predicted / measured - 1);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "model: fitted from %s (1 rank %.4f ms, element kernels %.4f ms) and the "
                + "network above; boundary fraction %.4f, %d shared nodes, largest message %d, %.2f launches more%n", o.model,
                1e3 * t1, 1e3 * te, b, shared, message, extra));
        out.append(String.format(Locale.ROOT, "model: %d ranks predicted %.4f ms/iteration (%.1f %%), measured %.4f ms/iteration "
                + "(%.1f %%): prediction %+.1f %% of the measurement%n", ranks, 1e3 * predicted, 100 * t1 / predicted,
                1e3 * measured, 100 * t1 / measured, 100 * (predicted / measured - 1)));
        if (o.modelCurve != null) {
            int side = (int) Math.round(Math.cbrt(one.getOrDefault("elements_per_rank", 0.0)));
            int[] counts = {1, 2, 4, 8, 16, 32, 48, 64, 128, 256, 512, 1000};
            double[][] curve = m.cubeCurve(side, o.degree, Math.max(0, extra), counts);
            StringBuilder j = new StringBuilder();
            j.append("{\n  \"model\": \"ScalingModel.cubeCurve: ").append(side).append("^3 elements of N = ").append(o.degree)
                    .append(" per rank on a near-cubic grid of ranks, fitted on ").append(ranks).append(" ranks\",\n");
            j.append("  \"inputs\": {");
            String sep = "";
            for (java.util.Map.Entry<String, Double> e : metrics.entrySet()) {
                j.append(sep).append("\n    \"").append(e.getKey()).append("\": ").append(jsonNumber(e.getValue()));
                sep = ",";
            }
            j.append("\n  },\n  \"curve\": [");
            for (int i = 0; i < curve.length; i++) {
                j.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                        "\n    {\"gpus\": %d, \"ms_per_iteration\": %.5f, \"efficiency\": %.4f}", (int) curve[i][0],
                        1e3 * curve[i][1], curve[i][2]));
            }
            j.append("\n  ],\n  \"hipbone_published\": [\n    {\"gpus\": 48, \"hardware\": \"V100\", \"efficiency\": 0.897},"
                    + "\n    {\"gpus\": 64, \"hardware\": \"MI250X GCD\", \"efficiency\": 0.929}\n  ]\n}\n");
            try {
                java.nio.file.Files.writeString(java.nio.file.Path.of(o.modelCurve), j.toString());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("--model-curve " + o.modelCurve + ": " + e.getMessage(), e);
            }
            out.append("model: weak scaling (near-cubic grids of ").append(side).append("^3-element ranks):");
            for (double[] row : curve) {
                out.append(String.format(Locale.ROOT, " %d: %.1f %%", (int) row[0], 100 * row[2]));
            }
            out.append(String.format(Locale.ROOT, "; hipBone published 89.7 %% (48 V100), 92.9 %% (64 MI250X GCDs); curve in %s%n",
                    o.modelCurve));
        }
        return out.toString();
    }

    private static String jsonNumber(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.6g", v) : "null";
    }

    /** Writes {@code values} as one flat JSON object of numbers. */
    static void writeJson(String file, java.util.Map<String, Double> values) {
        StringBuilder j = new StringBuilder("{");
        String sep = "";
        for (java.util.Map.Entry<String, Double> e : values.entrySet()) {
            j.append(sep).append("\n  \"").append(e.getKey()).append("\": ").append(jsonNumber(e.getValue()));
            sep = ",";
        }
        j.append("\n}\n");
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of(file), j.toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("--profile-json " + file + ": " + e.getMessage(), e);
        }
    }

    /** The numbers of a flat JSON object as {@link #writeJson} writes it. */
    static java.util.Map<String, Double> readJson(String file) {
        String text;
        try {
            text = java.nio.file.Files.readString(java.nio.file.Path.of(file));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("--model " + file + ": " + e.getMessage(), e);
        }
        java.util.Map<String, Double> out = new java.util.LinkedHashMap<>();
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("\"([A-Za-z0-9_]+)\"\\s*:\\s*(-?[0-9.eE+-]+)").matcher(text);
        while (m.find()) {
            out.put(m.group(1), Double.parseDouble(m.group(2)));
        }
        return out;
    }

    /**
     * The backend's kernel launches, queue drains and copy waits so far where it counts them (the Aparapi backend's
     * {@code launches()} and {@code hostWaits()}, found by reflection: this module sees it only at run time), else null.
     */
    static long[] deviceCounts(Backend backend) {
        try {
            long launches = (Long) backend.getClass().getMethod("launches").invoke(backend);
            long[] waits = (long[]) backend.getClass().getMethod("hostWaits").invoke(backend);
            return new long[] {launches, waits[0], waits[1]};
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The p-multigrid schedule in one line: each level's degree and elements over all ranks (h-levels marked), the
     * coarsest level's solve (its Chebyshev iterations and, where it is solved whole on every rank, the whole problem's
     * unknowns); and, where auto made no h-levels because a part cannot be halved, why. Collective.
     */
    static String pmgSchedule(Communicator comm, PMultigrid pm, DistributedLevels levels) {
        List<PMultigrid.LevelInfo> infos = pm.levels();
        StringBuilder line = new StringBuilder("p-MG levels:");
        int h = 0;
        for (int l = 0; l < infos.size(); l++) {
            PMultigrid.LevelInfo i = infos.get(l);
            long elements = (long) comm.allreduceSum((double) i.elements());
            boolean hLevel = l > 0 && i.degree() == 1 && infos.get(l - 1).degree() == 1;
            h += hLevel ? 1 : 0;
            line.append(l == 0 ? " " : ", ").append(hLevel ? "h " : "").append("N = ").append(i.degree()).append(" (")
                    .append(elements).append(" elements)");
        }
        PMultigrid.LevelInfo c = infos.get(infos.size() - 1);
        line.append(String.format(Locale.ROOT, "; %d h-level(s); coarse solve: %d Chebyshev iterations, %s", h,
                c.smootherOrder(), c.smoother()));
        line.append(System.lineSeparator());
        String note = levels == null ? null : levels.hCoarseningNote();
        if (note != null) {
            line.append("p-MG: ").append(note).append(System.lineSeparator());
        }
        return line.toString();
    }

    /** The p-multigrid levels across ranks as the options say (coarse solve, its link, partial residuals). */
    private static DistributedLevels levels(Communicator comm, MeshPartition part, DistributedOperator dop, Options o) {
        DistributedLevels levels = new DistributedLevels(comm, part, dop, o.coarse).coarseLink(o.coarseLink)
                .hLevels(o.hLevels, o.gatherMax);
        return o.partialResidual == null ? levels : levels.partialResidual(o.partialResidual);
    }

    /** Open MPI's local rank (the rank's index among the ranks of its node), else the rank. */
    static int localRank(Communicator comm) {
        String local = System.getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        if (local != null && comm instanceof MpiCommunicator) {
            try {
                return Integer.parseInt(local.trim());
            } catch (NumberFormatException e) {
                return comm.rank();
            }
        }
        return comm.rank();
    }

    /**
     * The rank's backend: {@code name} (cpu, aparapi, or auto: the forced or best one) on device local rank mod the
     * device count ({@link Backends#forLocalRank}); the Java backend with {@code threads} threads. Synchronized: ranks
     * as threads of one JVM must not enumerate OpenCL devices concurrently (the ICD loader's first use is not
     * thread-safe: PoCL crashed there).
     */
    static synchronized Backend rankBackend(String name, int localRank, int threads) {
        String n = name.equals("auto") ? Backends.forcedName() : name;
        if ("cpu".equals(n)) {
            return new CpuBackend(threads);
        }
        Backend b = Backends.forLocalRank(n, localRank);
        if (b instanceof CpuBackend) {
            b.close();
            return new CpuBackend(threads);
        }
        return b;
    }

    private static double[] mpiSeconds(Communicator comm) {
        return comm instanceof MpiCommunicator mpi ? new double[]{mpi.exchangeSeconds(), mpi.allreduceSeconds()}
                : new double[2];
    }

    private static int defaultThreads() {
        int cores = Runtime.getRuntime().availableProcessors();
        String local = System.getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
        int perNode = 1;
        if (local != null) {
            try {
                perNode = Math.max(1, Integer.parseInt(local.trim()));
            } catch (NumberFormatException e) {
                perNode = 1;
            }
        }
        return Math.max(1, cores / perNode);
    }

    /**
     * This rank's sum over its elements' GL points of wJ (u_h - u)^2, u_h interpolated GLL -> GL by sum factorisation
     * (the main job's L2 error before the square root and the sum over ranks).
     */
    private static double l2ErrorSquared(SpectralElementMesh mesh, double[] uOrig, ScatterOperator zFull, GeometricFactors gl) {
        Basis1D basis = mesh.basis();
        int nq = basis.nq(), mq = basis.nqGauss(), np = basis.np(), mp = basis.npGauss();
        double[] a = basis.interpolation();
        double[] wJ = gl.jacobianWeights();
        double[] uL = new double[zFull.localSize()];
        zFull.scatter(zFull.toAssembled(uOrig), uL);
        double[] xyz = mesh.coordinates();
        double[] in = new double[np], out = new double[mp], w1 = new double[mq * nq * nq], w2 = new double[mq * mq * nq];
        double[][] c = new double[3][np];
        double[][] gc = new double[3][mp];
        double sum = 0;
        for (int e = 0; e < mesh.elementCount(); e++) {
            for (int n = 0; n < np; n++) {
                in[n] = uL[e * np + n];
                for (int d = 0; d < 3; d++) {
                    c[d][n] = xyz[3 * (e * np + n) + d];
                }
            }
            TensorInterpolation.interpolate(a, mq, nq, in, out, w1, w2);
            for (int d = 0; d < 3; d++) {
                TensorInterpolation.interpolate(a, mq, nq, c[d], gc[d], w1, w2);
            }
            for (int q = 0; q < mp; q++) {
                double exact = Math.sin(Math.PI * gc[0][q]) * Math.sin(Math.PI * gc[1][q]) * Math.sin(Math.PI * gc[2][q]);
                double d = out[q] - exact;
                sum += wJ[e * mp + q] * d * d;
            }
        }
        return sum;
    }

    /** The command line. */
    static final class Options {
        boolean quiet;
        int degree = 7;
        int[] elements = {6, 6, 6};
        double deform = 0.05;
        double lambda = 0;
        boolean jacobi = true;
        boolean pmg;
        double tol = 1e-10;
        int maxIterations = 5000;
        int threads;
        String comm = "auto";
        String backend = "auto";
        DistributedOperator.Schedule schedule;
        DistributedOperator.Split split;
        DistributedOperator.Schedule levelSchedule;
        DistributedLevels.Coarse coarse = DistributedLevels.Coarse.fromProperty();
        DistributedLevels.CoarseLink coarseLink = DistributedLevels.CoarseLink.fromProperty();
        Boolean partialResidual;
        int hLevels = DistributedLevels.parseHLevels(DistributedLevels.H_LEVELS_PROPERTY,
                System.getProperty(DistributedLevels.H_LEVELS_PROPERTY, "auto"));
        long gatherMax = DistributedLevels.parseGatherMax(DistributedLevels.GATHER_MAX_PROPERTY,
                System.getProperty(DistributedLevels.GATHER_MAX_PROPERTY, String.valueOf(DistributedLevels.DEFAULT_GATHER_MAX)));
        List<DistributedOperator.Split> profileSplits = List.of();
        boolean profile;
        String partition = "auto";
        String mesh;
        boolean measureNetwork;
        String profileJson;
        String model;
        String modelCurve;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--profile")) {
                    o.profile = true;
                    continue;
                }
                if (a.equals("--measure-network")) {
                    o.measureNetwork = true;
                    continue;
                }
                if (a.equals("-h") || a.equals("--help")) {
                    throw new IllegalArgumentException("usage: [-N 7] [-e 6,6,6] [--deform 0.05] [--lambda 0] [--pc jacobi|pmg|none] "
                            + "[--tol 1e-10] [--max-it 5000] [--threads T] [--comm auto|mpi|single|threads:K] [--backend auto|cpu|aparapi] [--schedule overlap|blocking|fused] "
                            + "[--split serial|alongside|alongside:K|alongside:all|first:K] [--profile-splits split,split,...] "
                            + "[--level-schedule overlap|blocking|fused] [--coarse redundant|local] [--coarse-link partial|device|host] [--partial-residual on|off] "
                            + "[--h-levels auto|K (h-levels below N = 1 across ranks; auto: until the whole coarse problem has at most "
                            + "--gather-max unknowns; 0: coarse level at N = 1)] [--gather-max 100000] "
                            + "[--partition auto|slabs|rcb] [--mesh file.msh] [--profile] [--profile-json file] [--measure-network] "
                            + "[--model one-rank-profile.json] [--model-curve curve.json]");
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value (or is unknown; --help lists the options)");
                }
                String v = args[++i];
                try {
                    switch (a) {
                        case "-N", "--degree" -> o.degree = Integer.parseInt(v);
                        case "-e", "--elements" -> o.elements = Arrays.stream(v.split(",")).mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                        case "--deform" -> o.deform = Double.parseDouble(v);
                        case "--lambda" -> o.lambda = Double.parseDouble(v);
                        case "--pc" -> o.jacobi = switch (v) {
                            case "jacobi" -> {
                                o.pmg = false;
                                yield true;
                            }
                            case "pmg" -> {
                                o.pmg = true;
                                yield false;
                            }
                            case "none" -> {
                                o.pmg = false;
                                yield false;
                            }
                            default -> throw new IllegalArgumentException("--pc " + v + ": the distributed solve supports jacobi, pmg and none");
                        };
                        case "--tol" -> o.tol = Double.parseDouble(v);
                        case "--max-it" -> o.maxIterations = Integer.parseInt(v);
                        case "--threads" -> o.threads = Integer.parseInt(v);
                        case "--comm" -> o.comm = v;
                        case "--partition" -> {
                            if (!v.equals("auto") && !v.equals("slabs") && !v.equals("rcb")) {
                                throw new IllegalArgumentException("--partition " + v + ": must be auto, slabs or rcb");
                            }
                            o.partition = v;
                        }
                        case "--mesh" -> o.mesh = v;
                        case "--profile-json" -> o.profileJson = v;
                        case "--split" -> o.split = DistributedOperator.Split.parse(v);
                        case "--level-schedule" -> o.levelSchedule = schedule("--level-schedule", v);
                        case "--coarse" -> o.coarse = switch (v) {
                            case "local" -> DistributedLevels.Coarse.LOCAL;
                            case "redundant" -> DistributedLevels.Coarse.REDUNDANT;
                            default -> throw new IllegalArgumentException("--coarse " + v + ": must be local or redundant");
                        };
                        case "--partial-residual" -> o.partialResidual = switch (v) {
                            case "on" -> true;
                            case "off" -> false;
                            default -> throw new IllegalArgumentException("--partial-residual " + v + ": must be on or off");
                        };
                        case "--coarse-link" -> o.coarseLink = switch (v) {
                            case "partial" -> DistributedLevels.CoarseLink.PARTIAL;
                            case "device" -> DistributedLevels.CoarseLink.DEVICE;
                            case "host" -> DistributedLevels.CoarseLink.HOST;
                            default -> throw new IllegalArgumentException("--coarse-link " + v + ": must be partial, device or host");
                        };
                        case "--h-levels" -> o.hLevels = DistributedLevels.parseHLevels("--h-levels", v);
                        case "--gather-max" -> o.gatherMax = DistributedLevels.parseGatherMax("--gather-max", v);
                        case "--profile-splits" -> {
                            List<DistributedOperator.Split> list = new ArrayList<>();
                            for (String sp : v.split(",")) {
                                list.add(DistributedOperator.Split.parse(sp));
                            }
                            o.profileSplits = List.copyOf(list);
                            o.profile = true;
                        }
                        case "--model" -> {
                            o.model = v;
                            o.measureNetwork = true;
                            o.profile = true;
                        }
                        case "--model-curve" -> o.modelCurve = v;
                        case "--backend" -> o.backend = v.toLowerCase(Locale.ROOT);
                        case "--schedule" -> o.schedule = schedule("--schedule", v);
                        default -> throw new IllegalArgumentException("unknown option " + a + " (--help lists the options)");
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(a + " " + v + ": not a number");
                }
            }
            if (o.elements.length != 3 || Arrays.stream(o.elements).anyMatch(n -> n < 1)) {
                throw new IllegalArgumentException("-e " + Arrays.toString(o.elements) + ": needs three element counts >= 1, as nx,ny,nz");
            }
            if (o.degree < 1 || o.degree > 15) {
                throw new IllegalArgumentException("-N " + o.degree + ": the degree must be in [1, 15]");
            }
            if (!(o.lambda >= 0)) {
                throw new IllegalArgumentException("--lambda " + o.lambda + ": must be >= 0");
            }
            if (!(o.tol > 0)) {
                throw new IllegalArgumentException("--tol " + o.tol + ": must be > 0");
            }
            if (o.threads < 0) {
                throw new IllegalArgumentException("--threads " + o.threads + ": must be >= 1 (0 = cores per rank)");
            }
            if (!o.comm.equals("auto") && !o.comm.equals("mpi") && !o.comm.equals("single") && !o.comm.matches("threads:[1-9][0-9]*")) {
                throw new IllegalArgumentException("--comm " + o.comm + ": must be auto, mpi, single or threads:K (K ranks as "
                        + "threads of this JVM, rank r on device r)");
            }
            return o;
        }

        private static DistributedOperator.Schedule schedule(String option, String v) {
            return switch (v) {
                case "overlap" -> DistributedOperator.Schedule.OVERLAP;
                case "blocking" -> DistributedOperator.Schedule.BLOCKING;
                case "fused" -> DistributedOperator.Schedule.FUSED;
                default -> throw new IllegalArgumentException(option + " " + v + ": must be overlap, blocking or fused");
            };
        }

        Communicator communicator() {
            boolean underMpirun = System.getenv("OMPI_COMM_WORLD_SIZE") != null;
            boolean mpi = comm.equals("mpi") || (comm.equals("auto") && underMpirun);
            return mpi ? MpiCommunicator.world() : SingleRankCommunicator.INSTANCE;
        }
    }
}
