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
 * SUM kernel throughput, {@code dst = a + b}, for every element type and two sizes per operand: 64 KiB (the three
 * buffers fit in L2) and 64 MiB (memory-bound). The "bytes" secondary result is GB/s: bytes/ns with
 * {@code bytes = 3 × count × elementSize}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SumBenchmark extends KernelBenchmark {
    /** Created by JMH. */
    public SumBenchmark() {
    }

    /** The element type. */
    @Param({"INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64", "FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64",
            "FLOAT8_E4M3", "FLOAT8_E5M2"})
    public DataType type;

    /** Size of each operand in bytes. */
    @Param({"65536", "67108864"})
    public long sizeBytes;

    /** Allocates and fills the buffers once per trial. */
    @Setup(Level.Trial)
    public void setUp() {
        open(type, sizeBytes, Reducers.of(type, ReduceOp.SUM, 2));
    }

    /**
     * One kernel call over the whole buffers.
     *
     * @param counter the byte counter
     */
    @Benchmark
    public void sum(ByteCounter counter) {
        combineAll(counter);
    }
}
