package io.jccl.metaroce.protocol.region;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * Memory registered for remote WRITEs, or a {@link RegionSink} standing for memory: key, bounds, permission. A key
 * is a slot index plus a generation, so a key that was deregistered stays invalid even after its slot is reused.
 */
public final class RegionTable {
    private static final int INDEX_BITS = 16;
    private static final int INDEX_MASK = (1 << INDEX_BITS) - 1;
    private MemorySegment[] segments = new MemorySegment[8];
    private RegionSink[] sinks = new RegionSink[8];
    private long[] sizes = new long[8];
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
        return add(memory, null, memory.byteSize(), remoteWritable);
    }

    /**
     * Registers a sink that takes what peers write into a region of {@code sizeBytes}, open for remote writes.
     *
     * @param sizeBytes the region's size
     * @param sink      takes each placed payload
     * @return the key
     */
    public int registerSink(long sizeBytes, RegionSink sink) {
        Objects.requireNonNull(sink, "sink");
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("sizeBytes=" + sizeBytes + " is negative");
        }
        return add(null, sink, sizeBytes, true);
    }

    private int add(MemorySegment memory, RegionSink sink, long sizeBytes, boolean remoteWritable) {
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
                sinks = Arrays.copyOf(sinks, index * 2);
                sizes = Arrays.copyOf(sizes, index * 2);
                writable = Arrays.copyOf(writable, index * 2);
                generations = Arrays.copyOf(generations, index * 2);
            }
        }
        segments[index] = memory;
        sinks[index] = sink;
        sizes[index] = sizeBytes;
        writable[index] = remoteWritable;
        generations[index] = (generations[index] + 1) & 0x7FFF;
        return generations[index] << INDEX_BITS | index;
    }

    /** @param key a key; unknown or stale keys are ignored */
    public void deregister(int key) {
        int index = key & INDEX_MASK;
        if (valid(key)) {
            segments[index] = null;
            sinks[index] = null;
            sizes[index] = -1;
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, freeCount * 2);
            }
            free[freeCount++] = index;
        }
    }

    private boolean valid(int key) {
        int index = key & INDEX_MASK;
        return key >= 0 && index < count && sizes[index] >= 0 && generations[index] == key >>> INDEX_BITS;
    }

    /**
     * @param key a key from a packet
     * @return the region's size if the key is current and open for remote writes, else -1
     */
    public long writableBytes(int key) {
        return valid(key) && writable[key & INDEX_MASK] ? sizes[key & INDEX_MASK] : -1;
    }

    /**
     * @param key a key {@link #writableBytes} accepted
     * @return the region's memory, or null when a sink stands for it ({@link #sink})
     */
    public MemorySegment memory(int key) {
        return segments[key & INDEX_MASK];
    }

    /**
     * @param key a key {@link #writableBytes} accepted
     * @return the sink standing for the region, or null when it is memory
     */
    public RegionSink sink(int key) {
        return sinks[key & INDEX_MASK];
    }
}
