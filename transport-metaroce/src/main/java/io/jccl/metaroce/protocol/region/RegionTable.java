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

    /** A slot: one registered region, or a free one (size -1). Reused for every region its index holds. */
    private static final class Region {
        /** The memory; null when a sink stands for it. */
        MemorySegment memory;
        RegionSink sink;
        long size = -1;
        boolean writable;
        /** Bumped by every registration in this slot: a key names the slot and its generation. */
        int generation;
    }

    /** Slots {@code 0} to {@code count - 1}, made as first used. */
    private Region[] regions = new Region[8];
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
            if (index == regions.length) {
                regions = Arrays.copyOf(regions, index * 2);
            }
            regions[index] = new Region();
        }
        Region r = regions[index];
        r.memory = memory;
        r.sink = sink;
        r.size = sizeBytes;
        r.writable = remoteWritable;
        r.generation = (r.generation + 1) & 0x7FFF;
        return r.generation << INDEX_BITS | index;
    }

    /** @param key a key; unknown or stale keys are ignored */
    public void deregister(int key) {
        Region r = current(key);
        if (r != null) {
            r.memory = null;
            r.sink = null;
            r.size = -1;
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, freeCount * 2);
            }
            free[freeCount++] = key & INDEX_MASK;
        }
    }

    /** @return the current region of {@code key}, or null when the key is unknown or stale */
    private Region current(int key) {
        int index = key & INDEX_MASK;
        if (key < 0 || index >= count) {
            return null;
        }
        Region r = regions[index];
        return r.size >= 0 && r.generation == key >>> INDEX_BITS ? r : null;
    }

    /**
     * @param key a key from a packet
     * @return the region's size if the key is current and open for remote writes, else -1
     */
    public long writableBytes(int key) {
        Region r = current(key);
        return r != null && r.writable ? r.size : -1;
    }

    /**
     * @param key a key {@link #writableBytes} accepted
     * @return the region's memory, or null when a sink stands for it ({@link #sink})
     */
    public MemorySegment memory(int key) {
        return regions[key & INDEX_MASK].memory;
    }

    /**
     * @param key a key {@link #writableBytes} accepted
     * @return the sink standing for the region, or null when it is memory
     */
    public RegionSink sink(int key) {
        return regions[key & INDEX_MASK].sink;
    }
}
