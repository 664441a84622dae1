package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The {@link Reducer} that {@link Reducers#of} returns: checks each call's arguments, then runs one of the loops
 * resolved at construction (the SIMD kernels' or, in {@link ScalarReducer}, the element-by-element ones). Checking
 * everything before the first write keeps a failing call from leaving {@code dst} half written.
 */
sealed class ResolvedReducer implements Reducer permits ScalarReducer {
    /** Largest count whose byte size cannot overflow a {@code long} for any element size. */
    private static final long MAX_COUNT = Long.MAX_VALUE / Long.BYTES;

    private final DataType type;
    private final ReduceOp op;
    private final int sizeBytes;
    private final boolean needsPrepare;
    private final boolean needsFinish;
    private final Loops loops;

    ResolvedReducer(DataType type, ReduceOp op, OpSpec spec, Loops loops) {
        this.type = type;
        this.op = op;
        this.sizeBytes = type.sizeBytes();
        this.needsPrepare = spec.prepare();
        this.needsFinish = spec.finish();
        this.loops = loops;
    }

    @Override
    public DataType type() {
        return type;
    }

    @Override
    public ReduceOp op() {
        return op;
    }

    @Override
    public boolean needsPrepare() {
        return needsPrepare;
    }

    @Override
    public boolean needsFinish() {
        return needsFinish;
    }

    @Override
    public void combine(MemorySegment a, long aOffset, MemorySegment b, long bOffset,
                        MemorySegment dst, long dstOffset, long count, boolean finish) {
        checkOperands(count, a, aOffset, "a", b, bOffset, "b", dst, dstOffset);
        (finish ? loops.combineFinish() : loops.combine()).run(a, aOffset, b, bOffset, dst, dstOffset, count);
    }

    @Override
    public void combineLocal(MemorySegment partial, long partialOffset, MemorySegment local, long localOffset,
                             MemorySegment dst, long dstOffset, long count, boolean finish) {
        checkOperands(count, partial, partialOffset, "partial", local, localOffset, "local", dst, dstOffset);
        (finish ? loops.combineLocalFinish() : loops.combineLocal())
                .run(partial, partialOffset, local, localOffset, dst, dstOffset, count);
    }

    @Override
    public void prepare(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
        checkOperands(count, src, srcOffset, dst, dstOffset);
        loops.prepare().run(src, srcOffset, dst, dstOffset, count);
    }

    @Override
    public void finish(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long count) {
        checkOperands(count, src, srcOffset, dst, dstOffset);
        loops.finish().run(src, srcOffset, dst, dstOffset, count);
    }

    /** Checks a two-input call: the count, each input, then {@code dst}. */
    private void checkOperands(long count, MemorySegment x, long xOffset, String xName,
                               MemorySegment y, long yOffset, String yName, MemorySegment dst, long dstOffset) {
        long sizeBytes = checkCount(count);
        checkInput(x, xOffset, sizeBytes, xName);
        checkInput(y, yOffset, sizeBytes, yName);
        checkOutput(dst, dstOffset, sizeBytes);
    }

    /** Checks a one-input call ({@code src}): the count, the input, then {@code dst}. */
    private void checkOperands(long count, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset) {
        long sizeBytes = checkCount(count);
        checkInput(src, srcOffset, sizeBytes, "src");
        checkOutput(dst, dstOffset, sizeBytes);
    }

    private long checkCount(long count) {
        if (count < 0 || count > MAX_COUNT) {
            throw new IllegalArgumentException("count " + count + " out of range [0, " + MAX_COUNT + "]");
        }
        return count * sizeBytes;
    }

    private static void checkInput(MemorySegment segment, long offset, long sizeBytes, String name) {
        Objects.requireNonNull(segment, name);
        Objects.checkFromIndexSize(offset, sizeBytes, segment.byteSize());
    }

    private static void checkOutput(MemorySegment dst, long offset, long sizeBytes) {
        checkInput(dst, offset, sizeBytes, "dst");
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is a read-only segment");
        }
    }

    @Override
    public String toString() {
        return "Reducer[" + type + ", " + op + ", prepare=" + needsPrepare + ", finish=" + needsFinish + "]";
    }
}
