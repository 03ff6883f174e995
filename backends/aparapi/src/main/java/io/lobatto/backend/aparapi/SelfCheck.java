package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.DeviceElementData;
import io.lobatto.core.backend.DeviceScatter;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;

import java.util.Locale;

/**
 * Runs every operation of the Aparapi backend on the selected OpenCL device against plain Java loops
 * ({@link HostReference}) and prints one PASS/FAIL line per check, then a few timings (wall time per call
 * and the device time from OpenCL event profiling). Exit status 1 on any failure. With {@code --onthefly} only
 * {@link #onTheFly} at N = 1..10: BP3.5 with the geometric factors on the fly, each kernel forced, against the stored
 * factors. With {@code --element-kernel} (e.g. {@code STIFFNESS_BP30}) only that element kernel's checks, at lambda = 0.9
 * and 0, so that a variant forced by {@code -Dlobatto.aparapi.elementVariant} is checked on the device in seconds.
 * Usage: {@code java io.lobatto.backend.aparapi.SelfCheck [device-selector] [--time] [--onthefly] [--element-kernel=KERNEL]}.
 */
public final class SelfCheck {

    private static int failures;

    private SelfCheck() {
    }

    public static void main(String[] args) {
        boolean time = false;
        boolean onlyOnTheFly = false;
        String selector = null;
        ElementKernel only = null;
        for (String a : args) {
            if (a.equals("--time")) {
                time = true;
            } else if (a.equals("--onthefly")) {
                onlyOnTheFly = true;
            } else if (a.startsWith("--element-kernel=")) {
                only = ElementKernel.valueOf(a.substring("--element-kernel=".length()).trim().toUpperCase(Locale.ROOT));
            } else {
                selector = a;
            }
        }
        if (only != null) {
            elementKernelOnly(selector, only);
            return;
        }
        System.out.println("OpenCL devices: " + OpenClDevices.describe(OpenClDevices.list()));
        try (AparapiBackend b = selector == null ? new AparapiBackend() : new AparapiBackend(selector)) {
            System.out.println("device: " + b.device() + "; reduction work-group " + b.reductionGroupSize());
            if (onlyOnTheFly) {
                for (int n = 1; n <= 10; n++) {
                    onTheFly(b, n);
                }
                System.out.println(failures == 0 ? "ALL PASS" : failures + " FAILURES");
                System.exit(failures == 0 ? 0 : 1);
            }
            streaming(b, 1_000_003);
            streaming(b, 17);
            gatherScatter(b, 3, 4, 3, 2, true);
            gatherScatter(b, 2, 3, 2, 2, false);
            for (int n = 1; n <= AparapiBackend.MAX_DEGREE; n++) {
                int e = n <= 6 ? 37 : (n <= 10 ? 5 : 2);
                for (ElementKernel k : ElementKernel.values()) {
                    elements(b, k, n, e);
                }
            }
            for (int n : new int[] {1, 2, 3, 5, 8, 15}) {
                assembled(b, ElementKernel.STIFFNESS_BP35, n, 1.3, 0.7);
                assembled(b, ElementKernel.STIFFNESS_BP30, n, 0.4, 0.0);
                assembled(b, ElementKernel.MASS_BP10, n, 0.0, 2.0);
            }
            for (int n : new int[] {1, 2, 5, 7, 8, 12}) {
                onTheFly(b, n);
            }
            noFallback(b);
            largeBuffers(b);
            System.out.println("launches " + b.launches() + "; kernels built " + b.builtKernels().size()
                    + " (compiled " + b.runtime().programs().compiled() + ", from the disk cache " + b.runtime().programs().loadedFromDisk() + ")");
            if (time) {
                timings(b);
            }
        }
        System.out.println(failures == 0 ? "ALL PASS" : failures + " FAILURES");
        System.exit(failures == 0 ? 0 : 1);
    }

    static void report(String what, double err, double tol) {
        boolean ok = err <= tol && !Double.isNaN(err);
        if (!ok) {
            failures++;
        }
        System.out.printf(Locale.ROOT, "%s %-60s rel.err %.2e%n", ok ? "PASS" : "FAIL", what, err);
    }

