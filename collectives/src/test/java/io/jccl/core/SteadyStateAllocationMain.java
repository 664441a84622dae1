package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Runs warm all-reduces in a fresh JVM, as an application would, and prints what the communicators' progress
 * allocated per operation — on their executor threads and in the steps waiting callers drove
 * ({@code -Djccl.test.countCallerAllocation=true}, which the test sets): {@code BYTES_PER_OP <n>}. Usage: {@code SteadyStateAllocationMain <transport> [metrics]}; with {@code metrics}, a
 * {@link io.jccl.metrics.JcclMetrics} bound to a {@code SimpleMeterRegistry} records every operation.
 */
public final class SteadyStateAllocationMain {
    private static final int WARMUP = 20_000;
    private static final int MEASURED = 5_000;

    private SteadyStateAllocationMain() {
    }

    public static void main(String[] args) {
        int n = 3;
        long count = 4096;
        io.jccl.metrics.JcclMetrics metrics = null;
        if (args.length > 1 && args[1].equals("metrics")) {
            metrics = new io.jccl.metrics.JcclMetrics();
            metrics.bindTo(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        }
        java.util.List<Communicator> comms = Communicator.local(n, CommConfig.builder().transport(args[0]).build());
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] bufs = new MemorySegment[n];
            for (int r = 0; r < n; r++) {
                bufs[r] = arena.allocate(count * 4);
            }
            run(comms, bufs, count, WARMUP);
            long before = allocated(comms);
            run(comms, bufs, count, MEASURED);
            System.out.println("BYTES_PER_OP " + (allocated(comms) - before) / MEASURED);
        } finally {
            comms.forEach(Communicator::close);
            if (metrics != null) {
                metrics.close();
            }
        }
    }

    private static long allocated(java.util.List<Communicator> comms) {
        long sum = 0;
        for (Communicator c : comms) {
            sum += TestHooks.progressAllocatedBytes(c);
        }
        return sum;
    }

    private static void run(java.util.List<Communicator> comms, MemorySegment[] bufs, long count, int iterations) {
        CollectiveFuture[] pending = new CollectiveFuture[comms.size()];
        Buffer[] buffers = new Buffer[bufs.length];
        for (int r = 0; r < bufs.length; r++) {
            buffers[r] = Buffer.of(bufs[r]);
        }
        for (int i = 0; i < iterations; i++) {
            for (int r = 0; r < comms.size(); r++) {
                pending[r] = comms.get(r).allReduce(buffers[r], buffers[r], count, DataType.FLOAT32, ReduceOp.SUM);
            }
            for (CollectiveFuture f : pending) {
                f.await();
            }
        }
    }
}
