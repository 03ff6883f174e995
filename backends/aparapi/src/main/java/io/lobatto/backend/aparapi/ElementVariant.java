package io.lobatto.backend.aparapi;

import io.lobatto.core.backend.ElementKernel;

import java.util.Locale;

/**
 * The thread structure of an element kernel, chosen per operator and degree from a table measured on the
 * GPU (libParanumal's practice: kernels chosen by measurement). {@code -Dlobatto.aparapi.elementVariant}
 * ({@code shared}, {@code registers}, {@code pipelined} or {@code points}) overrides the table, for benchmarks that
 * compare them; {@code pipelined} exists for BP3.0 and BP3.5 (stored factors) and leaves BP1.0 to the table. For BP3.5 with the geometric
 * factors on the fly {@code -Dlobatto.aparapi.onTheFlyVariant} overrides {@link #onTheFlyTable}.
 */
enum ElementVariant {
    /**
     * The element's grid in local memory, one work-item per point (3D) or per (a,b) column looping over
     * the layers (2D): {@link io.lobatto.backend.aparapi.kernels.ElementKernelBase}.
     */
    SHARED,
    /**
     * Register columns and lines (tensor paper, BP3.5 Kernel 10 and BP1.0 Kernels 7-8):
     * {@link io.lobatto.backend.aparapi.kernels.RegisterKernelBase}.
     */
    REGISTERS,
    /**
     * BP3.0: the register columns with the GL grid itself as the layer the r- and s-derivatives read, two pairs of
     * flux layers (one barrier per layer where they fit), the next layer's factors loaded before the barrier, wJ not
     * read when lambda = 0, two columns per work-item where P^2 exceeds the group (N = 15, where BP3.0 has no register
     * plan): {@link io.lobatto.backend.aparapi.kernels.StiffnessBp30PipelinedKernel}. In the table where it measured faster.
     * BP3.5 (stored factors): the shared-memory columns with the t-grid and two pairs of flux layers in local memory, one
     * barrier per layer, the next layer's six factors loaded before the barrier, wJ not read when lambda = 0
     * ({@link io.lobatto.backend.aparapi.kernels.StiffnessBp35PipelinedKernel}; where it does not fit, N = 13 and above in
     * 48 KiB, the register plan). Not in the BP3.5 row of the table until measured.
     */
    PIPELINED,
    /**
     * The shared variant's 3D structure at every degree where the element's grids fit the local memory, not only while
     * P^3 fits the group: each work-item takes the points t, t + T, ... of its element (T = P^3 split into equal shares
     * of at most the group, rounded up to a warp of 32), so an element costs a few barriers, not a few per layer, and a
     * group of up to 256 work-items serves one element where the 2D structures run P^2 work-items through P layers
     * ({@link io.lobatto.backend.aparapi.kernels.ElementKernelBase} in 3D; {@link ElementPlan#points}); where it does not
     * fit, the shared plan. With the geometric factors on the fly,
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel} ({@link ElementPlan#trilinearPoints}),
     * in {@link #onTheFlyTable} at N = 5..9. In the BP3.5 row of {@link #table} at N = 6..9, where it measured
     * fastest; slower than the table for BP1.0 and BP3.0.
     */
    POINTS;

    /** The variant named by {@code -Dlobatto.aparapi.elementVariant}, or null for the table. */
    static ElementVariant override() {
        String v = System.getProperty("lobatto.aparapi.elementVariant");
        if (v == null || v.isBlank() || v.equalsIgnoreCase("table")) {
            return null;
        }
        try {
            return valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("lobatto.aparapi.elementVariant is '" + v
                    + "'; expected shared, registers, pipelined, points or table");
        }
    }

    /** System property that forces the thread structure of BP3.5 with the geometric factors on the fly. */
    static final String ON_THE_FLY_PROPERTY = "lobatto.aparapi.onTheFlyVariant";

