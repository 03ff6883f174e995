package io.lobatto.backend.aparapi;

import java.util.Map;
import java.util.TreeMap;

/**
 * First-fit allocator of windows [offset, offset + length) of one device pool, with coalescing free list.
 * Windows are aligned to {@link #ALIGN} entries (256 bytes for doubles) so that every vector starts on a
 * coalescing boundary. Not thread-safe; the backend serialises access.
 */
final class PoolAllocator {

    static final int ALIGN = 32;

    private final TreeMap<Integer, Integer> free = new TreeMap<>();
    private int capacity;

    PoolAllocator(int capacity) {
        this.capacity = capacity;
        free.put(0, capacity);
    }

    int capacity() {
        return capacity;
    }

    /** Length of the free window that ends at the pool's end (0 when the last entry is in use). */
    int freeTail() {
        Map.Entry<Integer, Integer> last = free.lastEntry();
        return last != null && last.getKey() + last.getValue() == capacity ? last.getValue() : 0;
    }

    static int aligned(int length) {
        long a = ((long) Math.max(length, 1) + ALIGN - 1) / ALIGN * ALIGN;
        if (a > Integer.MAX_VALUE - ALIGN) {
            throw new IllegalArgumentException("length " + length + " exceeds the 2^31 index limit of a device pool");
        }
        return (int) a;
    }

    /** Returns the offset of a free window of {@code length} entries, or -1 when none is large enough. */
    int allocate(int length) {
        int size = aligned(length);
        for (Map.Entry<Integer, Integer> f : free.entrySet()) {
            if (f.getValue() >= size) {
                int offset = f.getKey();
                free.remove(offset);
                if (f.getValue() > size) {
                    free.put(offset + size, f.getValue() - size);
                }
                return offset;
            }
        }
        return -1;
    }

    void release(int offset, int length) {
        int size = aligned(length);
        int start = offset;
        Map.Entry<Integer, Integer> before = free.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == offset) {
            start = before.getKey();
            size += before.getValue();
            free.remove(before.getKey());
        }
        Integer afterSize = free.get(offset + aligned(length));
        if (afterSize != null) {
            free.remove(offset + aligned(length));
            size += afterSize;
        }
        free.put(start, size);
    }

    /** Grows the pool to {@code newCapacity} entries (the new tail becomes free). */
    void grow(int newCapacity) {
        int oldCapacity = capacity;
        capacity = newCapacity;
        release(oldCapacity, newCapacity - oldCapacity);
    }

    /** Entries in use (allocated windows, alignment included). */
    long used() {
        long f = 0;
        for (int v : free.values()) {
            f += v;
        }
        return capacity - f;
    }
}
