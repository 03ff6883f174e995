package io.lobatto.bench;

import io.lobatto.backend.aparapi.KernelBuilds;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * kernel-info for an AMD GPU without one: every kernel the backend would build on the target (every family,
 * the degrees asked for, the work-groups and local memory the backend would choose there, from
 * {@link KernelBuilds}) compiled offline by clang ({@link AmdClang}), in parallel, with each kernel's
 * registers, spills, scratch, LDS and the occupancy its registers and its LDS allow together.
 */
final class AmdKernelInfo {

    /**
     * One compiled kernel at its launch.
     *
     * @param label      the kernel, e.g. "BP3.5 N=7 (assembled)"
     * @param degree     N of an element kernel, 0 for the kernels that do not depend on N
     * @param groupSize  work-items per group the backend launches
     * @param ldsBytes   LDS per group: bound at launch plus declared by the kernel
     * @param usage      clang's report
     * @param waves      waves per SIMD that registers and LDS allow together (may be below 1: SIMDs left idle)
     * @param limitedBy  "registers", "LDS" or "waves" (the 8-wave maximum)
     * @param plan       the backend's layout of the kernel's work
     */
    record Row(String label, int degree, int groupSize, long ldsBytes, AmdResourceUsage usage, double waves, String limitedBy,
               String plan) {

        /** Waves of one group on one SIMD. */
        int wavesPerSimdOfGroup() {
            int waves = (groupSize + AmdTarget.WAVE - 1) / AmdTarget.WAVE;
            return (waves + AmdTarget.SIMDS_PER_CU - 1) / AmdTarget.SIMDS_PER_CU;
        }

        /**
         * Why this launch cannot run on the target, or null: its LDS above 64 KiB, its VGPRs above 512 per lane, or
         * one group's waves on a SIMD needing more VGPRs than a SIMD has.
         */
        String misfit() {
            if (ldsBytes > AmdTarget.LDS_BYTES) {
                return label + ": groups of " + groupSize + " need " + ldsBytes + " bytes of LDS, above the target's "
                        + AmdTarget.LDS_BYTES;
            }
            int regs = usage.vgprsTotal();
            if ((long) regs * wavesPerSimdOfGroup() > AmdTarget.VGPRS_PER_LANE) {
                return label + ": groups of " + groupSize + " put " + wavesPerSimdOfGroup() + " waves of " + regs
                        + " VGPRs on one SIMD, above its " + AmdTarget.VGPRS_PER_LANE + " VGPRs per lane";
            }
            return null;
        }

        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kernel", label);
            m.put("N", degree == 0 ? null : degree);
            m.put("group", groupSize);
            m.put("VGPRs", usage.vgprs());
            m.put("AGPRs", usage.agprs());
            m.put("SGPRs", usage.sgprs());
            m.put("VGPR_spills", usage.vgprSpill());
            m.put("SGPR_spills", usage.sgprSpill());
            m.put("scratch_bytes_per_lane", usage.scratch());
            m.put("LDS_bytes", ldsBytes);
            m.put("occupancy_registers", usage.occupancy());
            m.put("occupancy_waves_per_SIMD", Math.round(waves * 100) / 100.0);
            m.put("limited_by", limitedBy);
            m.put("plan", plan);
            return m;
        }
    }

    private AmdKernelInfo() {
    }

    /**
     * Compiles every kernel the backend builds on {@code target} at each of {@code degrees} (planned for at most
     * {@code localCap} bytes of local memory per group, {@link AmdTarget#builds}) on {@code threads} threads, a
     * kernel that does not depend on N once; rows in build order, the N-independent kernels first. The first
     * kernel that does not compile fails the whole run with clang's message.
     */
    static List<Row> run(AmdClang clang, AmdTarget target, List<Integer> degrees, long localCap, int threads, List<String> noPlan) {
        Map<String, AmdTarget.Degree> unique = new LinkedHashMap<>();
        for (AmdTarget.Degree d : target.builds(degrees, localCap, noPlan)) {
            unique.putIfAbsent(d.build().source().label() + "\u0000" + d.build().source().source(), d);
        }
        List<AmdTarget.Degree> todo = new ArrayList<>(unique.values());
        // the slowest compiles (high N) first, so that the pool does not end on one long compile
        todo.sort((a, b) -> Integer.compare(b.degree(), a.degree()));
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            Map<AmdTarget.Degree, Future<AmdResourceUsage>> done = new LinkedHashMap<>();
            for (AmdTarget.Degree d : todo) {
                KernelBuilds.Build b = d.build();
                done.put(d, pool.submit(() -> clang.compile(b.source().source(), target.cpu(), b.source().label())));
            }
            List<Row> rows = new ArrayList<>();
            for (AmdTarget.Degree d : unique.values()) {
                rows.add(row(d.build(), d.degree(), get(done.get(d))));
            }
            return rows;
        } finally {
            pool.shutdownNow();
        }
    }

    private static AmdResourceUsage get(Future<AmdResourceUsage> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The row of one build: the occupancy of its registers and of its LDS, the smaller one. */
    static Row row(KernelBuilds.Build b, int degree, AmdResourceUsage u) {
        long lds = b.localBytes() + u.ldsStatic();
        int wavesPerGroup = (b.groupSize() + AmdTarget.WAVE - 1) / AmdTarget.WAVE;
        double byLds = lds == 0 ? Double.MAX_VALUE
                : (double) (AmdTarget.LDS_BYTES / AmdResourceUsage.roundUp(lds, AmdTarget.LDS_GRANULE)) * wavesPerGroup
                / AmdTarget.SIMDS_PER_CU;
        double waves = Math.min(AmdTarget.MAX_WAVES_PER_SIMD, Math.min(u.occupancy(), byLds));
        String by = waves == AmdTarget.MAX_WAVES_PER_SIMD ? "waves" : byLds < u.occupancy() ? "LDS" : "registers";
        return new Row(b.source().label(), degree, b.groupSize(), lds, u, waves, by, b.plan());
    }

    /** The terminal table. */
    static void print(List<Row> rows, PrintStream out) {
        out.printf(Locale.ROOT, "%-32s %3s %5s %5s %5s %5s %6s %6s %8s %7s %6s  %s%n", "kernel", "N", "group", "VGPR", "AGPR", "SGPR",
                "VGPR s", "SGPR s", "scratch", "LDS", "waves", "limited by");
        for (Row r : rows) {
            AmdResourceUsage u = r.usage();
            out.printf(Locale.ROOT, "%-32s %3s %5d %5d %5d %5d %6d %6d %8d %7d %6.2f  %s%n", r.label(), r.degree() == 0 ? "-" : r.degree(),
                    r.groupSize(), u.vgprs(), u.agprs(), u.sgprs(), u.vgprSpill(), u.sgprSpill(), u.scratch(), r.ldsBytes(), r.waves(),
                    r.limitedBy());
        }
    }

    /** Writes {@code <prefix>.json} (metadata and rows) and {@code <prefix>.csv}. */
    static void write(List<Row> rows, Map<String, Object> meta, Path prefix) throws IOException {
        Path dir = prefix.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        List<Map<String, Object>> json = rows.stream().map(Row::json).toList();
        Map<String, Object> all = new LinkedHashMap<>(meta);
        all.put("rows", json);
        Files.writeString(Path.of(prefix + ".json"), Json.write(all), StandardCharsets.UTF_8);
        Report.writeCsv(Path.of(prefix + ".csv"), new ArrayList<>(json.get(0).keySet()), json);
    }
}
