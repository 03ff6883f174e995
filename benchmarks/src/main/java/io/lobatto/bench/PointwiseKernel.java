package io.lobatto.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.lobatto.core.backend.ElementKernel;
import io.lobatto.core.basis.Basis1D;
import io.lobatto.core.pointwise.PointwiseFunction;
import io.lobatto.core.pointwise.PointwiseSetup;
import io.lobatto.core.pointwise.Quadrature;
import io.lobatto.operators.physics.Diffusion;
import io.lobatto.operators.physics.Mass;
import io.lobatto.operators.physics.ScreenedDiffusion;
import io.lobatto.operators.physics.VectorDiffusion;
import io.lobatto.operators.physics.VectorMass;

/**
 * The benchmark operators run through the general user-operator path (a built-in
 * {@link PointwiseFunction} through {@code Backend.applyPointwise}): the scalar ones beside the specialised
 * kernels of the same math (BK1/BP1 = mass on Gauss points, BK3/BP3 = screened diffusion on Gauss points,
 * BK5/BP5 = screened diffusion at the GLL nodes, lambda = 1 as in the specialised rows) and CEED's 3-component
 * BK2/BP2 (vector mass, Gauss), BK4/BP4 (vector diffusion, Gauss) and BK6/BP6 (vector diffusion, GLL).
 */
public enum PointwiseKernel {
    BK1_GENERAL("BK1-general", "BP1-general", ElementKernel.MASS_BP10, Quadrature.GAUSS),
    BK3_GENERAL("BK3-general", "BP3-general", ElementKernel.STIFFNESS_BP30, Quadrature.GAUSS),
    BK5_GENERAL("BK5-general", "BP5-general", ElementKernel.STIFFNESS_BP35, Quadrature.GLL),
    BK2("BK2", "BP2", null, Quadrature.GAUSS),
    BK4("BK4", "BP4", null, Quadrature.GAUSS),
    BK6("BK6", "BP6", null, Quadrature.GLL);

    private final String kernelName;
    private final String problemName;
    private final ElementKernel specialised;
    private final Quadrature quadrature;

    PointwiseKernel(String kernelName, String problemName, ElementKernel specialised, Quadrature quadrature) {
        this.kernelName = kernelName;
        this.problemName = problemName;
        this.specialised = specialised;
        this.quadrature = quadrature;
    }

    /** The bk row name: BK1-general, ..., BK6. */
    public String kernelName() {
        return kernelName;
    }

    /** The bp row name: BP1-general, ..., BP6. */
    public String problemName() {
        return problemName;
    }

    /** The specialised kernel of the same math, or null for the 3-component operators. */
    public ElementKernel specialised() {
        return specialised;
    }

    public Quadrature quadrature() {
        return quadrature;
    }

    /** A new instance of the pointwise function. */
    public PointwiseFunction function() {
        return switch (this) {
            case BK1_GENERAL -> new Mass();
            case BK3_GENERAL, BK5_GENERAL -> new ScreenedDiffusion();
            case BK2 -> new VectorMass();
            case BK4, BK6 -> new VectorDiffusion();
        };
    }

    /** The setup on a real mesh (bp): w|J|, G and lambda w|J| with lambda = 1, or G. */
    public PointwiseSetup setup() {
        return switch (this) {
            case BK1_GENERAL, BK2 -> Mass.setup();
            case BK3_GENERAL, BK5_GENERAL -> ScreenedDiffusion.setup(1.0);
            case BK4, BK6 -> Diffusion.setup();
        };
    }

    /** ncomp. */
    public int components() {
        return this == BK2 || this == BK4 || this == BK6 ? 3 : 1;
    }

    /** Doubles stored per quadrature point. */
    public int dataPerPoint() {
        return switch (this) {
            case BK1_GENERAL, BK2 -> 1;
            case BK3_GENERAL, BK5_GENERAL -> 7;
            case BK4, BK6 -> 6;
        };
    }

    /** Quadrature points per element at degree n. */
    public int pointsPerElement(int n) {
        return quadrature.pointsPerElement(Basis1D.of(n));
    }

    /** The constant by its bk name (BK1-general, bk2, ...) or null. */
    static PointwiseKernel byKernelName(String name) {
        for (PointwiseKernel k : values()) {
            if (k.kernelName.equalsIgnoreCase(name)) {
                return k;
            }
        }
        return null;
    }

    /** The constant by its bp name (BP5-general, bp4, ...) or null. */
    static PointwiseKernel byProblemName(String name) {
        for (PointwiseKernel k : values()) {
            if (k.problemName.equalsIgnoreCase(name)) {
                return k;
            }
        }
        return null;
    }

    /**
     * A selection of names from {@code all} (case-insensitive, in {@code all}'s order, "all" for every one),
     * checked: an unknown name throws an {@link IllegalArgumentException} naming the option and the known names.
     */
    static List<String> select(List<String> wanted, List<String> all, String option) {
        List<String> out = new ArrayList<>();
        for (String w : wanted) {
            if (w.strip().equalsIgnoreCase("all")) {
                return all;
            }
            if (all.stream().noneMatch(a -> a.equalsIgnoreCase(w.strip()))) {
                throw new IllegalArgumentException(option + ": unknown name '" + w + "'; known: " + String.join(", ", all) + ", all");
            }
        }
        for (String a : all) {
            if (wanted.stream().anyMatch(w -> w.strip().equalsIgnoreCase(a))) {
                out.add(a);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(option + " selects nothing; known: " + String.join(", ", all) + ", all");
        }
        return out;
    }

    @Override
    public String toString() {
        return kernelName.toLowerCase(Locale.ROOT);
    }
}
