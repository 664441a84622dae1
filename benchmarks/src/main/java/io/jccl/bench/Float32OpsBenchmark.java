package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
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
 * {@code float} kernels other than SUM: PROD, MIN, MAX, and AVG's fused last combine ({@code (a + b) / n}), at
 * 64 KiB and 64 MiB per operand. The "bytes" secondary result is GB/s as in {@link SumBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Float32OpsBenchmark extends KernelBenchmark {
    /** Created by JMH. */
    public Float32OpsBenchmark() {
    }

    /** The operation, as {@link ReduceOp#parse} reads it. */
    @Param({"prod", "min", "max", "avg"})
    public String op;

    /** Size of each operand in bytes. */
    @Param({"65536", "67108864"})
    public long sizeBytes;

    /** Allocates and fills the buffers once per trial. */
    @Setup(Level.Trial)
    public void setUp() {
        open(DataType.FLOAT32, sizeBytes, Reducers.of(DataType.FLOAT32, ReduceOp.parse(op), 4));
    }

    /**
     * One kernel call over the whole buffers (with the finish fused for AVG).
     *
     * @param counter the byte counter
     */
    @Benchmark
    public void combine(ByteCounter counter) {
        combineAll(counter);
    }
}
