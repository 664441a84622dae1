package io.jccl.metaroce.net;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.check.CollectiveCalls;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.OpKind;
import io.jccl.process.RankJvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;

/**
 * One rank in its own JVM: joins the communicator named by {@code JCCL_TEST_UNIQUE_ID} and runs every collective
 * with exact, nccl-tests-style data, checking every element it receives. Prints one line per collective
 * ({@code <kind> <type> count=N wrong=W ms=T}, T: from issuing it to its completion), the metaroce transport's
 * counters, then {@code RESULT OK} (exit 0) or {@code RESULT WRONG n} (exit 1). Usage:
 * {@code CollectivesRankMain rank size elements [allreduce-only]}: with a fourth argument it runs one fp32 all-reduce
 * of that many elements instead of the whole set.
 */
public final class CollectivesRankMain {
    private static final List<OpKind> EVERY = List.of(OpKind.ALL_REDUCE, OpKind.BROADCAST, OpKind.REDUCE,
            OpKind.ALL_GATHER, OpKind.REDUCE_SCATTER, OpKind.ALL_TO_ALL, OpKind.ALL_TO_ALLV, OpKind.GATHER,
            OpKind.SCATTER, OpKind.P2P);

    private CollectivesRankMain() {
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        long elements = Long.parseLong(args[2]);
        boolean allReduceOnly = args.length > 3;
        Communicator comm = RankJvm.joinOrExit(rank, size, Duration.ofSeconds(90), Duration.ofSeconds(240));
        int failures = 0;
        try (Arena arena = Arena.ofShared(); comm) {
            if (allReduceOnly) {
                failures += run(comm, arena, OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, elements);
            } else {
                for (OpKind kind : EVERY) {
                    long count = switch (kind) {
                        case ALL_GATHER, GATHER, REDUCE_SCATTER, SCATTER, ALL_TO_ALL, ALL_TO_ALLV -> elements / size;
                        default -> elements;
                    };
                    boolean reducing = kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE
                            || kind == OpKind.REDUCE_SCATTER;
                    failures += run(comm, arena, kind, DataType.FLOAT32, reducing ? ReduceOp.Kind.SUM : null, count);
                }
                failures += run(comm, arena, OpKind.ALL_REDUCE, DataType.BFLOAT16, ReduceOp.Kind.MAX, elements + 7);
                failures += run(comm, arena, OpKind.ALL_REDUCE, DataType.INT64, ReduceOp.Kind.PROD, 1023);
                comm.barrier().await();
                System.out.println("BARRIER ok");
            }
            System.out.println("COUNTERS " + MetaRoceNetTransport.liveCounters());
        }
        RankJvm.exitWithResult(failures);
    }

    private static int run(Communicator comm, Arena arena, OpKind kind, DataType type, ReduceOp.Kind op, long count) {
        int rank = comm.rank();
        int root = comm.size() - 1;   // not rank 0, so rooted operations do not only test the easy case
        CollectiveCheck check = new CollectiveCheck(kind, type, op, comm.size(), count, root, 0xC0FFEE + kind.ordinal());
        long sendBytes = check.sendElements(rank) * type.sizeBytes();
        long recvBytes = check.recvElements(rank) * type.sizeBytes();
        MemorySegment send = sendBytes > 0 ? arena.allocate(sendBytes, 64) : null;
        MemorySegment recv = recvBytes > 0 ? arena.allocate(recvBytes, 64) : null;
        if (send != null) {
            check.fillSend(rank, send);
        }
        long startNs = System.nanoTime();
        CollectiveFuture f = CollectiveCalls.issue(comm, check, Buffer.of(send), Buffer.of(recv));
        f.await();
        long ms = (System.nanoTime() - startNs) / 1_000_000;
        long wrong = recv == null ? 0 : check.countWrong(rank, recv);
        System.out.println(kind + " " + type + " count=" + count + " wrong=" + wrong + " ms=" + ms
                + (wrong > 0 ? " first: " + check.firstMismatch(rank, recv) : ""));
        return wrong == 0 ? 0 : 1;
    }
}
