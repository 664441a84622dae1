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
     * @param finish apply {@link #finish} to the result in the same pass
     */
    void combine(MemorySegment a, long aOffset, MemorySegment b, long bOffset,
                 MemorySegment dst, long dstOffset, long count, boolean finish);

    /**
     * {@code dst[i] = finish?(partial[i] ⊕ prepare(local[i]))}: folds this rank's raw input into a partial.
     *
     * @param finish apply {@link #finish} to the result in the same pass
     */
    void combineLocal(MemorySegment partial, long partialOffset, MemorySegment local, long localOffset,
                      MemorySegment dst, long dstOffset, long count, boolean finish);

    /** {@code dst[i] = prepare(src[i])}: this rank's raw input as a contribution. */
    void prepare(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count);

    /** {@code dst[i] = finish(src[i])}: the result from the partial of all ranks. */
    void finish(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count);
}
