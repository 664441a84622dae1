package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.MemorySegment;

/**
 * Element-wise reduction for one (type, operation, rank count), as the algorithms need it.
 *
 * <p>Terms: a <em>contribution</em> is a rank's input after {@link #prepare} (multiplied by its pre-mul-sum
 * scalar; unchanged for every other operation). A <em>partial</em> combines one or more contributions.
 * {@link #finish} turns the partial of all ranks into the result (divides by the rank count for AVG;
 * unchanged otherwise).
 *
 * <p>All methods take segments with byte offsets: heap or native memory, any alignment, little-endian
 * (native) element order. {@code dst} may be the same memory as an input at the same offset (in-place); any
 * other overlap is not allowed. Counts are in elements. Methods allocate nothing.
 *
 * <p>Every method checks its arguments before writing anything: a negative count is an
 * {@link IllegalArgumentException}, a range outside a segment an {@link IndexOutOfBoundsException}, a read-only
 * {@code dst} an {@link IllegalArgumentException}, a null segment a {@link NullPointerException}.
 *
 * <p>Speed: the SIMD loops run on native segments and on heap segments over an array of the element's own Java type
 * ({@code float[]} for FLOAT32, {@code short[]} for FLOAT16 and BFLOAT16, {@code byte[]} for the 8-bit types...);
 * heap segments over other arrays work too, through scalar loops. Instances come from {@link Reducers#of} and are
 * immutable and thread-safe.
 */
public interface Reducer {
    /** @return the element type */
    DataType type();

    /** @return the operation */
    ReduceOp op();

    /** @return true when {@link #prepare} changes values (pre-mul-sum with a scalar other than 1) */
    boolean needsPrepare();

    /** @return true when {@link #finish} changes values (AVG over more than one rank) */
    boolean needsFinish();

    /**
     * {@code dst[i] = finish?(a[i] ⊕ b[i])} where both are partials.
     *
     * @param a first partial
     * @param aOffset byte offset of element 0 in {@code a}
     * @param b second partial
     * @param bOffset byte offset of element 0 in {@code b}
     * @param dst where the result goes; may be {@code a} or {@code b} at the same offset
     * @param dstOffset byte offset of element 0 in {@code dst}
     * @param count number of elements
     * @param finish apply {@link #finish} to the result in the same pass (the same bits as a separate
     *        {@link #finish} call would give)
     */
    void combine(MemorySegment a, long aOffset, MemorySegment b, long bOffset,
                 MemorySegment dst, long dstOffset, long count, boolean finish);

    /**
     * {@code dst[i] = finish?(partial[i] ⊕ prepare(local[i]))}: folds this rank's raw input into a partial.
     *
     * @param partial the partial
     * @param partialOffset byte offset of element 0 in {@code partial}
     * @param local this rank's raw input
     * @param localOffset byte offset of element 0 in {@code local}
     * @param dst where the result goes; may be {@code partial} or {@code local} at the same offset
     * @param dstOffset byte offset of element 0 in {@code dst}
     * @param count number of elements
     * @param finish apply {@link #finish} to the result in the same pass (the same bits as a separate
     *        {@link #finish} call would give)
     */
    void combineLocal(MemorySegment partial, long partialOffset, MemorySegment local, long localOffset,
                      MemorySegment dst, long dstOffset, long count, boolean finish);

    /**
     * {@code dst[i] = prepare(src[i])}: this rank's raw input as a contribution (a copy unless
     * {@link #needsPrepare}).
     *
     * @param src this rank's raw input
     * @param srcOffset byte offset of element 0 in {@code src}
     * @param dst where the result goes; may be {@code src} at the same offset
     * @param dstOffset byte offset of element 0 in {@code dst}
     * @param count number of elements
     */
    void prepare(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count);

    /**
     * {@code dst[i] = finish(src[i])}: the result from the partial of all ranks (a copy unless
     * {@link #needsFinish}).
     *
     * @param src the partial of all ranks
     * @param srcOffset byte offset of element 0 in {@code src}
     * @param dst where the result goes; may be {@code src} at the same offset
     * @param dstOffset byte offset of element 0 in {@code dst}
     * @param count number of elements
     */
    void finish(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count);
}
