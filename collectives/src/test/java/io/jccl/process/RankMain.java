package io.jccl.process;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.OpKind;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * One rank in its own JVM: joins the communicator named by {@code JCCL_TEST_UNIQUE_ID}, runs an exact
 * all-reduce and all-to-all, prints {@code RESULT OK} or {@code RESULT WRONG ...}, exits 0 on success.
 * Usage: {@code RankMain rank size [count]}; exit 3 with {@code JOIN_FAILED <code> <message>} when it cannot join.
 */
public final class RankMain {
    private RankMain() {
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        long count = args.length > 2 ? Long.parseLong(args[2]) : (1 << 20) + 3;
        Communicator comm = RankJvm.joinOrExit(rank, size, Duration.ofSeconds(60), Duration.ofSeconds(60));
        int failures = 0;
        try (Arena arena = Arena.ofShared(); comm) {
            failures += run(comm, arena, OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, count);
            failures += run(comm, arena, OpKind.ALL_REDUCE, DataType.INT64, ReduceOp.Kind.MAX, 1023);
            failures += run(comm, arena, OpKind.ALL_TO_ALL, DataType.BFLOAT16, null, count / size);
            comm.barrier().await();
        }
        RankJvm.exitWithResult(failures);
    }

    private static int run(Communicator comm, Arena arena, OpKind kind, DataType type, ReduceOp.Kind op, long count) {
        int rank = comm.rank();
        CollectiveCheck check = new CollectiveCheck(kind, type, op, comm.size(), count, 0, 12345);
        MemorySegment send = arena.allocate(Math.max(1, check.sendElements(rank) * type.sizeBytes()));
        MemorySegment recv = arena.allocate(Math.max(1, check.recvElements(rank) * type.sizeBytes()));
        check.fillSend(rank, send);
        if (kind == OpKind.ALL_REDUCE) {
            comm.allReduce(Buffer.of(send), Buffer.of(recv), count, type, check.opFor(rank)).await();
        } else {
            comm.allToAll(Buffer.of(send), Buffer.of(recv), count, type).await();
        }
        long wrong = check.countWrong(rank, recv);
        System.out.println(kind + " " + type + " count=" + count + " wrong=" + wrong
                + (wrong > 0 ? " first: " + check.firstMismatch(rank, recv) : ""));
        return wrong == 0 ? 0 : 1;
    }
}