    static double scalarErr(double a, double b) {
        return Math.abs(a - b) / Math.max(1, Math.abs(b));
    }

    static void streaming(AparapiBackend b, int n) {
        double[] x = HostReference.random(n, 1), y = HostReference.random(n, 2), z = HostReference.random(n, 3), w = HostReference.random(n, 4);
        try (DeviceVector dx = b.upload(x); DeviceVector dy = b.upload(y); DeviceVector dz = b.upload(z); DeviceVector dw = b.upload(w);
             DeviceVector t = b.allocate(n)) {
            report("upload/download n=" + n, HostReference.relErr(b.download(dx), x), 0);
            report("allocate zeros n=" + n, HostReference.relErr(b.download(t), new double[n]), 0);
            b.fill(t, 2.5);
            double[] ref = new double[n];
            java.util.Arrays.fill(ref, 2.5);
            report("fill n=" + n, HostReference.relErr(b.download(t), ref), 0);
            b.copy(dx, t);
            report("copy n=" + n, HostReference.relErr(b.download(t), x), 0);
            b.axpby(0.3, dx, -1.7, t);
            for (int i = 0; i < n; i++) {
                ref[i] = 0.3 * x[i] - 1.7 * x[i];
            }
            report("axpby n=" + n, HostReference.relErr(b.download(t), ref), 1e-15);
            b.pointwiseMultiply(dx, dy, t);
            for (int i = 0; i < n; i++) {
                ref[i] = x[i] * y[i];
            }
            report("pointwiseMultiply n=" + n, HostReference.relErr(b.download(t), ref), 0);
            double d = 0, nn = 0;
            for (int i = 0; i < n; i++) {
                d += x[i] * y[i];
                nn += x[i] * x[i];
            }
            report("dot n=" + n, scalarErr(b.dot(dx, dy), d), 1e-12);
            double again = b.dot(dx, dy);
            report("dot deterministic n=" + n, again == b.dot(dx, dy) ? 0 : 1, 0);
            report("norm2 n=" + n, scalarErr(b.norm2(dx), nn), 1e-12);
            double rr = 0;
            double[] xr = new double[n], rref = new double[n];
            for (int i = 0; i < n; i++) {
                xr[i] = z[i] + 0.37 * x[i];
                rref[i] = w[i] - 0.37 * y[i];
                rr += rref[i] * rref[i];
            }
            double got = b.cgUpdate(0.37, dx, dy, dz, dw);
            report("cgUpdate r.r n=" + n, scalarErr(got, rr), 1e-12);
            report("cgUpdate x n=" + n, HostReference.relErr(b.download(dz), xr), 1e-15);
            report("cgUpdate r n=" + n, HostReference.relErr(b.download(dw), rref), 1e-15);
            // pcgUpdate (BS5 + Jacobi) continues from the updated z (x) and w (r), with diagonal y^2 + 0.5
            double[] diag = new double[n], zref = new double[n];
            double rr2 = 0, rz2 = 0;
            for (int i = 0; i < n; i++) {
                diag[i] = y[i] * y[i] + 0.5;
                xr[i] = xr[i] - 0.21 * x[i];
                rref[i] = rref[i] + 0.21 * y[i];
                zref[i] = diag[i] * rref[i];
                rr2 += rref[i] * rref[i];
                rz2 += rref[i] * zref[i];
            }
            double[] dots = new double[2];
            try (DeviceVector dd = b.upload(diag); DeviceVector dzz = b.allocate(n)) {
                b.pcgUpdate(-0.21, dx, dy, dz, dw, dd, dzz, dots);
                report("pcgUpdate r.r n=" + n, scalarErr(dots[0], rr2), 1e-12);
                report("pcgUpdate r.z n=" + n, scalarErr(dots[1], rz2), 1e-12);
                report("pcgUpdate x n=" + n, HostReference.relErr(b.download(dz), xr), 1e-14);
                report("pcgUpdate r n=" + n, HostReference.relErr(b.download(dw), rref), 1e-14);
                report("pcgUpdate z n=" + n, HostReference.relErr(b.download(dzz), zref), 1e-14);
            }
        }
    }

