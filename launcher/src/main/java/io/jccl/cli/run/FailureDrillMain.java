package io.jccl.cli.run;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.ReduceOp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * A failure drill for {@code jccl run --keep-going}: every rank runs in-place all-reduces; in the middle of one of
 * them the victim rank kills itself with SIGKILL. The survivors issue one more, which the victim never joins, so it
 * is pending when the victim dies however fast the first went. Each survivor waits for that one to fail (with
 * REMOTE_ERROR, from liveness: the operation timeout is not what ends it), prints how long that took, shrinks the
 * communicator to the survivors, checks an all-reduce on the new one exactly, and exits 0. The launcher then
 * exits non-zero naming the killed rank.
 *
 * <pre>{@code ./jccl run -np 4 --keep-going -x JCCL_PEER_TIMEOUT_MS=2000 -- io.jccl.cli.run.FailureDrillMain 1}</pre>
 *
 * <p>Arguments: the victim's rank (default 1), then elements per all-reduce (default 4 Mi floats, 16 MiB).
 * Exit status of a survivor: 0 when it failed as it should and the shrunk communicator was exact, 1 when a result
 * was wrong, 2 when something else failed.
 */
public final class FailureDrillMain {
    private static final int ITERATIONS_BEFORE_KILL = 3;

    private FailureDrillMain() {
    }

    /** @param args the victim's rank, elements per all-reduce */
    public static void main(String[] args) throws Exception {
        int victim = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        long count = args.length > 1 ? Long.parseLong(args[1]) : 4L << 20;
        System.exit(run(victim, count));
    }

    private static int run(int victim, long count) throws IOException, InterruptedException {
        Communicator comm = Communicator.fromEnvironment();
        int rank = comm.rank();
        if (victim < 0 || victim >= comm.size()) {
            System.err.println("victim rank " + victim + " is outside 0.." + (comm.size() - 1));
            return 2;
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment data = arena.allocate(count * 4, 64);
            for (int i = 0; i < ITERATIONS_BEFORE_KILL; i++) {
                comm.allReduce(Buffer.of(data), Buffer.of(data), count, DataType.FLOAT32, ReduceOp.SUM).await();
            }
            long issuedNs = System.nanoTime();
            // The victim joins this all-reduce and dies while it may still be under way. It may equally have
            // finished by then (with caller-driven progress a 4 MiB all-reduce takes a few milliseconds), so the
            // survivors wait on a second one the victim never joins: that one cannot complete, which makes the
            // drill deterministic while the first still exercises a death in the middle of an operation.
            CollectiveFuture underWay = comm.allReduce(Buffer.of(data), Buffer.of(data), count, DataType.FLOAT32,
                    ReduceOp.SUM);
            if (rank == victim) {
                Thread.sleep(5);   // the all-reduce is under way on every rank
                System.out.println("rank " + rank + ": killing myself with SIGKILL in the middle of an all-reduce");
                System.out.flush();
                new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).inheritIO().start();
                Thread.sleep(TimeUnit.MINUTES.toMillis(1));
                return 2;   // not reached
            }
            CollectiveFuture pending = comm.allReduce(Buffer.of(data), Buffer.of(data), count, DataType.FLOAT32,
                    ReduceOp.SUM);
            try {
                pending.await();
                System.err.println("rank " + rank + ": the all-reduce completed although rank " + victim + " died");
                return 2;
            } catch (JcclException e) {
                long ms = (System.nanoTime() - issuedNs) / 1_000_000;
                System.out.println("rank " + rank + ": pending all-reduce failed after " + ms + " ms with " + e.code()
                        + ": " + e.detail());
                System.out.println("rank " + rank + ": asyncError " + comm.asyncError().map(JcclException::code)
                        .map(Enum::name).orElse("EMPTY"));
                System.out.println("rank " + rank + ": the all-reduce under way when rank " + victim + " died "
                        + (!underWay.isDone() ? "is still pending (out of order)"
                                : underWay.error().map(f -> "failed with " + f.code()).orElse("completed")));
            }
            Communicator shrunk;
            long shrinkNs = System.nanoTime();
            try {
                shrunk = comm.shrink(victim);
            } finally {
                comm.abort();
            }
            try (shrunk) {
                int n = shrunk.size();
                int newRank = shrunk.rank();
                for (long i = 0; i < count; i++) {
                    data.setAtIndex(ValueLayout.JAVA_FLOAT, i, (newRank + 1) * (float) (i % 5 + 1));
                }
                shrunk.allReduce(Buffer.of(data), Buffer.of(data), count, DataType.FLOAT32, ReduceOp.SUM).await();
                long wrong = 0;
                for (long i = 0; i < count; i++) {
                    if (data.getAtIndex(ValueLayout.JAVA_FLOAT, i) != n * (n + 1) / 2f * (i % 5 + 1)) {
                        wrong++;
                    }
                }
                System.out.println("rank " + rank + ": shrunk to rank " + newRank + " of " + n + " in "
                        + (System.nanoTime() - shrinkNs) / 1_000_000 + " ms; all-reduce of " + count + " floats "
                        + (wrong == 0 ? "exact" : wrong + " WRONG") + " (JCCL_NET="
                        + (shrunk.config().transport() == null ? "automatic" : shrunk.config().transport()) + ")");
                return wrong == 0 ? 0 : 1;
            }
        } catch (JcclException e) {
            System.err.println("rank " + rank + ": " + e);
            return 2;
        }
    }
}
