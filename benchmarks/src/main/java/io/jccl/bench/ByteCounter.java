package io.jccl.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A JMH secondary result counting the bytes a kernel call moves: {@code 3 × count × elementSize} (two operands
 * read, one result written). JMH reports it as a rate in the benchmark's output time unit; the benchmarks here use
 * nanoseconds, so the "bytes" line reads in bytes/ns, which is GB/s (10<sup>9</sup> bytes per second).
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class ByteCounter {
    /** Created by JMH. */
    public ByteCounter() {
    }

    /** Bytes moved so far in this iteration; JMH reads the field. */
    public long bytes;

    /** Resets the count before each iteration. */
    @Setup(Level.Iteration)
    public void reset() {
        bytes = 0;
    }
}
