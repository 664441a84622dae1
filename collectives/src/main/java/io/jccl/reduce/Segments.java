package io.jccl.reduce;

import java.lang.foreign.MemorySegment;

/**
 * Which segments the Vector API loops may take. C2 compiles {@code fromMemorySegment}/{@code intoMemorySegment}
 * into vector instructions for native segments and for heap segments over an array of the lane type (a
 * {@code float[]} for {@code FloatVector}); over any other array the access still works but runs the API's
 * generic fallback, which boxes every vector: tens of times slower, and it allocates. The kernels give such
 * segments to their scalar loops instead.
 *
 * <p>The heap array's type is told by the segment's implementation class, one per array type in the JDK:
 * {@link MemorySegment#heapBase()} would say it too but allocates an {@code Optional} per call (and hides the array
 * of read-only segments). Should a JDK share one class between array types, the check errs towards the vector
 * loop, which stays correct.
 */
final class Segments {
    /** Implementation class of heap segments over {@code byte[]}. */
    static final Class<?> BYTE_ARRAY = MemorySegment.ofArray(new byte[0]).getClass();
    /** Implementation class of heap segments over {@code short[]}. */
    static final Class<?> SHORT_ARRAY = MemorySegment.ofArray(new short[0]).getClass();
    /** Implementation class of heap segments over {@code int[]}. */
    static final Class<?> INT_ARRAY = MemorySegment.ofArray(new int[0]).getClass();
    /** Implementation class of heap segments over {@code long[]}. */
    static final Class<?> LONG_ARRAY = MemorySegment.ofArray(new long[0]).getClass();
    /** Implementation class of heap segments over {@code float[]}. */
    static final Class<?> FLOAT_ARRAY = MemorySegment.ofArray(new float[0]).getClass();
    /** Implementation class of heap segments over {@code double[]}. */
    static final Class<?> DOUBLE_ARRAY = MemorySegment.ofArray(new double[0]).getClass();

    private Segments() {
    }

    /**
     * @param segment a segment
     * @param laneArraySegment the heap segment class for arrays of the vector's lane type, e.g. {@link #FLOAT_ARRAY}
     * @return true when vector loads and stores on {@code segment} compile to vector instructions
     */
    static boolean vectorizable(MemorySegment segment, Class<?> laneArraySegment) {
        return segment.isNative() || segment.getClass() == laneArraySegment;
    }

    /**
     * @return true when all three segments are {@link #vectorizable(MemorySegment, Class)}
     */
    static boolean vectorizable(MemorySegment x, MemorySegment y, MemorySegment z, Class<?> laneArraySegment) {
        return vectorizable(x, laneArraySegment) && vectorizable(y, laneArraySegment)
                && vectorizable(z, laneArraySegment);
    }
}
