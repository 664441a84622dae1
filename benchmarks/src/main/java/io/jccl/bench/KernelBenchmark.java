package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.reduce.Reducer;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the reduction kernel benchmarks share ({@link SumBenchmark}, {@link Float32OpsBenchmark},
 * {@link Float32SumVsCBenchmark}): operand buffers and a {@link Reducer}, made once per trial by the subclass's setup
 * through {@link #open}, and one kernel call over the whole buffers ({@link #combineAll}).
 */
public abstract class KernelBenchmark {
    /** The operands, made by {@link #open}. */
    protected Buffers buffers;
    private Reducer reducer;
    private boolean finish;

    /** For the benchmarks. */
    protected KernelBenchmark() {
    }

    /**
     * Allocates and fills the buffers; the subclass's trial setup calls this.
     *
     * @param type      the element type
     * @param sizeBytes size of each operand in bytes
     * @param reducer   the kernel; its finish (AVG's division) is fused into each call where it has one
     */
    protected final void open(DataType type, long sizeBytes, Reducer reducer) {
        buffers = new Buffers(type, sizeBytes);
        this.reducer = reducer;
        finish = reducer.needsFinish();
    }

    /** Frees the buffers. */
    @TearDown(Level.Trial)
    public void tearDown() {
        buffers.close();
    }

    /**
     * One kernel call over the whole buffers, its bytes added to {@code counter}.
     *
     * @param counter the byte counter
     */
    protected final void combineAll(ByteCounter counter) {
        Buffers buf = buffers;
        reducer.combine(buf.a, 0, buf.b, 0, buf.dst, 0, buf.count, finish);
        counter.bytes += buf.bytesPerCall();
    }
}
