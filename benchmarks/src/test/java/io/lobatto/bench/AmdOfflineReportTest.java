package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.backend.aparapi.KernelBuilds;
import io.lobatto.backend.aparapi.runtime.KernelSource;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** kernel-info --target without clang: reading clang's remarks, the occupancy model, the fit checks, the degree lists. */
class AmdOfflineReportTest {

    static final String REMARKS = """
            k.cl:2:1: remark: Function Name: run [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     SGPRs: 104 [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     VGPRs: 118 [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     AGPRs: 0 [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     ScratchSize [bytes/lane]: 0 [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     Occupancy [waves/SIMD]: 4 [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     SGPRs Spill: 14 [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     VGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]
            k.cl:2:1: remark:     LDS Size [bytes/block]: 0 [-Rpass-analysis=kernel-resource-usage]
            """;

    private static KernelBuilds.Build build(int group, long local) {
        return new KernelBuilds.Build(new KernelSource("BP3.0 N=10 (assembled)", "__kernel void run() {}", List.of()), group, local, "2D");
    }

    @Test
    void remarksAreRead() {
        AmdResourceUsage u = AmdResourceUsage.parse(REMARKS);
        assertEquals(new AmdResourceUsage(104, 118, 0, 0, 4, 14, 0, 0), u);
        assertFalse(u.usesScratch(), "SGPR spills to VGPR lanes are not scratch");
        assertTrue(new AmdResourceUsage(10, 10, 0, 16, 8, 0, 4, 0).usesScratch());
        assertFalse(new AmdResourceUsage(10, 256, 100, 0, 1, 0, 1, 0).usesScratch(), "a VGPR spilled to an AGPR is not scratch");
        assertEquals(128 + 8, new AmdResourceUsage(10, 126, 8, 0, 3, 0, 0, 0).vgprsTotal(), "acc registers after the arch block");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> AmdResourceUsage.parse("error: no remarks"));
        assertTrue(e.getMessage().contains("'SGPRs'"), e.getMessage());
    }

    @Test
    void localMemoryLimitsOccupancy() {
        AmdResourceUsage u = AmdResourceUsage.parse(REMARKS);
        // 32160 bytes: two groups of 144 (3 waves) per CU -> 6 waves on 4 SIMDs
        AmdKernelInfo.Row r = AmdKernelInfo.row(build(144, 32160), 10, u);
        assertEquals(1.5, r.waves(), 1e-12);
        assertEquals("LDS", r.limitedBy());
        assertNull(r.misfit());
        // no local memory: the registers' 4 waves
        assertEquals(4, AmdKernelInfo.row(build(256, 0), 10, u).waves(), 1e-12);
        assertEquals("registers", AmdKernelInfo.row(build(256, 0), 10, u).limitedBy());
        Map<String, Object> json = r.json();
        assertEquals(10, json.get("N"));
        assertEquals(32160L, json.get("LDS_bytes"));
    }

    @Test
    void misfitsAreNamed() {
        AmdResourceUsage u = AmdResourceUsage.parse(REMARKS);
        String lds = AmdKernelInfo.row(build(256, 65537), 10, u).misfit();
        assertTrue(lds != null && lds.contains("65537 bytes of LDS, above the target's 65536"), lds);
        AmdResourceUsage big = new AmdResourceUsage(10, 256, 0, 0, 1, 0, 0, 0);
        String regs = AmdKernelInfo.row(build(1024, 0), 0, big).misfit();
        assertTrue(regs != null && regs.contains("4 waves of 256 VGPRs on one SIMD, above its 512"), regs);
        assertNull(AmdKernelInfo.row(build(512, 0), 0, big).misfit(), "2 waves of 256 fit");
    }

    @Test
    void targetsAndTheirGroups() {
        assertEquals(AmdTarget.GFX90A, AmdTarget.of("amd-gfx90a"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AmdTarget.of("amd-gfx1100"));
        assertTrue(e.getMessage().contains("amd-gfx1100") && e.getMessage().contains("amd-gfx940"), e.getMessage());
        assertEquals(256, AmdTarget.kernelGroup(new KernelSource("x", "__kernel void run(int n) {}", List.of())));
        assertEquals(1024, AmdTarget.kernelGroup(new KernelSource("x",
                "__kernel __attribute__((reqd_work_group_size(1024, 1, 1))) void run(int n) {}", List.of())));
    }

    @Test
    void everyDegreeOfTheTargetIsPlanned() {
        List<String> noPlan = new java.util.ArrayList<>();
        List<AmdTarget.Degree> all = AmdTarget.GFX90A.builds(List.of(1, 7, 15), AmdTarget.LDS_BYTES, noPlan);
        assertTrue(noPlan.isEmpty(), noPlan.toString());
        // 29 vector kernels: fill, copy, axpby, pmul, the halo sum, the Chebyshev step, the indexed gather, 3 reductions,
        // CG's step (cgStep), its three forms for the iteration on the device and the step length there (cgAlpha), its
        // three forms for the iterations queued, their step length (r . r on the device), the end of each (cgBeta), the
        // first stage of long step-length sums (termSum),
        // 8 gather/scatter (the rows scatter, gather, gather+dot and gather+dot+update; the block gather+dot that sizes
        // the block group, the block gather+residual, its two-vector form and its Chebyshev step); per transfer pair the
        // six passes and the one kernel of any pass and degrees
        assertEquals(29 + 2 * 7 + 3 * 3 * 3, all.size(), "vector kernels, transfers at N = 7 and 15, element kernels");
        for (AmdTarget.Degree d : all) {
            assertTrue(d.build().localBytes() <= AmdTarget.LDS_BYTES, d.build().source().label());
            assertTrue(d.build().groupSize() <= AmdTarget.kernelGroup(d.build().source()), d.build().source().label());
        }
        AmdTarget.GFX90A.builds(List.of(15), 16384, noPlan);
        assertTrue(noPlan.contains("MASS_BP10 N=15"), noPlan.toString());
    }

    @Test
    void degreeLists() {
        assertEquals(List.of(7), DegreeList.parse("7", "-N", 15));
        assertEquals(List.of(1, 2, 3, 5), DegreeList.parse("1..3,5,2", "-N", 15));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DegreeList.parse("0..3", "-N", 15)).getMessage()
                .contains("-N 0..3 is out of range"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DegreeList.parse("seven", "-N", 15)).getMessage()
                .contains("-N seven is not a degree"));
    }

    @Test
    void nvidiaBuildLogIsRead() {
        Map<String, Object> row = NvidiaBuildLog.row("BP3.5 N=7", 7, List.of("build log:",
                "ptxas info    : Used 48 registers, 424 bytes cmem[0]",
                "    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads",
                "kernel run: work-group size 256, multiple 32, private 0 B, local 0 B"));
        assertEquals(48, row.get("registers"));
        assertEquals(8, row.get("spill_store_bytes"));
        assertEquals(12, row.get("spill_load_bytes"));
        assertEquals(256, row.get("kernel_work_group_size"));
        assertEquals(false, row.get("build_failed"));
    }
}
