package io.jccl.check;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Grow-only native scratch memory for checks, reused from one check to the next: first touch of fresh memory
 * is slow, so a loop of checks should share one of these. Not thread-safe. {@link #close()} frees the memory.
 */
public final class CheckBuffers implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private MemorySegment[] slots = new MemorySegment[0];

    /**
     * @param slot  which buffer
     * @param bytes size needed
     * @return a segment of exactly {@code bytes} bytes; its contents are left from earlier use
     */
    public MemorySegment get(int slot, long bytes) {
        if (slot >= slots.length) {
            slots = java.util.Arrays.copyOf(slots, slot + 1);
        }
        if (slots[slot] == null || slots[slot].byteSize() < bytes) {
            slots[slot] = arena.allocate(Math.max(bytes, 4096), 64);
        }
        return slots[slot].asSlice(0, bytes);
    }

    /** Frees every buffer; segments handed out before are no longer usable. */
    @Override
    public void close() {
        slots = new MemorySegment[0];
        arena.close();
    }
}
