package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@link KernelBuilds#all} names exactly the kernels the backend builds when it runs every operation on a device
 * (so that the offline AMD compile checks what the runtime really builds, not a copy).
 */
class KernelBuildsTest {

    @Test
    void allIsWhatTheBackendBuildsForEveryOperation() {
        Assumptions.assumeTrue(OpenClAvailability.available(), "no OpenCL device");
        int degree = 3;
        try (AparapiBackend b = new AparapiBackend()) {
            b.foldSearchDirection(true);
            Basis1D basis = Basis1D.of(degree);
            int e = 2;
            int n = e * basis.np();
            try (DeviceVector x = b.allocate(n); DeviceVector y = b.allocate(n); DeviceVector z = b.allocate(n);
                 DeviceVector w = b.allocate(n); DeviceVector d = b.allocate(n); DeviceVector u = b.allocate(n)) {
                b.fill(x, 1);
                b.copy(x, y);
                b.axpby(1, x, 1, y);
                b.pointwiseMultiply(x, y, z);
                b.dot(x, y);
                b.cgUpdate(1, x, y, z, w);
                b.cgStep(1, 0.5, x, y, z, w);
                // CG's iteration on the device, after its apply: x updated, deferred, and for two steps
                b.cgStepOnDevice(d, 2, 1, 0.5, 0, false, x, y, z, w, new double[3]);
                b.cgStepOnDevice(d, 2, 1, 0.5, 0, true, x, y, z, w, new double[3]);
                b.cgStepOnDevice(d, 2, 1, 0.5, 0.25, false, x, y, z, w, new double[3]);
                queued(b, d, 2, x, y, z, w);
                b.pcgUpdate(1, x, y, z, w, d, u, new double[2]);
                b.chebyshevStep(0.5, 1, x, y, z, w, u);
                int big = BackendCore.SMALL_REDUCE_GROUPS * b.reductionGroupSize() + 1;   // the reductions' own group
                try (DeviceVector p = b.allocate(big); DeviceVector q = b.allocate(big); DeviceVector r = b.allocate(big);
                     DeviceVector t = b.allocate(big); DeviceVector v = b.allocate(big); DeviceVector o = b.allocate(big)) {
                    b.dot(p, q);
                    b.cgUpdate(1, p, q, r, t);
                    b.cgStep(1, 0.5, p, q, r, t);
                    b.cgStepOnDevice(v, 2, 1, 0.5, 0, false, p, q, r, t, new double[3]);
                    b.cgStepOnDevice(v, 2, 1, 0.5, 0, true, p, q, r, t, new double[3]);
                    b.cgStepOnDevice(v, 2, 1, 0.5, 0.25, false, p, q, r, t, new double[3]);
                    queued(b, v, big, p, q, r, t);   // partials enough for the two-stage sum
                    b.pcgUpdate(1, p, q, r, t, v, o, new double[2]);
                }
                int[] ids = new int[n];
                int[] starts = new int[n + 1];
                for (int i = 0; i <= n; i++) {
                    starts[i] = i;
                    if (i < n) {
                        ids[i] = i;
                    }
                }
                double[] ones = new double[n];
                Arrays.fill(ones, 1);
                try (DeviceScatter s = b.uploadScatter(ids, starts, ids, null, ones, n)) {
                    b.scatter(s, x, y);
                    b.gather(s, y, z);
                    try (io.lobatto.core.backend.DeviceHalo h = b.uploadHalo(new int[] {0}, new int[] {0, 2},
                            new int[] {-1, 0}, n, n)) {
                        b.sumHalo(h, x, y);
                    }
                    try (io.lobatto.core.backend.DeviceIntVector picks = b.upload(ids)) {
                        b.indexedGather(x, picks, y);
                    }
                    for (ElementKernel k : ElementKernel.values()) {
                        int p = k == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
                        try (DeviceElementData data = b.uploadElementData(k, basis, e, new double[e * p * p * p * k.factorsPerPoint()])) {
                            b.applyElements(data, 1, x, y);
                            b.applyAssembledDot(data, s, 1, 0, x, y, z);
                            b.applyAssembledDotUpdate(data, s, 1, 0, w, 0.5, x, y, z);
                            b.applyAssembledResidual(data, s, 1, 0, x, y, z, -1, w, 0, null);
                            b.applyAssembledResidual(data, s, 1, 0, x, y, z, -1, w, -0.5, d);
                            b.applyAssembledResidualChebyshev(data, s, 1, 0, x, y, z, w, 0.5, 0.25, d, u);
                        }
                    }
                }
            }
            b.synchronize();
            Set<String> built = b.builtSources().stream().map(KernelSource::source).collect(Collectors.toCollection(TreeSet::new));
            Set<String> listed = KernelBuilds.all(b.device().name(), b.runtime().device().maxWorkGroupSize(),
                            b.runtime().device().localMemBytes(), degree, s -> b.runtime().programs().kernel(s).workGroupSize())
                    .stream().map(x -> x.source().source()).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(labels(listed), labels(built));
            assertEquals(listed, built);
        }
    }

