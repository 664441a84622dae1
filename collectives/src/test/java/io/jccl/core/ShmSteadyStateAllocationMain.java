package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One rank of a job over shm (a JVM per rank, {@code JCCL_NET=shm}) that runs warm all-gathers as an application
 * would — one of 8 floats a rank (one-line inline records, fast boxes) and one of 64 KiB a rank (single copy: by
 * cross-memory attach, or, with {@code registered} buffers from {@link Communicator#allocate}, out of the sender's
 * mapped memory) per iteration — and prints what its progress allocated per iteration (the executor thread, and the
 * steps the waiting caller drove, counted with {@code -Djccl.test.countCallerAllocation=true}):
 * {@code BYTES_PER_OP <n>}. All-gathers, not all-reduces: they measure the transport and the executor, not the
 * reduction kernels (whose Vector API code, in a JVM with one communicator, was seen to run un-intrinsified and
 * allocate long after warm-up). Usage: {@code ShmSteadyStateAllocationMain rank size [registered]}, the id in
 * {@code JCCL_TEST_UNIQUE_ID}.
 */
public final class ShmSteadyStateAllocationMain {
    private static final int WARMUP = 20_000;
    /**
     * Long enough that a one-off allocation during the measurement (seen once as 64 KB over 2,000 iterations in a
     * full build, not again in three runs alone) stays below the per-iteration bound, which any object allocated
     * per iteration still exceeds.
     */
    private static final int MEASURED = 20_000;

    private ShmSteadyStateAllocationMain() {
    }

    public static void main(String[] args) {
        int size = Integer.parseInt(args[1]);
        boolean registered = args.length > 2 && args[2].equals("registered");
        try (Arena arena = Arena.ofShared(); Communicator comm = TestRankComm.join(args)) {
            long big = 16 << 10;
            MemorySegment small = registered ? comm.allocate(32L * size) : arena.allocate(32L * size);
            MemorySegment large = registered ? comm.allocate(big * 4 * size) : arena.allocate(big * 4 * size);
            run(comm, small, large, big, WARMUP);
            long before = TestHooks.progressAllocatedBytes(comm);
            run(comm, small, large, big, MEASURED);
            System.out.println("BYTES_PER_OP " + (TestHooks.progressAllocatedBytes(comm) - before) / MEASURED);
        }
    }

    private static void run(Communicator comm, MemorySegment small, MemorySegment large, long big, int iterations) {
        int r = comm.rank();
        Buffer smallPart = Buffer.of(small.asSlice(32L * r, 32));
        Buffer smallAll = Buffer.of(small);
        Buffer largePart = Buffer.of(large.asSlice(big * 4 * r, big * 4));
        Buffer largeAll = Buffer.of(large);
        for (int i = 0; i < iterations; i++) {
            // In place: each rank's part sits at its place in the result.
            CollectiveFuture a = comm.allGather(smallPart, smallAll, 8, DataType.FLOAT32);
            CollectiveFuture b = comm.allGather(largePart, largeAll, big, DataType.FLOAT32);
            a.await();
            b.await();
        }
    }
}
