package io.lobatto.operators;

/**
 * Where an element operator's kernel gets the geometric factors G = w |J| J^-1 J^-T and wJ at its points: from stored
 * arrays (computed once when the operator is bound; 7 doubles per node for BP3.5) or computed on every apply from the
 * element's 8 vertices (trilinear meshes only; 24 doubles per element), trading memory traffic for arithmetic. MFEM's
 * assembly levels are the model: the choice changes no result beyond round-off and no solver code.
 */
public enum FactorStorage {
    /** Factors computed at bind and read at every point of every apply. */
    STORED,
    /**
     * Factors computed in the kernel from the element's vertices ({@link io.lobatto.core.geometry.TrilinearFactors});
     * needs straight-sided trilinear elements (8 vertices, no point map). The Java backend computes them by the same
     * closed form at bind and stores them ({@link io.lobatto.core.backend.DeviceElementData#factorsOnTheFly()} says so).
     */
    ON_THE_FLY;

    /** The name used by the benchmarks' options and JSON: "stored" or "onthefly". */
    public String label() {
        return this == STORED ? "stored" : "onthefly";
    }

    /**
     * The storage named {@code name} ("stored" or "onthefly", any case; "on-the-fly" and "on_the_fly" too).
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static FactorStorage parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(java.util.Locale.ROOT).replace("-", "").replace("_", "");
        return switch (n) {
            case "stored" -> STORED;
            case "onthefly" -> ON_THE_FLY;
            default -> throw new IllegalArgumentException("geometry storage is '" + name + "'; expected stored or onthefly");
        };
    }
}
