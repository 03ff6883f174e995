package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.lobatto.backend.aparapi.kernels.StreamKernel;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.backend.aparapi.runtime.ProgramBundle;
import io.lobatto.backend.aparapi.runtime.ProgramCache;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceVector;

/**
 * Several kernels built as one program ({@link ProgramBundle}, {@link ProgramCache#buildAll}): the bundle's text keeps
 * each part's names apart, the backend's operations run from a bundle's kernels with the results of their own programs,
 * and a part that does not compile fails alone.
 */
class ProgramBundleTest {

    /** Every kernel the backend builds for N = 3, in one bundle: one entry per part, each part's macros undefined after it. */
    @Test
    void aBundleKeepsEachPartsNamesApart() {
        List<KernelSource> parts = new ArrayList<>();
        for (KernelBuilds.Build b : KernelBuilds.all("test-device", 256, 48 * 1024, 3, s -> 256)) {
            parts.add(b.source());
        }
        ProgramBundle bundle = ProgramBundle.of(parts);
        String text = bundle.source();
        assertEquals(parts.size(), bundle.entries().size());
        for (int i = 0; i < parts.size(); i++) {
            assertEquals(1, count(text, "void " + ProgramBundle.entry(i) + "("), "kernel " + i + " (" + parts.get(i).label() + ")");
            assertEquals(1, count(text, "typedef struct This_s_b" + i + "{"), "this-struct of part " + i);
        }
        assertFalse(text.contains("void run("), "a kernel kept the name run");
        assertEquals(parts.size(), count(text, "get_pass_id_b"), "get_pass_id defined once per part");
        // every macro a part defines is undefined before the next part
        Matcher d = Pattern.compile("(?m)^#define (LB_[A-Z0-9_]+)").matcher(text);
        while (d.find()) {
            int undef = text.indexOf("#undef " + d.group(1) + "\n", d.end());
            int nextPart = text.indexOf("\n// part ", d.end());
            assertTrue(undef > 0 && (nextPart < 0 || undef < nextPart), d.group(1) + " at " + d.start() + " is not undefined in its part");
        }
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> ProgramBundle.of(List.of()));
        assertTrue(empty.getMessage().contains("parts"), empty.getMessage());
    }

    /** fill, copy and axpby from one program give what their own programs give; the three are one program build, and none of them is built again alone. */
    @Test
    void theBackendsOperationsRunFromABundle() {
        Assumptions.assumeTrue(OpenClAvailability.available(), "no OpenCL device");
        try (AparapiBackend be = new AparapiBackend()) {
            ProgramCache programs = be.runtime().programs();
            programs.buildAll(List.of(KernelBuilds.stream(StreamKernel.FILL).source(), KernelBuilds.stream(StreamKernel.COPY).source(),
                    KernelBuilds.stream(StreamKernel.AXPBY).source()));
            // (the backend's work-group probes build on a thread of their own meanwhile: the log, not the counters, tells)
            List<ProgramCache.Build> bundles = programs.buildLog().stream().filter(b -> b.label().startsWith("bundle of 3: fill, copy, axpby"))
                    .toList();
            assertEquals(1, bundles.size(), "one program for the three kernels: " + programs.buildLog());
            assertEquals(3, bundles.get(0).kernels());
            int n = 1000;
            double[] a = new double[n];
            double[] expected = new double[n];
            for (int i = 0; i < n; i++) {
                a[i] = Math.sin(i);
                expected[i] = 0.5 * a[i] + 2.0 * 3.0;
            }
            try (DeviceVector x = be.upload(a); DeviceVector y = be.allocate(n); DeviceVector z = be.allocate(n)) {
                be.fill(y, 3.0);
                be.copy(x, z);
                be.axpby(0.5, z, 2.0, y);
                assertArrayEquals(expected, be.download(y), 0.0);
                assertArrayEquals(a, be.download(z), 0.0);
            }
            assertTrue(programs.buildLog().stream().noneMatch(b -> b.label().equals("fill") || b.label().equals("copy")
                    || b.label().equals("axpby")), "fill, copy or axpby built alone: " + programs.buildLog());
        }
    }

    /** A bundle with a part that does not compile: the others build, and the bad one throws its own build log. */
    @Test
    void aBrokenPartFailsAlone() {
        Assumptions.assumeTrue(OpenClAvailability.available(), "no OpenCL device");
        try (AparapiBackend be = new AparapiBackend()) {
            ProgramCache programs = be.runtime().programs();
            KernelSource broken = new KernelSource("broken-in-bundle",
                    "__kernel void run(__global double *x) { x[0] = no_such_symbol_in_bundle; }",
                    List.of(new KernelSource.Arg("x", KernelSource.Kind.GLOBAL_BUFFER)));
            programs.buildAll(List.of(KernelBuilds.stream(StreamKernel.PMUL).source(), broken));
            BackendException ex = assertThrows(BackendException.class, () -> programs.kernel(broken));
            assertTrue(ex.getMessage().contains("broken-in-bundle") && ex.getMessage().contains("no_such_symbol_in_bundle"),
                    ex.getMessage());
            try (DeviceVector x = be.upload(new double[] {1, 2, 3}); DeviceVector w = be.upload(new double[] {2, 2, 2});
                 DeviceVector y = be.allocate(3)) {
                be.pointwiseMultiply(w, x, y);
                assertArrayEquals(new double[] {2, 4, 6}, be.download(y), 0.0);
            }
        }
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
