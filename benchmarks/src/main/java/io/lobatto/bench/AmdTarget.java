package io.lobatto.bench;

import io.lobatto.backend.aparapi.KernelBuilds;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.solvers.PMultigrid;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An AMD GPU that kernel-info compiles for offline, with the limits its OpenCL runtime (ROCm) reports and
 * that the backend plans with: {@code CL_DEVICE_MAX_WORK_GROUP_SIZE} 1024 (ROCclr's setting),
 * {@code CL_DEVICE_LOCAL_MEM_SIZE} 64 KiB, and a built kernel's {@code CL_KERNEL_WORK_GROUP_SIZE}: its
 * {@code reqd_work_group_size}, else 256 (the flat work-group size the compiler gives an OpenCL kernel
 * without one, and budgets its registers for). CDNA2/CDNA3 compute units: 4 SIMDs, waves of 64, at most 8
 * waves per SIMD, 512 VGPRs per lane (arch + acc), 64 KiB of LDS shared by the groups on a CU.
 */
enum AmdTarget {
    /** MI200 (MI210, MI250X: hipBone's GPU). */
    GFX90A("amd-gfx90a", "gfx90a", "MI200 (MI250X)"),
    /** MI300 as clang 15 knows it (gfx942, the MI300X/A, needs clang 17 and ROCm 5.7+ device libraries). */
    GFX940("amd-gfx940", "gfx940", "MI300 (CDNA3)");

    /** {@code CL_DEVICE_MAX_WORK_GROUP_SIZE} of ROCm's OpenCL. */
    static final int MAX_WORK_GROUP = 1024;
    /** {@code CL_KERNEL_WORK_GROUP_SIZE} of a kernel built without {@code reqd_work_group_size}. */
    static final int DEFAULT_KERNEL_GROUP = 256;
    /** {@code CL_DEVICE_LOCAL_MEM_SIZE}: LDS per work-group, and per compute unit. */
    static final long LDS_BYTES = 65536;
    /** LDS is allocated to a work-group in blocks of this many bytes (128 dwords). */
    static final long LDS_GRANULE = 512;
    /** VGPRs per lane of one SIMD (256 arch + 256 acc on CDNA2/3). */
    static final int VGPRS_PER_LANE = 512;
    static final int WAVE = 64;
    static final int SIMDS_PER_CU = 4;
    static final int MAX_WAVES_PER_SIMD = 8;

    private static final Pattern REQD = Pattern.compile("reqd_work_group_size\\((\\d+),");

    private final String id;
    private final String cpu;
    private final String gpus;

    AmdTarget(String id, String cpu, String gpus) {
        this.id = id;
        this.cpu = cpu;
        this.gpus = gpus;
    }

    /** The name {@code --target} takes, e.g. "amd-gfx90a". */
    String id() {
        return id;
    }

    /** clang's {@code -mcpu}. */
    String cpu() {
        return cpu;
    }

    /** The GPUs of this target, in words. */
    String gpus() {
        return gpus;
    }

    /** The target named {@code id} ("amd-gfx90a"); the exception names the known ones. */
    static AmdTarget of(String id) {
        for (AmdTarget t : values()) {
            if (t.id.equals(id.toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw new IllegalArgumentException("--target " + id + " is not known; known targets: "
                + Arrays.stream(values()).map(AmdTarget::id).toList());
    }

    /**
     * What the backend builds on this target at each of {@code degrees}, chosen by the backend's own code
     * ({@link KernelBuilds}), each with its degree (0: the kernels that do not depend on N): the vector kernels, then
     * per N p-multigrid's transfer to N/2 (its default schedule) and the element kernels. With {@code localCap}
     * below 64 KiB, the plans of a backend made to plan for at most that much local memory per group (what a
     * kernel-variant table could choose for more groups per CU); an element kernel without a plan within it is
     * left out and named in {@code noPlan}.
     */
    List<Degree> builds(List<Integer> degrees, long localCap, List<String> noPlan) {
        long lds = Math.min(LDS_BYTES, localCap);
        List<Degree> out = new ArrayList<>();
        for (KernelBuilds.Build b : KernelBuilds.vectorKernels(MAX_WORK_GROUP, lds, AmdTarget::kernelGroup)) {
            out.add(new Degree(b, 0));
        }
        for (int n : degrees) {
            if (n > 1) {
                // p-multigrid's transfer to the next degree of its default schedule (N, N/2, ..., 1)
                for (KernelBuilds.Build b : KernelBuilds.transferKernels(PMultigrid.halving(n)[1], n, AmdTarget::kernelGroup)) {
                    out.add(new Degree(b, n));
                }
            }
            for (ElementKernel k : ElementKernel.values()) {
                try {
                    for (KernelBuilds.Build b : KernelBuilds.elementKernels(k, id, MAX_WORK_GROUP, lds, n, AmdTarget::kernelGroup)) {
                        out.add(new Degree(b, n));
                    }
                } catch (BackendException e) {
                    if (localCap >= LDS_BYTES) {
                        throw e;
                    }
                    noPlan.add(k + " N=" + n);
                }
            }
        }
        return out;
    }

    /**
     * A build with the degree it is for.
     *
     * @param build  the build
     * @param degree N, 0 for a kernel that does not depend on N
     */
    record Degree(KernelBuilds.Build build, int degree) {
    }

    /** {@code CL_KERNEL_WORK_GROUP_SIZE} of {@code source} on ROCm: its required group, else 256. */
    static int kernelGroup(KernelSource source) {
        Matcher m = REQD.matcher(source.source());
        return m.find() ? Integer.parseInt(m.group(1)) : DEFAULT_KERNEL_GROUP;
    }
}
