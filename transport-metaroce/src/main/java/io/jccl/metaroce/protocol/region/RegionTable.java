package io.jccl.metaroce.protocol.region;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * Memory registered for remote WRITEs: key, bounds, permission. A key is a slot index plus a generation, so a
 * key that was deregistered stays invalid even after its slot is reused.
 */
public final class RegionTable {
    private static final int INDEX_BITS = 16;
    private static final int INDEX_MASK = (1 << INDEX_BITS) - 1;
    private MemorySegment[] segments = new MemorySegment[8];
    private boolean[] writable = new boolean[8];
    private int[] generations = new int[8];
    private int count;
    private int[] free = new int[8];
    private int freeCount;

    /**
     * @param memory         the memory
     * @param remoteWritable whether peers may write into it
     * @return the key
     */
    public int register(MemorySegment memory, boolean remoteWritable) {
        Objects.requireNonNull(memory, "memory");
        if (remoteWritable && memory.isReadOnly()) {
            throw new IllegalArgumentException("a read-only segment cannot be registered for remote writes");
        }
        int index;
        if (freeCount > 0) {
            index = free[--freeCount];
        } else {
            if (count == INDEX_MASK) {
                throw new IllegalStateException("too many regions (" + INDEX_MASK + ")");
            }
            index = count++;
            if (index == segments.length) {
                segments = Arrays.copyOf(segments, index * 2);
                writable = Arrays.copyOf(writable, index * 2);
                generations = Arrays.copyOf(generations, index * 2);
            }
        }
        segments[index] = memory;
        writable[index] = remoteWritable;
        generations[index] = (generations[index] + 1) & 0x7FFF;
        return generations[index] << INDEX_BITS | index;
    }

    /** @param key a key; unknown or stale keys are ignored */
    public void deregister(int key) {
        int index = key & INDEX_MASK;
        if (valid(key)) {
            segments[index] = null;
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, freeCount * 2);
            }
            free[freeCount++] = index;
        }
    }

    private boolean valid(int key) {
        int index = key & INDEX_MASK;
        return key >= 0 && index < count && segments[index] != null && generations[index] == key >>> INDEX_BITS;
    }

    /**
     * @param key a key from a packet
     * @return the region if the key is current and open for remote writes, else null
     */
    public MemorySegment writable(int key) {
        if (!valid(key)) {
            return null;
        }
        int index = key & INDEX_MASK;
        return writable[index] ? segments[index] : null;
    }
}