    /**
     * The variant named by {@code -Dlobatto.aparapi.onTheFlyVariant} ({@code registers}, {@code shared}, {@code points} or
     * {@code table}), or null for {@link #onTheFlyTable}.
     */
    static ElementVariant onTheFlyOverride() {
        String v = System.getProperty(ON_THE_FLY_PROPERTY);
        if (v == null || v.isBlank() || v.equalsIgnoreCase("table")) {
            return null;
        }
        String name = v.trim().toUpperCase(Locale.ROOT);
        if (!name.equals(SHARED.name()) && !name.equals(REGISTERS.name()) && !name.equals(POINTS.name())) {
            throw new IllegalArgumentException(ON_THE_FLY_PROPERTY + " is '" + v
                    + "'; expected shared, registers, points or table");
        }
        return valueOf(name);
    }

    /**
     * The thread structure of BP3.5 with the geometric factors on the fly at {@code degree}: the override, else
     * {@link #onTheFlyTable}.
     */
    static ElementVariant onTheFly(int degree) {
        ElementVariant forced = onTheFlyOverride();
        return forced != null ? forced : onTheFlyTable(degree);
    }

    /**
     * The choice for BP3.5 with the geometric factors on the fly: {@link #REGISTERS} is
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearKernel} (register columns, 15 per-column Jacobian
     * constants), {@link #SHARED} is {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearSharedKernel} (the
     * grid and the map's 21 coefficients in local memory, 2D columns), {@link #POINTS} is
     * {@link io.lobatto.backend.aparapi.kernels.StiffnessBp35TrilinearPointsKernel} (one work-item per point). Measured in
     * one lease ({@code benchmarks/gpu/onfly26.sh} at a297613, H100, {@code op} BP5 apply at 8M DOFs in the default
     * operator form, the atomic one, GDOF/s registers / shared / points): N = 2 9.61 / 10.36 / 9.73, 3 16.05 / 17.01 /
     * 15.43, 4 17.79 / 17.11 / 15.79, 5 12.20 / 17.76 / 18.91, 6 12.22 / 18.61 / 18.80, 7 14.36 / 17.86 / 20.75,
     * 8 12.87 / 16.97 / 18.89, 9 12.43 / 15.40 / 21.39, 10 12.80 / 18.90 / 18.21 (kernel-info at N = 7: 155, 92 and 58
     * registers, the points kernel with its points strided; at ac4851e it takes 2 and 3 layers of a column per work-item
     * at N = 7 and 8, {@link ElementPlan#pointsPerColumn}). N = 1 and 11..15 are not measured: registers at 1, shared above 10 (where points does not fit 48 KiB;
     * from N = 13, where shared does not either, the register kernel runs). Index N = 1..15.
     */
    static ElementVariant onTheFlyTable(int degree) {
        //              N = 123456789012345
        String row =       "RSSRTTTTTSSSSSS";
        if (degree < 1 || degree > row.length()) {
            throw new IllegalArgumentException("degree is " + degree + "; the on-the-fly variant table covers N = 1.."
                    + row.length());
        }
        char c = row.charAt(degree - 1);
        return c == 'R' ? REGISTERS : c == 'T' ? POINTS : SHARED;
    }

    /**
     * The variant of {@code kernel} at {@code degree}: the override, else the measured table ({@link #PIPELINED} forced
     * applies to BP3.0 and BP3.5; BP1.0 keeps the table).
     */
    static ElementVariant of(ElementKernel kernel, int degree) {
        ElementVariant forced = forced(kernel);
        return forced != null ? forced : table(kernel, degree);
    }

    /** The override as it applies to {@code kernel}: null for the table, and for {@link #PIPELINED} on BP1.0. */
    private static ElementVariant forced(ElementKernel kernel) {
        ElementVariant v = override();
        return v == PIPELINED && kernel == ElementKernel.MASS_BP10 ? null : v;
    }

