package io.lobatto.bench;

import io.lobatto.operators.FactorStorage;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * One entry of the suites' {@code --geometry}: where BP5's geometric factors come from ({@link FactorStorage}) and, for
 * factors on the fly, which of the Aparapi backend's kernels computes them ({@code registers}: the register columns,
 * {@code shared}: the shared-memory layout, {@code points}: one work-item per point; none: the backend's table).
 * Written {@code stored}, {@code onthefly} or {@code onthefly:} and the kernel, so that one run times all of them on the same mesh, interleaved
 * per degree. The kernel is picked by {@code -Dlobatto.aparapi.onTheFlyVariant}, set only while the operator is bound.
 *
 * @param storage stored factors or factors on the fly
 * @param variant {@code registers}, {@code shared} or {@code points}, or null for the table (always null for stored factors)
 */
public record GeometryChoice(FactorStorage storage, String variant) {

    /** The Aparapi backend's property that forces the on-the-fly kernel. */
    static final String VARIANT_PROPERTY = "lobatto.aparapi.onTheFlyVariant";

    /** The on-the-fly kernels a choice may name. */
    private static final java.util.List<String> KERNELS = java.util.List.of("registers", "shared", "points");

    /** Stored factors. */
    public static final GeometryChoice STORED = new GeometryChoice(FactorStorage.STORED, null);

    public GeometryChoice {
        if (variant != null && storage != FactorStorage.ON_THE_FLY) {
            throw new IllegalArgumentException("geometry " + storage.label() + " has no kernel variant, got '" + variant + "'");
        }
        if (variant != null && !KERNELS.contains(variant)) {
            throw new IllegalArgumentException("on-the-fly variant is '" + variant + "'; expected registers, shared or points");
        }
    }

    /**
     * The entry named {@code value}: stored, onthefly, onthefly:registers, onthefly:shared or onthefly:points (any case).
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static GeometryChoice parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        int colon = v.indexOf(':');
        if (colon < 0) {
            return new GeometryChoice(FactorStorage.parse(v), null);
        }
        FactorStorage storage = FactorStorage.parse(v.substring(0, colon));
        String variant = v.substring(colon + 1);
        if (storage != FactorStorage.ON_THE_FLY || !KERNELS.contains(variant)) {
            throw new IllegalArgumentException("geometry is '" + value
                    + "'; expected stored, onthefly, onthefly:registers, onthefly:shared or onthefly:points");
        }
        return new GeometryChoice(storage, variant);
    }

    /** "stored", "onthefly" or "onthefly:shared", as the option is written and the JSON rows say. */
    public String label() {
        return variant == null ? storage.label() : storage.label() + ":" + variant;
    }

    /** The operator {@code bind} makes, bound with the on-the-fly variant forced when this entry names one. */
    public <T> T bind(Supplier<T> bind) {
        if (variant == null) {
            return bind.get();
        }
        String before = System.getProperty(VARIANT_PROPERTY);
        System.setProperty(VARIANT_PROPERTY, variant);
        try {
            return bind.get();
        } finally {
            if (before == null) {
                System.clearProperty(VARIANT_PROPERTY);
            } else {
                System.setProperty(VARIANT_PROPERTY, before);
            }
        }
    }
}
