package io.jccl.reduce;

import java.lang.foreign.MemorySegment;

/**
 * One resolved element-wise loop over two inputs: {@code dst[i] = f(a[i], b[i])} for {@code count} elements.
 * Offsets are in bytes. Implementations are the type- and operation-specific kernels; callers have already
 * checked the bounds.
 */
@FunctionalInterface
interface BinaryLoop {
    /**
     * Runs the loop.
     *
     * @param a first input
     * @param aOffset byte offset of element 0 in {@code a}
     * @param b second input
     * @param bOffset byte offset of element 0 in {@code b}
     * @param dst output (may be {@code a} or {@code b} at the same offset)
     * @param dstOffset byte offset of element 0 in {@code dst}
     * @param count number of elements
     */
    void run(MemorySegment a, long aOffset, MemorySegment b, long bOffset,
             MemorySegment dst, long dstOffset, long count);
}
