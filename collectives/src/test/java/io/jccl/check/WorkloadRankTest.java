package io.jccl.check;

import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;
import io.jccl.testing.LocalComms;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/** A workload on in-JVM ranks driven from one thread, checked exactly; and a spoiled result is caught. */
class WorkloadRankTest {
    /** Only detects a hang: an operation on a loaded machine takes milliseconds. */
    private static final long HANG_NS = 120_000_000_000L;

    /** Runs {@code body} with {@code n} local ranks' communicators and their workload ranks, closed after it. */
    private static void withRanks(int n, long seed, List<WorkloadOp> ops,
                                  BiConsumer<List<Communicator>, List<WorkloadRank>> body) {
        List<WorkloadRank> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            ranks.add(new WorkloadRank(r, n, seed, ops));
        }
        try {
            body.accept(LocalComms.get(n), ranks);
        } finally {
            ranks.forEach(WorkloadRank::close);
        }
    }

    /** Issues the operation on every rank from this thread and polls until all are done. */
    private static void runOne(List<Communicator> comms, List<WorkloadRank> ranks, WorkloadOp op) {
        List<CollectiveFuture> futures = new ArrayList<>();
        for (int r = 0; r < comms.size(); r++) {
            futures.add(ranks.get(r).issue(comms.get(r), op));
        }
        long deadline = System.nanoTime() + HANG_NS;
        for (CollectiveFuture f : futures) {
            while (!f.isDone()) {
                if (System.nanoTime() > deadline) {
                    fail("hung: " + op.describe());
                }
                Thread.onSpinWait();
            }
            assertThat(f.error()).as(op.describe()).isEmpty();
        }
    }

    @Test
    void twoHundredOperationsOnFourRanksAreExact() {
        long seed = 20_261_201L;
        int n = 4;
        List<WorkloadOp> ops = Workload.generate(seed, n, 200, WorkloadSpec.defaults().withMaxBytesPerRank(64 << 10));
        assertEveryRankExact(n, seed, ops);
    }

    /** Runs the operations one by one on {@code n} local ranks; after each, every rank's output must be exact. */
    private static void assertEveryRankExact(int n, long seed, List<WorkloadOp> ops) {
        withRanks(n, seed, ops, (comms, ranks) -> {
            for (WorkloadOp op : ops) {
                runOne(comms, ranks, op);
                for (WorkloadRank rank : ranks) {
                    assertThat(rank.check(op)).as("seed %d rank %d: %s", seed, rank.rank(), rank.lastProblem())
                            .isZero();
                    assertThat(rank.lastProblem()).isNull();
                }
            }
        });
    }

    @Test
    void aSpoiledOutputElementAndAnOverrunAreCounted() {
        long seed = 3;
        int n = 3;
        WorkloadOp op = new WorkloadOp(0, OpKind.ALL_REDUCE, DataType.FLOAT16, ReduceOp.Kind.SUM, 101, -1, false);
        withRanks(n, seed, List.of(op), (comms, ranks) -> {
            runOne(comms, ranks, op);
            MemorySegment out = ranks.get(1).output();
            out.set(ValueLayout.JAVA_BYTE, 2 * 50, (byte) ~out.get(ValueLayout.JAVA_BYTE, 2 * 50));
            assertThat(ranks.get(1).check(op)).isEqualTo(1);
            assertThat(ranks.get(1).lastProblem()).startsWith(op.describe()).contains("rank 1 element 50");
            assertThat(ranks.get(0).check(op)).isZero();

            // One byte past the output: guard damage, not a wrong element.
            runOne(comms, ranks, op);
            MemorySegment past = MemorySegment.ofAddress(out.address() + out.byteSize()).reinterpret(1);
            past.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
            assertThat(ranks.get(1).check(op)).isEqualTo(1);
            assertThat(ranks.get(1).lastProblem()).contains("guard bytes");
        });
    }

    @Test
    void inPlaceLayoutsOfEveryCollectiveOnEveryRoot() {
        long seed = 11;
        int n = 3;
        List<WorkloadOp> ops = new ArrayList<>();
        for (OpKind kind : Workload.KINDS) {
            for (int root = 0; root < (CollectiveCalls.rooted(kind) ? n : 1); root++) {
                for (boolean inPlace : CollectiveCalls.hasInPlaceForm(kind) ? new boolean[] {false, true}
                        : new boolean[] {false}) {
                    ops.add(new WorkloadOp(ops.size(), kind, DataType.INT32,
                            CollectiveCalls.reducing(kind) ? ReduceOp.Kind.PRE_MUL_SUM : null,
                            kind == OpKind.BARRIER ? 0 : 37, CollectiveCalls.rooted(kind) ? root : -1, inPlace));
                }
            }
        }
        assertEveryRankExact(n, seed, ops);
    }

    @Test
    void misuseIsRefused() {
        WorkloadOp small = new WorkloadOp(0, OpKind.ALL_REDUCE, DataType.INT8, ReduceOp.Kind.SUM, 10, -1, false);
        WorkloadOp big = new WorkloadOp(1, OpKind.ALL_REDUCE, DataType.INT8, ReduceOp.Kind.SUM, 11, -1, false);
        List<Communicator> comms = LocalComms.get(2);
        try (WorkloadRank rank = new WorkloadRank(0, 2, 1, List.of(small))) {
            assertThatThrownBy(() -> rank.check(small)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("none");
            assertThatThrownBy(() -> rank.issue(comms.get(0), big)).hasMessageContaining("sized for");
            assertThatThrownBy(() -> rank.issue(comms.get(1), small)).hasMessageContaining("rank 1 of 2");
        }
        assertThatThrownBy(() -> new WorkloadRank(2, 2, 1, List.of())).hasMessageContaining("rank 2");
        assertThatThrownBy(() -> new WorkloadRank(0, 2, 1,
                List.of(new WorkloadOp(0, OpKind.BROADCAST, DataType.INT8, null, 1, 5, false))))
                .hasMessageContaining("root 5");
    }
}
