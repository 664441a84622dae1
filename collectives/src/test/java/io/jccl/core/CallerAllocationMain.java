package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

/**
 * One rank of a job (a JVM per rank, {@code JCCL_NET} chooses the transport) whose thread calls blocking 8-byte
 * all-reduces, {@code comm.allReduce(...).await()}, as an application's training loop would, and prints what that
 * thread allocated in all — the API call, its future, the steps it drove — over the measured calls, and how many of
 * them it handed over unfinished (the only ones that get a future of their own):
 * {@code CALLER_BYTES <n> CALLS <n> HAND_OVERS <n>}. Usage: {@code CallerAllocationMain rank size}, the id in
 * {@code JCCL_TEST_UNIQUE_ID}.
 */
public final class CallerAllocationMain {
    private static final int WARMUP = 50_000;
    private static final int MEASURED = 20_000;

    private CallerAllocationMain() {
    }

    public static void main(String[] args) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofShared(); Communicator comm = TestRankComm.join(args)) {
            Buffer send = Buffer.of(arena.allocate(8));   // made once, as a caller that allocates nothing does
            Buffer recv = Buffer.of(arena.allocate(8));
            run(comm, send, recv, WARMUP);
            CommExecutor executor = ((CommImpl) comm).executor();
            long handOversBefore = executor.inlineHandOvers();
            long before = threads.getCurrentThreadAllocatedBytes();
            run(comm, send, recv, MEASURED);
            long bytes = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.println("CALLER_BYTES " + bytes + " CALLS " + MEASURED + " HAND_OVERS "
                    + (executor.inlineHandOvers() - handOversBefore));
        }
    }

    private static void run(Communicator comm, Buffer send, Buffer recv, int calls) {
        for (int i = 0; i < calls; i++) {
            comm.allReduce(send, recv, 2, DataType.FLOAT32, ReduceOp.SUM).await();
        }
    }
}