    static void gatherScatter(AparapiBackend b, int degree, int ex, int ey, int ez, boolean dirichlet) {
        HostReference.Mesh m = HostReference.boxMesh(degree, ex, ey, ez, dirichlet);
        int nl = m.scatterIds().length;
        double[] xg = HostReference.random(m.globalSize(), 5);
        double[] xl = HostReference.random(nl, 6);
        // blocks of ~50 rows given by the caller, and none (backend builds its own)
        int[] blocks = java.util.stream.IntStream.iterate(0, i -> i < m.globalSize(), i -> i + 50).toArray();
        blocks = java.util.Arrays.copyOf(blocks, blocks.length + 1);
        blocks[blocks.length - 1] = m.globalSize();
        for (int[] bs : new int[][] {blocks, new int[0]}) {
            try (DeviceScatter z = b.uploadScatter(m.scatterIds(), m.gatherStarts(), m.gatherIds(), bs, m.inverseDegree(), m.globalSize());
                 DeviceVector dxg = b.upload(xg); DeviceVector dxl = b.upload(xl);
                 DeviceVector outL = b.allocate(nl); DeviceVector outG = b.allocate(m.globalSize())) {
                String tag = " N=" + degree + " " + ex + "x" + ey + "x" + ez + (dirichlet ? " masked" : "") + (bs.length == 0 ? " own blocks" : " 50-row blocks");
                b.scatter(z, dxg, outL);
                report("scatter" + tag, HostReference.relErr(b.download(outL), HostReference.scatter(m.scatterIds(), xg)), 0);
                b.gather(z, dxl, outG);
                report("gather" + tag, HostReference.relErr(b.download(outG), HostReference.gather(m.scatterIds(), xl, m.globalSize())), 1e-15);
            }
        }
    }

    /** The checks of one element kernel (N = 1..15 element by element, the assembled operator), at lambda = 0.9 and 0. */
    private static void elementKernelOnly(String selector, ElementKernel k) {
        try (AparapiBackend b = selector == null ? new AparapiBackend() : new AparapiBackend(selector)) {
            System.out.println("device: " + b.device() + "; " + k + " only");
            for (double lambda : new double[] {0.9, 0}) {
                for (int n = 1; n <= AparapiBackend.MAX_DEGREE; n++) {
                    elements(b, k, n, n <= 6 ? 37 : (n <= 10 ? 5 : 2), lambda);
                }
                for (int n : new int[] {1, 2, 3, 5, 7, 8, 15}) {
                    assembled(b, k, n, lambda, 0.7);
                }
            }
        }
        System.out.println(failures == 0 ? "ALL PASS" : failures + " FAILURES");
        System.exit(failures == 0 ? 0 : 1);
    }

    static void elements(AparapiBackend b, ElementKernel k, int n, int e) {
        elements(b, k, n, e, 0.9);
    }

    static void elements(AparapiBackend b, ElementKernel k, int n, int e, double lambda) {
        Basis1D basis = Basis1D.of(n);
        double[] geo = HostReference.geometry(k, basis, e, 7 + n);
        double[] x = HostReference.random(e * basis.np(), 8 + n);
        double[] ref = HostReference.applyElements(k, basis, e, geo, lambda, x);
        try (DeviceElementData d = b.uploadElementData(k, basis, e, geo); DeviceVector dx = b.upload(x); DeviceVector dy = b.allocate(x.length)) {
            b.applyElements(d, lambda, dx, dy);
            report(b.plan(d) + ", E=" + e + (lambda != 0.9 ? ", lambda=" + lambda : ""),
                    HostReference.relErr(b.download(dy), ref), 1e-12);
        }
    }