    /**
     * CG's iterations queued on the device over {@code count} partials, without their element kernel: x deferred, for two
     * steps, then updated.
     */
    private static void queued(AparapiBackend b, DeviceVector terms, int count, DeviceVector p, DeviceVector ap,
                               DeviceVector x, DeviceVector r) {
        b.queueCgEnd(terms, count, 1, true, 0.5, 1, 0, true, p, ap, x, r);
        b.queueCgEnd(terms, count, 2, false, 0, 0, 0, false, p, ap, x, r);
        b.queueCgEnd(terms, count, 3, false, 0, 0, 0, false, p, ap, x, r);
        for (int k = 1; k <= 3; k++) {
            b.awaitCgIteration(k, new double[3]);
        }
    }

    private static Set<String> labels(Set<String> sources) {
        return sources.stream().map(s -> s.lines().filter(l -> l.startsWith("// ")).findFirst().orElse("?"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * The start-up probe: on NVIDIA it tries 256 first (one build where the device allows it), elsewhere the largest
     * group; a build that allows fewer than asked is followed by one at the largest power of two it allowed. The
     * allowed groups stand for a device's CL_KERNEL_WORK_GROUP_SIZE answers.
     */
    @Test
    void theProbeStartsAt256OnNvidiaAndFollowsWhatABuildAllows() {
        assertEquals(256, KernelBuilds.probeStart("NVIDIA Corporation"));
        assertEquals(Integer.MAX_VALUE, KernelBuilds.probeStart("Advanced Micro Devices, Inc."));
        assertEquals(Integer.MAX_VALUE, KernelBuilds.probeStart("AuthenticAMD"));
        java.util.List<Integer> asked = new java.util.ArrayList<>();
        java.util.function.ToIntFunction<KernelBuilds.Spec> h100 = s -> {   // the H100's answers: 384 at 1024, all of 256
            int g = s.groupSize();
            asked.add(g);
            return g >= 1024 ? 384 : g;
        };
        long local = 48 * 1024;
        assertEquals(256, KernelBuilds.powerOfTwoGroup(io.lobatto.backend.aparapi.kernels.ReductionKernel.class, 1024, 256,
                local, h100));
        assertEquals(java.util.List.of(256), asked, "one build");
        asked.clear();
        assertEquals(256, KernelBuilds.powerOfTwoGroup(io.lobatto.backend.aparapi.kernels.ReductionKernel.class, 1024,
                Integer.MAX_VALUE, local, h100));
        assertEquals(java.util.List.of(1024, 256), asked, "1024, then the largest power of two it allowed");
        asked.clear();
        assertEquals(128, KernelBuilds.powerOfTwoGroup(io.lobatto.backend.aparapi.kernels.GatherScatterKernel.class, 1024, 256,
                local, s -> { asked.add(s.groupSize()); return 200; }));
        assertEquals(java.util.List.of(256, 128), asked, "a start that is too large still goes down");
    }
}
