package io.jccl.reduce;

import java.lang.foreign.MemorySegment;

/**
 * One resolved element-wise loop over one input: {@code dst[i] = f(src[i])} for {@code count} elements.
 * Offsets are in bytes; callers have already checked the bounds.
 */
@FunctionalInterface
interface UnaryLoop {
    /**
     * Runs the loop.
     *
     * @param src input
     * @param srcOffset byte offset of element 0 in {@code src}
     * @param dst output (may be {@code src} at the same offset)
     * @param dstOffset byte offset of element 0 in {@code dst}
     * @param count number of elements
     */
    void run(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count);
}