    static void assembled(AparapiBackend b, ElementKernel k, int n, double lambda, double shift) {
        Basis1D basis = Basis1D.of(n);
        HostReference.Mesh m = HostReference.boxMesh(n, 2, 2, 1, true);
        int e = m.elements();
        double[] geo = HostReference.geometry(k, basis, e, 11 + n);
        double[] xg = HostReference.random(m.globalSize(), 12 + n);
        double[] xl = HostReference.scatter(m.scatterIds(), xg);
        double[] yl = HostReference.applyElements(k, basis, e, geo, lambda, xl);
        for (int i = 0; i < yl.length; i++) {
            yl[i] += shift * m.inverseDegree()[i] * xl[i];
        }
        double[] yg = HostReference.gather(m.scatterIds(), yl, m.globalSize());
        try (DeviceElementData d = b.uploadElementData(k, basis, e, geo);
             DeviceScatter z = b.uploadScatter(m.scatterIds(), m.gatherStarts(), m.gatherIds(), null, m.inverseDegree(), m.globalSize());
             DeviceVector dx = b.upload(xg); DeviceVector dyl = b.allocate(yl.length); DeviceVector dyg = b.allocate(m.globalSize())) {
            b.applyAssembled(d, z, lambda, shift, dx, dyl, dyg);
            report("assembled " + k + " N=" + n + " lambda=" + lambda + " shift=" + shift,
                    Math.max(HostReference.relErr(b.download(dyl), yl), HostReference.relErr(b.download(dyg), yg)), 1e-12);
            double xAx = 0;
            for (int i = 0; i < xg.length; i++) {
                xAx += xg[i] * yg[i];
            }
            b.fill(dyg, 0);
            double got = b.applyAssembledDot(d, z, lambda, shift, dx, dyl, dyg);
            report("assembled+dot " + k + " N=" + n + " x.Ax", scalarErr(got, xAx), 1e-12);
            report("assembled+dot " + k + " N=" + n + " y_G", HostReference.relErr(b.download(dyg), yg), 1e-12);
        }
        // one row per gather block: more blocks than reduction work-groups (strided gather + dot)
        int[] rows = java.util.stream.IntStream.rangeClosed(0, m.globalSize()).toArray();
        try (DeviceElementData d = b.uploadElementData(k, basis, e, geo);
             DeviceScatter z = b.uploadScatter(m.scatterIds(), m.gatherStarts(), m.gatherIds(), rows, m.inverseDegree(), m.globalSize());
             DeviceVector dx = b.upload(xg); DeviceVector dyl = b.allocate(yl.length); DeviceVector dyg = b.allocate(m.globalSize())) {
            double xAx = 0;
            for (int i = 0; i < xg.length; i++) {
                xAx += xg[i] * yg[i];
            }
            double got = b.applyAssembledDot(d, z, lambda, shift, dx, dyl, dyg);
            report("assembled+dot " + k + " N=" + n + " " + m.globalSize() + " one-row blocks", Math.max(scalarErr(got, xAx),
                    HostReference.relErr(b.download(dyg), yg)), 1e-12);
        }
    }

