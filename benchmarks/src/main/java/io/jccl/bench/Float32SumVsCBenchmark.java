package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.reduce.Reducer;
import io.jccl.reduce.Reducers;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * fp32 SUM, JCCL's kernel ({@link #jccl}, through the public {@link Reducer} API with its argument checks) against
 * the gcc {@code -O3 -march=native} C loop ({@link #gcc}), on the same kind of buffers and sizes in one JMH run.
 * The "bytes" secondary result is GB/s as in {@link SumBenchmark}. When the C library was not built, {@link #gcc}
 * fails its setup with a message saying it is unavailable; the other benchmarks still run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Float32SumVsCBenchmark extends KernelBenchmark {
    /** Created by JMH. */
    public Float32SumVsCBenchmark() {
    }

    /**
     * Size of each operand in bytes: 8 KiB (the three buffers fit in L1, so per-call overhead shows), 64 KiB (L2)
     * and 64 MiB (memory-bound).
     */
    @Param({"8192", "65536", "67108864"})
    public long sizeBytes;

    /** Allocates and fills the buffers once per trial. */
    @Setup(Level.Trial)
    public void setUp() {
        open(DataType.FLOAT32, sizeBytes, Reducers.of(DataType.FLOAT32, ReduceOp.SUM, 2));
    }

    /**
     * JCCL's fp32 SUM kernel over the whole buffers.
     *
     * @param counter the byte counter
     */
    @Benchmark
    public void jccl(ByteCounter counter) {
        combineAll(counter);
    }

    /**
     * The C loop over the whole buffers.
     *
     * @param counter the byte counter
     * @param c checks that the library is there
     * @throws Throwable from the downcall
     */
    @Benchmark
    public void gcc(ByteCounter counter, CAvailable c) throws Throwable {
        Buffers buf = buffers;
        CReference.SUM_F32.invokeExact(buf.a, buf.b, buf.dst, buf.count);
        counter.bytes += buf.bytesPerCall();
    }

    /** Fails the C benchmark's setup, with the reason, when the library is unavailable. */
    @State(Scope.Benchmark)
    public static class CAvailable {
        /** Created by JMH. */
        public CAvailable() {
        }

        /** Checks the library once per trial. */
        @Setup(Level.Trial)
        public void check() {
            if (CReference.SUM_F32 == null) {
                System.out.println(CReference.UNAVAILABLE_REASON);
                throw new IllegalStateException(CReference.UNAVAILABLE_REASON);
            }
        }
    }
}
