package io.lobatto.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What clang's AMDGPU back end reports for one compiled kernel ({@code -Rpass-analysis=kernel-resource-usage}):
 * registers, spills, scratch, static LDS and the occupancy its registers allow.
 *
 * @param sgprs      scalar registers
 * @param vgprs      vector registers (arch)
 * @param agprs      accumulation registers (gfx90a and later; share the 512 per lane with the VGPRs)
 * @param scratch    scratch (private memory) bytes per lane: spills and private arrays
 * @param occupancy  waves per SIMD the registers and the kernel's flat work-group size allow
 * @param sgprSpill  SGPRs spilled
 * @param vgprSpill  VGPRs spilled (to scratch)
 * @param ldsStatic  LDS bytes per work-group the kernel declares itself (the backend's local memory is bound at launch)
 */
record AmdResourceUsage(int sgprs, int vgprs, int agprs, long scratch, int occupancy, int sgprSpill, int vgprSpill,
                        long ldsStatic) {

    private static final Pattern REMARK = Pattern.compile("remark:\\s+([A-Za-z][A-Za-z ]*?)(?: \\[[^\\]]*\\])?: (\\d+)");

    /** VGPRs a lane holds: arch and acc registers, each allocated in blocks of 4 (the acc block after the arch one). */
    int vgprsTotal() {
        return agprs == 0 ? vgprs : roundUp(vgprs, 4) + agprs;
    }

    /**
     * Whether the kernel uses scratch memory (spills or private arrays in memory). Spills alone need not: SGPRs spill
     * to lanes of spare VGPRs, and on gfx90a and later VGPRs spill to free AGPRs, an instruction each, no memory.
     */
    boolean usesScratch() {
        return scratch > 0;
    }

    /** The remarks of one kernel in clang's output; fails naming what is missing. */
    static AmdResourceUsage parse(String clangOutput) {
        Map<String, Long> v = new HashMap<>();
        Matcher m = REMARK.matcher(clangOutput);
        while (m.find()) {
            v.put(m.group(1).trim(), Long.parseLong(m.group(2)));
        }
        String[] need = {"SGPRs", "VGPRs", "AGPRs", "ScratchSize", "Occupancy", "SGPRs Spill", "VGPRs Spill", "LDS Size"};
        for (String k : need) {
            if (!v.containsKey(k)) {
                throw new IllegalStateException("clang reported no '" + k + "' (kernel-resource-usage remarks); its output:\n" + clangOutput);
            }
        }
        return new AmdResourceUsage(v.get("SGPRs").intValue(), v.get("VGPRs").intValue(), v.get("AGPRs").intValue(),
                v.get("ScratchSize"), v.get("Occupancy").intValue(), v.get("SGPRs Spill").intValue(),
                v.get("VGPRs Spill").intValue(), v.get("LDS Size"));
    }

    static long roundUp(long x, long to) {
        return (x + to - 1) / to * to;
    }

    private static int roundUp(int x, int to) {
        return (x + to - 1) / to * to;
    }
}