    /**
     * BP3.5 with the geometric factors on the fly at degree n on a perturbed trilinear box (5 x 3 x 2 elements to N = 6,
     * else 2 x 3 x 2: partly filled work-groups), each kernel forced by {@code -Dlobatto.aparapi.onTheFlyVariant}
     * (the register columns, the shared-memory layout and one work-item per point where they fit), against the stored factors of the same device to
     * 1e-12: the element apply (x_L), the fused operator with its dot (x_G through an identity Z, lambda and shift not 0)
     * and CG's p update folded into it. Unlike PoCL, which runs the work-items of a group one after the other between
     * barriers, a GPU shows a missing barrier here.
     */
    static void onTheFly(AparapiBackend b, int n) {
        Basis1D basis = Basis1D.of(n);
        io.lobatto.core.mesh.HexMesh box = io.lobatto.core.mesh.HexMesh.box(n <= 6 ? 5 : 2, 3, 2, 0, 1, 0, 2, 0, 1.5);
        double[] v = box.vertices().clone();
        for (int i = 0; i < v.length; i++) {
            v[i] += 0.04 * Math.sin(1.7 * i + n);
        }
        io.lobatto.core.mesh.HexMesh mesh = new io.lobatto.core.mesh.HexMesh(v, box.elements(), box.faceTags());
        int e = mesh.elementCount();
        int nl = e * basis.np();
        int[] ids = new int[nl];
        int[] starts = new int[nl + 1];
        double[] ones = new double[nl];
        for (int i = 0; i < nl; i++) {
            ids[i] = i;
            starts[i + 1] = i + 1;
            ones[i] = 1;
        }
        double[] x = HostReference.random(nl, 40 + n);
        double[] dir = HostReference.random(nl, 50 + n);
        double lambda = 0.7;
        double shift = 0.3;
        try (var g = b.uploadGeometry(io.lobatto.core.mesh.ElementGeometry.trilinear(mesh, null));
             DeviceElementData stored = b.uploadElementData(ElementKernel.STIFFNESS_BP35, basis, e,
                     b.geometricFactors(g, basis, io.lobatto.core.pointwise.Quadrature.GLL, 7));
             DeviceScatter z = b.uploadScatter(ids, starts, ids, null, ones, nl);
             DeviceVector dx = b.upload(x); DeviceVector dd = b.upload(dir); DeviceVector yl = b.allocate(nl);
             DeviceVector yg = b.allocate(nl); DeviceVector p = b.allocate(nl)) {
            b.applyElements(stored, lambda, dx, yl);
            double[] local = b.download(yl);
            double dot = b.applyAssembledDot(stored, z, lambda, shift, dx, yl, yg);
            double[] global = b.download(yg);
            b.copy(dx, p);
            double pap = b.applyAssembledDotUpdate(stored, z, lambda, shift, dd, 0.5, p, yl, yg);
            double[] update = b.download(yg);
            for (ElementVariant variant : new ElementVariant[] {ElementVariant.REGISTERS, ElementVariant.SHARED,
                    ElementVariant.POINTS}) {
                String name = variant.name().toLowerCase(Locale.ROOT);
                String before = System.getProperty(ElementVariant.ON_THE_FLY_PROPERTY);
                System.setProperty(ElementVariant.ON_THE_FLY_PROPERTY, name);
                DeviceElementData d;
                try {
                    d = b.elementDataOnTheFly(ElementKernel.STIFFNESS_BP35, basis, g);
                } finally {
                    if (before == null) {
                        System.clearProperty(ElementVariant.ON_THE_FLY_PROPERTY);
                    } else {
                        System.setProperty(ElementVariant.ON_THE_FLY_PROPERTY, before);
                    }
                }
                try (d) {
                    String plan = b.plan(d);
                    String what = "BP3.5 on the fly (" + name + ") N=" + n + " E=" + e;
                    if (!plan.contains(name + ", ")) {
                        System.out.println("  " + what + ": does not fit, the other kernel runs: " + plan);
                        continue;
                    }
                    b.applyElements(d, lambda, dx, yl);
                    report(what + " x_L", HostReference.relErr(b.download(yl), local), 1e-12);
                    report(what + " x_G + dot", Math.max(scalarErr(b.applyAssembledDot(d, z, lambda, shift, dx, yl, yg), dot),
                            HostReference.relErr(b.download(yg), global)), 1e-12);
                    b.copy(dx, p);
                    report(what + " p update + dot", Math.max(scalarErr(b.applyAssembledDotUpdate(d, z, lambda, shift, dd, 0.5,
                            p, yl, yg), pap), HostReference.relErr(b.download(yg), update)), 1e-12);
                }
            }
        }
    }

    /**
     * A launch with a work-group size the built kernel cannot take ends in a BackendException before
     * anything is enqueued, and the backend keeps working.
     */
    static void noFallback(AparapiBackend b) {
        io.lobatto.backend.aparapi.runtime.ClKernel k = b.builtKernels().values().iterator().next();
        String outcome;
        try {
            k.launch(1, k.workGroupSize() * 2);
            outcome = "no exception";
        } catch (io.lobatto.core.backend.BackendException ex) {
            outcome = "BackendException: " + ex.getMessage();
        }
        System.out.println("  no-fallback probe: " + outcome);
        report("no-fallback: an impossible launch throws BackendException", outcome.startsWith("BackendException") ? 0 : 1, 0);
        try (DeviceVector y = b.upload(new double[] {7})) {
            report("no-fallback: the backend keeps working", b.download(y)[0] == 7 ? 0 : 1, 0);
        }
    }

