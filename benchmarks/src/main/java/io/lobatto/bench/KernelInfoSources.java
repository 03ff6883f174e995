package io.lobatto.bench;

import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

import java.util.List;

/**
 * The OpenCL C the aparapi backend builds for one degree: every streaming, reduction and gather/scatter
 * kernel, and the element kernels of BP1.0, BP3.5, BP3.5 with the geometric factors on the fly (its three kernels:
 * register columns, shared memory and one work-item per point) and BP3.0 (local, assembled, assembled with CG's p update, and the one-kernel operator's
 * atomic forms of the last two: PTX on NVIDIA, else CAS), each as Aparapi translated it with its build constants, for
 * kernel-info's per-kernel build report.
 */
final class KernelInfoSources {

    private KernelInfoSources() {
    }

    static List<KernelSource> generated(String device, int degree) {
        return generated(device, degree, null);
    }

    /**
     * As {@link #generated(String, int)}, the element kernels only of the families whose name ("BP1.0", "BP3.5", "BP3.0")
     * {@code label} contains or is part of (null: all), so that kernel-info --label builds no other element kernel.
     */
    static List<KernelSource> generated(String device, int degree, String label) {
        try (AparapiBackend b = device == null ? new AparapiBackend() : new AparapiBackend(device)) {
            b.foldSearchDirection(true); // so that the p-update variants are built too
            Basis1D basis = Basis1D.of(degree);
            int e = 2;
            try (DeviceVector x = b.allocate(4); DeviceVector y = b.allocate(4); DeviceVector z = b.allocate(4);
                 DeviceVector w = b.allocate(4); DeviceVector d = b.allocate(4); DeviceVector u = b.allocate(4)) {
                b.fill(x, 1);
                b.copy(x, y);
                b.axpby(1, x, 1, y);
                b.pointwiseMultiply(x, y, z);
                b.dot(x, y);
                b.cgUpdate(1, x, y, z, w);
                b.pcgUpdate(1, x, y, z, w, d, u, new double[2]);
            }
            int[] ids = new int[e * basis.np()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = i;
            }
            int[] starts = new int[ids.length + 1];
            for (int i = 0; i <= ids.length; i++) {
                starts[i] = i;
            }
            double[] ones = new double[ids.length];
            java.util.Arrays.fill(ones, 1);
            try (var scatter = b.uploadScatter(ids, starts, ids, null, ones, ids.length);
                 DeviceVector xg = b.allocate(ids.length); DeviceVector yl = b.allocate(ids.length); DeviceVector yg = b.allocate(ids.length)) {
                b.scatter(scatter, xg, yl);
                b.gather(scatter, yl, yg);
                for (ElementKernel k : ElementKernel.values()) {
                    if (!wanted(k, label)) {
                        continue;
                    }
                    int p = k == ElementKernel.STIFFNESS_BP35 ? basis.nq() : basis.nqGauss();
                    double[] geo = new double[e * p * p * p * k.factorsPerPoint()];
                    try (DeviceElementData data = b.uploadElementData(k, basis, e, geo)) {
                        b.applyElements(data, 1, xg, yl);
                        b.applyAssembledDot(data, scatter, 1, 0, xg, yl, yg);
                        try (DeviceVector zg = b.allocate(ids.length)) {
                            b.applyAssembledDotUpdate(data, scatter, 1, 0, zg, 0.5, xg, yl, yg);
                            atomicForm(b, () -> {      // the one-kernel operator's element kernels, plain and with the p update
                                b.applyAssembled(data, scatter, 1, 0, xg, yl, yg);
                                b.applyAssembledDotUpdate(data, scatter, 1, 0, zg, 0.5, xg, yl, yg);
                            });
                        }
                    }
                }
                // BP3.5 with the geometric factors on the fly (two trilinear elements), in each of the backend's kernels
                // (the register columns, the shared-memory layout, one work-item per point; where one does not fit, another is
                // built twice)
                if (wanted(ElementKernel.STIFFNESS_BP35, label)) {
                    io.lobatto.core.mesh.ElementGeometry geometry = io.lobatto.core.mesh.ElementGeometry.trilinear(
                            io.lobatto.core.mesh.HexMesh.box(e, 1, 1, 0, 1, 0, 1, 0, 1), null);
                    for (String variant : List.of("registers", "shared", "points")) {
                        GeometryChoice choice = new GeometryChoice(io.lobatto.operators.FactorStorage.ON_THE_FLY, variant);
                        try (var g = b.uploadGeometry(geometry);
                             DeviceElementData data = choice.bind(() -> b.elementDataOnTheFly(ElementKernel.STIFFNESS_BP35, basis, g))) {
                            b.applyElements(data, 1, xg, yl);
                            b.applyAssembledDot(data, scatter, 1, 0, xg, yl, yg);
                            try (DeviceVector zg = b.allocate(ids.length)) {
                                b.applyAssembledDotUpdate(data, scatter, 1, 0, zg, 0.5, xg, yl, yg);
                            }
                        }
                    }
                }
            }
            b.synchronize();
            return b.builtSources();
        }
    }

    /**
     * Runs {@code calls} with the assembled operator's atomic form forced ({@link AparapiBackend#ATOMIC_OPERATOR_PROPERTY}):
     * NVIDIA's PTX form on an NVIDIA device, where {@code auto} takes it for large operators, else the CAS loop.
     */
    private static void atomicForm(AparapiBackend b, Runnable calls) {
        String before = System.getProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
        boolean nvidia = b.runtime().device().vendor().toLowerCase(java.util.Locale.ROOT).contains("nvidia");
        System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, nvidia ? "ptx" : "cas");
        try {
            calls.run();
        } finally {
            if (before == null) {
                System.clearProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY);
            } else {
                System.setProperty(AparapiBackend.ATOMIC_OPERATOR_PROPERTY, before);
            }
        }
    }

    /** Whether the element kernels of {@code k} are built for {@code label} (see {@link #generated(String, int, String)}). */
    static boolean wanted(ElementKernel k, String label) {
        String name = switch (k) {
            case MASS_BP10 -> "BP1.0";
            case STIFFNESS_BP35 -> "BP3.5";
            case STIFFNESS_BP30 -> "BP3.0";
        };
        return label == null || label.contains(name) || name.contains(label);
    }
}
