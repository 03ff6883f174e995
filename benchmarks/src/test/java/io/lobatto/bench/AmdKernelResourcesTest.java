package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.core.backend.ElementKernel;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * No AMD GPU runs here, so: every kernel the aparapi backend would build on an MI200 (gfx90a), every family and N = 1..15 with the
 * work-groups and local memory the backend would choose there, compiles offline with clang; none spills to scratch
 * at N &lt;= 10; every launch fits the target's 64 KiB of LDS and 512 VGPRs per lane. Needs clang-15 and
 * rocm-device-libs: skips without them, unless {@code LOBATTO_REQUIRE_AMD_CLANG=1} (CI), which makes it fail.
 */
class AmdKernelResourcesTest {

    /** Degrees up to which no kernel may spill to scratch. */
    static final int NO_SPILL_UP_TO = 10;

    /** Skips without clang and the device libraries, or fails when CI requires them. */
    private static void requireClang() {
        String why = AmdClang.whyNot();
        if (why != null) {
            if ("1".equals(System.getenv("LOBATTO_REQUIRE_AMD_CLANG"))) {
                fail("LOBATTO_REQUIRE_AMD_CLANG=1 but " + why);
            }
            Assumptions.abort(why + " (set LOBATTO_REQUIRE_AMD_CLANG=1 to fail instead)");
        }
    }

    @Test
    void aKernelThatDoesNotCompileFailsWithClangsMessage() {
        requireClang();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> AmdClang.find().compile(
                "__kernel void run(__global double *x) { x[0] = undeclared; }", AmdTarget.GFX90A.cpu(), "broken"));
        assertTrue(e.getMessage().contains("kernel 'broken' does not compile for gfx90a")
                && e.getMessage().contains("use of undeclared identifier 'undeclared'"), e.getMessage());
    }

    @Test
    void everyKernelCompilesForGfx90aAndFits() {
        requireClang();
        List<Integer> all = IntStream.rangeClosed(1, AparapiBackend.MAX_DEGREE).boxed().toList();
        List<String> noPlan = new ArrayList<>();
        List<AmdKernelInfo.Row> rows = AmdKernelInfo.run(AmdClang.find(), AmdTarget.GFX90A, all, AmdTarget.LDS_BYTES,
                Runtime.getRuntime().availableProcessors(), noPlan);
        assertTrue(noPlan.isEmpty(), "no plan for " + noPlan);
        long elementRows = rows.stream().filter(r -> r.label().startsWith("BP")).count();
        assertEquals((long) ElementKernel.values().length * 3 * all.size(), elementRows, "one row per element kernel, mode and N");
        List<String> problems = new ArrayList<>();
        for (AmdKernelInfo.Row r : rows) {
            if (r.misfit() != null) {
                problems.add(r.misfit());
            }
            if (r.degree() <= NO_SPILL_UP_TO && r.usage().usesScratch()) {
                problems.add(r.label() + ": uses scratch on gfx90a (" + r.usage().scratch() + " bytes per lane, "
                        + r.usage().vgprSpill() + " VGPRs spilled; " + r.plan() + ") at N <= " + NO_SPILL_UP_TO);
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }
}