    /**
     * Vectors of more than 2^31 bytes (Aparapi's runtime capped every array there): fill, axpby, dot and a
     * download of 2^28 + 3 doubles, with exact expected values. Skipped when the device cannot hold them.
     */
    static void largeBuffers(AparapiBackend b) {
        int n = (1 << 28) + 3;
        long bytes = 8L * n;
        if (b.runtime().device().maxAllocBytes() < bytes || b.runtime().device().globalMemBytes() < 3 * bytes) {
            System.out.println("SKIP buffers above 2^31 bytes: " + b.runtime().device().name() + " allows "
                    + b.runtime().device().maxAllocBytes() + " bytes per buffer");
            return;
        }
        long held = b.runtime().bytesHeld();
        try (DeviceVector x = b.allocate(n); DeviceVector y = b.allocate(n)) {
            b.fill(x, 1);
            b.fill(y, 2);
            b.axpby(3, x, 0.5, y);
            double dot = b.dot(x, y);
            double[] host = b.download(y);
            double worst = 0;
            for (int i = 0; i < n; i += 4099) {
                worst = Math.max(worst, Math.abs(host[i] - 4));
            }
            worst = Math.max(worst, Math.abs(host[n - 1] - 4));
            report("vectors of " + bytes + " bytes (> 2^31): axpby entries", worst, 0);
            report("vectors of " + bytes + " bytes (> 2^31): dot = 4n", scalarErr(dot, 4.0 * n), 1e-15);
        }
        report("device memory back where it started after close", b.runtime().bytesHeld() == held ? 0 : 1, 0);
    }

    static void timings(AparapiBackend b) {
        int n = 1 << 24;
        System.out.println("timings (wall per call, pipelined; kernel = OpenCL profiled device time of one call):");
        try (DeviceVector x = b.allocate(n); DeviceVector y = b.allocate(n); DeviceVector z = b.allocate(n); DeviceVector w = b.allocate(n)) {
            b.fill(x, 1);
            b.fill(y, 2);
            time(b, "copy 16M (BS1)", 16.0 * n, () -> b.copy(x, y));
            time(b, "axpby 16M (BS2)", 24.0 * n, () -> b.axpby(1.0, x, 0.5, y));
            time(b, "dot 16M (BS4)", 16.0 * n, () -> b.dot(x, y));
            time(b, "cgUpdate 16M (BS5)", 48.0 * n, () -> b.cgUpdate(1e-3, x, y, z, w));
            try (DeviceVector d = b.allocate(n); DeviceVector u = b.allocate(n)) {
                double[] dots = new double[2];
                time(b, "pcgUpdate 16M (BS5 + Jacobi z = D r, r.r and r.z)", 64.0 * n,
                        () -> b.pcgUpdate(1e-3, x, y, z, w, d, u, dots));
            }
        }
        for (int deg : new int[] {3, 7, 11, 15}) {
            for (ElementKernel k : ElementKernel.values()) {
                Basis1D basis = Basis1D.of(deg);
                int e = Math.max(1, 8_000_000 / basis.npGauss() / 2);
                double[] geo = HostReference.geometry(k, basis, e, 3);
                try (DeviceElementData d = b.uploadElementData(k, basis, e, geo); DeviceVector x = b.allocate(e * basis.np());
                     DeviceVector y = b.allocate(e * basis.np())) {
                    b.fill(x, 1);
                    long bytes = 8L * e * (2L * basis.np() + (long) geo.length / e);
                    time(b, k + " N=" + deg + " E=" + e + " (" + b.plan(d) + ")", bytes, () -> b.applyElements(d, 1.0, x, y));
                }
            }
        }
    }

    static void time(AparapiBackend b, String what, double bytes, Runnable r) {
        r.run();
        int reps = 20;
        b.synchronize();
        long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            r.run();
        }
        b.synchronize();
        double wall = (System.nanoTime() - t0) / 1e3 / reps;
        b.collectStatistics(true);
        r.run();
        double kernel = b.statistics().stream().mapToDouble(LaunchStatistics::kernelMicrosPerLaunch).sum();
        b.collectStatistics(false);
        System.out.printf(Locale.ROOT, "  %-100s wall %9.1f us  kernel %9.1f us  %7.1f GB/s(kernel)%n", what, wall, kernel, bytes / kernel / 1e3);
    }
}