    /**
     * The variant of {@code kernel} at {@code degree} on the device named {@code device}: the override, else on an
     * AMD GPU (ROCm names its devices by their ISA, e.g. "gfx90a:sramecc+:xnack-") {@link #amdTable}, else the
     * measured table.
     */
    static ElementVariant of(ElementKernel kernel, int degree, String device) {
        ElementVariant forced = forced(kernel);
        if (forced != null) {
            return forced;
        }
        return device != null && device.toLowerCase(Locale.ROOT).contains("gfx") ? amdTable(kernel, degree) : table(kernel, degree);
    }

    /**
     * The choice on AMD GPUs (gfx90a, gfx940), predicted, not measured: no AMD GPU has run these kernels. From
     * {@code lobatto-bench kernel-info --target amd-gfx90a} with each variant forced (site page
     * amd.md): the shared variant where the register one would use scratch (BP1.0 N = 13-15, BP3.0 N = 13-14: 100-836
     * bytes per lane) or where it allows more waves per SIMD, from registers and LDS (e.g. BP3.5 N = 1-5: 7-8 against
     * 3-5); the register variant elsewhere, ties included (the H100 measured it faster). Index N = 1..15 as in
     * {@link #table}; BP3.0 at N = 15 has no register plan.
     */
    static ElementVariant amdTable(ElementKernel kernel, int degree) {
        String row = switch (kernel) {
            //                   N = 123456789012345
            case MASS_BP10 ->       "RSSSRRRRRSRRSSS";
            case STIFFNESS_BP30 ->  "SSSSRRRRRSRRSSS";
            case STIFFNESS_BP35 ->  "SSSSSRRRRRRRRRR";
        };
        if (degree < 1 || degree > row.length()) {
            throw new IllegalArgumentException("degree is " + degree + "; the AMD variant table covers N = 1.." + row.length());
        }
        return row.charAt(degree - 1) == 'R' ? REGISTERS : SHARED;
    }

    /**
     * The variant of {@code kernel} at {@code degree} on {@code device} for the element kernels' input mode {@code mode}
     * ({@link io.lobatto.backend.aparapi.kernels.ElementOperands#fromGlobal}): in the atomic modes on other than AMD
     * devices {@link #atomicTable}, else {@link #of(ElementKernel, int, String)}.
     */
    static ElementVariant of(ElementKernel kernel, int degree, String device, int mode) {
        ElementVariant v = of(kernel, degree, device);
        boolean amd = device != null && device.toLowerCase(Locale.ROOT).contains("gfx");
        if (mode < io.lobatto.backend.aparapi.kernels.ElementOperands.ATOMIC || forced(kernel) != null || amd) {
            return v;
        }
        return atomicTable(kernel, degree);
    }

    /**
     * The measured choice of the atomic form (the element kernel adding into y_G): {@link #table} but BP3.5 at N = 3 and 4,
     * where the shared variant measured faster there. {@code op} BP5 at 8M DOFs with the PTX form, the three variants
     * on one mesh, H100 ({@code benchmarks/gpu/atomic26.sh} with VARIANTS at 95eda39), apply GDOF/s registers / shared /
     * pipelined: N = 2 9.82 / 9.94 / 10.91, 3 12.86 / 14.29 / 12.69, 4 13.65 / 15.65 / 13.77, 5 13.60 / 17.92 / 14.62,
     * 6 15.07 / 14.19 / 15.81, 7 15.53 / 16.14 / 16.00 (CG's call 12.43 / 12.88 / 12.34; P kept: the two-kernel forms of
     * the V-cycle measured it faster), 8 14.74 / 14.89 / 15.14 (the atomic form is off there); BP3 at N = 5..8 as the
     * table (pipelined 9.76, 12.15, 11.21, 10.29 against at most 7.71, 8.89, 7.49, 8.33).
     */
    static ElementVariant atomicTable(ElementKernel kernel, int degree) {
        if (kernel == ElementKernel.STIFFNESS_BP35 && (degree == 3 || degree == 4)) {
            return SHARED;
        }
        return table(kernel, degree);
    }

