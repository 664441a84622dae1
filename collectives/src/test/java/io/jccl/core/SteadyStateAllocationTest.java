package io.jccl.core;

import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data path — executor threads running cached plans over the transports — allocates nothing per operation
 * once warm. Measured with the JVM's per-thread allocation counters (bytes, not time).
 */
class SteadyStateAllocationTest {
    private static final int WARMUP = 3000;
    private static final int MEASURED = 2000;

    @ParameterizedTest
    @ValueSource(strings = {"local", "tcp"})
    void executorThreadsAllocateNothingPerAllReduce(String transport) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int n = 3;
        List<Communicator> comms = Communicator.local(n, CommConfig.builder().transport(transport).build());
        try (Arena arena = Arena.ofShared()) {
            long count = 4096;
            MemorySegment[] bufs = new MemorySegment[n];
            for (int r = 0; r < n; r++) {
                bufs[r] = arena.allocate(count * 4);
            }
            run(comms, bufs, count, WARMUP);
            List<Thread> executors = new ArrayList<>();
            for (Communicator c : comms) {
                executors.add(((CommImpl) c).executorThreadForTests());
            }
            long before = allocated(threads, executors);
            run(comms, bufs, count, MEASURED);
            long perOp = (allocated(threads, executors) - before) / MEASURED;
            assertThat(perOp).as("bytes allocated per all-reduce by the executor threads over %s", transport)
                    .isLessThan(8);
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    private static long allocated(com.sun.management.ThreadMXBean threads, List<Thread> executors) {
        long sum = 0;
        for (Thread t : executors) {
            sum += threads.getThreadAllocatedBytes(t.threadId());
        }
        return sum;
    }

    private static void run(List<Communicator> comms, MemorySegment[] bufs, long count, int iterations) {
        CollectiveFuture[] pending = new CollectiveFuture[comms.size()];
        for (int i = 0; i < iterations; i++) {
            for (int r = 0; r < comms.size(); r++) {
                pending[r] = comms.get(r).allReduce(bufs[r], bufs[r], count, DataType.FLOAT32, ReduceOp.SUM);
            }
            for (CollectiveFuture f : pending) {
                f.await();
            }
        }
    }
}
