package io.lobatto.backend.aparapi;

/**
 * Where the stored geometric factor of point q = a + P b + P^2 c of element e lies in its buffer. Element-major (block 0):
 * e P^3 + q, the order of the geometric data. Blocked by B elements, layer-major inside a block: ((e / B) P + c) B P^2 +
 * (e mod B) P^2 + a + P b, so that layer c of B consecutive elements is one contiguous run of B P^2 doubles. The pipelined
 * BP3.5 kernel loads one layer of its group's B elements per step; where P^2 is odd (even N) an element's layer is not a
 * whole number of 32-byte sectors, and element-major loads touched 1.4 sectors for every sector they used (Nsight Compute
 * on the H200 at N = 2: 55M of the kernel's 82M L2 sectors were factor loads, 16M of them excess). A buffer blocked by B
 * holds ceil(E / B) B P^3 doubles; the points of the last block's missing elements are never written nor read.
 */
final class FactorLayout {

    private FactorLayout() {
    }

    /**
     * The index of point {@code q} of element {@code e} with {@code p2} = P^2 points per layer and {@code p3} = P^3 per
     * element, blocked by {@code block} elements (0: element-major).
     */
    static long index(long e, int q, int p2, int p3, int block) {
        if (block <= 0) {
            return e * p3 + q;
        }
        long blk = e / block;
        int c = q / p2;
        return (blk * (p3 / p2) + c) * block * p2 + (e - blk * block) * p2 + (q - c * p2);
    }

    /** Doubles per factor of {@code elements} elements of {@code p3} points blocked by {@code block} (0: E P^3). */
    static long length(long elements, int p3, int block) {
        if (block <= 0) {
            return elements * p3;
        }
        return (elements + block - 1) / block * block * p3;
    }
}