    /**
     * The measured choice: the variant with the shorter median apply in {@code lobatto-bench bk} at 20M DOFs on
     * the H100, both variants of commit 24a3aac (the register kernels' line stages in compile-time rounds) run in one
     * lease on 2026-11-25 (site/.../nvidia-h100/variants/bk-{registers,shared}-24a3aac.json): BP1.0 registers at
     * every N (1.5-12x), BP3.0 registers but at N = 8 and 15, BP3.5 as the row shows (N = 1, 2 and 10 changed from the
     * 2026-11-23 table; at N = 1 and 10 the two are within 4%). Index N = 1..15; R =
     * {@link #REGISTERS}, S = {@link #SHARED}, P = {@link #PIPELINED}, T = {@link #POINTS}. BP3.0 at N = 15 does not fit the register variant.
     * BP3.0's P entries: {@code op} BP3 apply at 8M DOFs, the pipelined kernel against the previous row in one lease
     * ({@code benchmarks/gpu/bp30hi.sh} at 26b385d, H100), GDOF/s before / pipelined: N = 2 4.01 / 5.11, 3 5.62 / 6.25,
     * 6 8.21 / 11.12, 7 7.05 / 10.34, 8 7.87 / 8.65, 9 6.94 / 10.35, 11 8.25 / 9.97, 13 6.78 / 8.04, 14 7.79 / 9.58,
     * 15 2.33 / 4.75, and ({@code benchmarks/gpu/fill26.sh} at 787dca1) 4 6.64 / 8.42, 5 7.17 / 9.15; kept at 10
     * (10.22 / 10.23) and 12 (8.63 / 8.39); N = 1 not measured. BP3.5's P entries the same way
     * ({@code benchmarks/gpu/bp35pipe.sh} at 66b8844 and {@code fill26.sh} at 787dca1, {@code op} BP5): N = 2 8.64 / 9.03,
     * 6 12.65 / 14.02, 7 14.37 / 14.76, 10 12.13 / 15.45, 12 11.79 / 13.11; the previous row kept where it was faster
     * (1 4.10 / 3.54, 3, 4, 5 15.52 / 13.25, 8, 9, 11) or the pipelined kernel does not fit 48 KiB (13..15).
     * BP3.5's T entries ({@link #POINTS}): {@code op} BP5 at 8M DOFs, the previous row and the points kernel on one mesh,
     * both forms, H100 ({@code benchmarks/gpu/atomic26.sh} with VARIANTS=table,points at ee52204), GDOF/s previous / points,
     * two kernels and atomic: N = 6 14.03 / 15.30 and 15.74 / 17.26, 7 14.79 / 16.94 and 16.05 / 19.16, 8 14.50 / 15.67 and
     * 14.60 / 17.37, 9 14.22 / 15.45 and 15.74 / 17.13; kept at 10 (15.45 / 13.65 and 16.34 / 14.95). For BP1 and BP3 the
     * points kernel was slower at every N measured (2..9, {@code points26.sh} at 8d2ac98: e.g. BP3 N = 7 7.48 against
     * 11.21), so their rows keep no T.
     */
    static ElementVariant table(ElementKernel kernel, int degree) {
        String row = switch (kernel) {
            //                   N = 123456789012345
            case MASS_BP10 ->       "RRRRRRRRRRRRRRR";
            case STIFFNESS_BP30 ->  "RPPPPPPPPRPRPPP";
            case STIFFNESS_BP35 ->  "SPRRSTTTTPRPRSS";
        };
        if (degree < 1 || degree > row.length()) {
            throw new IllegalArgumentException("degree is " + degree + "; the variant table covers N = 1.." + row.length());
        }
        return switch (row.charAt(degree - 1)) {
            case 'R' -> REGISTERS;
            case 'P' -> PIPELINED;
            case 'T' -> POINTS;
            default -> SHARED;
        };
    }
}
