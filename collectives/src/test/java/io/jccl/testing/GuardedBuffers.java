package io.jccl.testing;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Native buffers at odd offsets with guard bytes on both sides, reused across tests (first touch of fresh
 * memory is slow). {@link #region} hands out a slice; {@link #guardsIntact} checks nothing outside was written.
 */
public final class GuardedBuffers {
    public static final int GUARD_BYTES = 64;
    private static final byte GUARD = (byte) 0xA5;
    private final Arena arena = Arena.ofShared();
    private MemorySegment[] backing = new MemorySegment[0];

    /** @return a slice of {@code bytes} at an odd offset of buffer {@code which}, with guards written around it */
    public synchronized MemorySegment region(int which, long bytes, int oddShift) {
        if (backing.length <= which) {
            backing = java.util.Arrays.copyOf(backing, which + 1);
        }
        long need = bytes + 2L * GUARD_BYTES + 8;
        if (backing[which] == null || backing[which].byteSize() < need) {
            backing[which] = arena.allocate(Math.max(need, 1 << 16), 64);
        }
        long offset = GUARD_BYTES + 1 + 2L * (oddShift % 3);
        MemorySegment b = backing[which];
        b.asSlice(offset - GUARD_BYTES, GUARD_BYTES).fill(GUARD);
        b.asSlice(offset + bytes, GUARD_BYTES).fill(GUARD);
        return b.asSlice(offset, bytes);
    }

    /** @return true when the guard bytes around a region handed out by {@link #region} are untouched */
    public static boolean guardsIntact(MemorySegment region) {
        MemorySegment before = MemorySegment.ofAddress(region.address() - GUARD_BYTES).reinterpret(GUARD_BYTES);
        MemorySegment after = MemorySegment.ofAddress(region.address() + region.byteSize()).reinterpret(GUARD_BYTES);
        for (int i = 0; i < GUARD_BYTES; i++) {
            if (before.get(ValueLayout.JAVA_BYTE, i) != GUARD || after.get(ValueLayout.JAVA_BYTE, i) != GUARD) {
                return false;
            }
        }
        return true;
    }
}
