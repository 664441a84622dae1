package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;
import io.jccl.testing.CollectiveRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static io.jccl.api.CommAssertions.assertAllReduceWorks;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static io.jccl.api.CommAssertions.awaitSuccess;
import static io.jccl.api.CommAssertions.onEveryRank;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Communicator#split}: groups by color, order by key (ties by parent rank), SPLIT_NO_COLOR, splits of
 * splits; children compute exact results on their own, concurrently with the parent and each other, and
 * outlive a closed parent; closing a child leaves the parent alone.
 */
class SplitTest {
    private final List<Communicator> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() {
        // Children first, then parents; abort is prompt whatever state a failed test left.
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).abort();
        }
    }

    private List<Communicator> local(int n) {
        List<Communicator> comms = Communicator.local(n);
        toClose.addAll(comms);
        return comms;
    }

    /** Splits every rank of {@code parent} with the given colors and keys; returns each rank's result. */
    private List<Optional<Communicator>> split(List<Communicator> parent, int[] colors, int[] keys) {
        List<Optional<Communicator>> children = onEveryRank(parent.size(),
                r -> parent.get(r).split(colors[r], keys[r]));
        children.forEach(c -> c.ifPresent(toClose::add));
        return children;
    }

    /** The children with one color, ordered by their rank in the child. */
    private static List<Communicator> group(List<Optional<Communicator>> children, int[] colors, int color) {
        List<Communicator> g = new ArrayList<>();
        for (int r = 0; r < children.size(); r++) {
            if (colors[r] == color) {
                g.add(children.get(r).orElseThrow());
            }
        }
        g.sort(Comparator.comparingInt(Communicator::rank));
        return g;
    }

    /**
     * All-gathers, over the children of one color, each child's parent rank: the child's rank order as parent
     * ranks, as every member sees it.
     */
    private static int[] parentRanks(List<Optional<Communicator>> children, int[] colors, int color) {
        List<Integer> members = new ArrayList<>();
        for (int r = 0; r < children.size(); r++) {
            if (colors[r] == color) {
                members.add(r);
            }
        }
        int n = members.size();
        try (Arena arena = Arena.ofShared()) {
            List<MemorySegment> out = new ArrayList<>();
            List<io.jccl.CollectiveFuture> fs = new ArrayList<>();
            for (int parentRank : members) {
                Communicator c = children.get(parentRank).orElseThrow();
                MemorySegment mine = arena.allocate(4);
                mine.set(ValueLayout.JAVA_INT, 0, parentRank);
                MemorySegment all = arena.allocate(4L * n);
                out.add(all);
                fs.add(c.allGather(Buffer.of(mine), Buffer.of(all), 1, DataType.INT32));
            }
            CommAssertions.awaitAll(fs);
            int[] order = out.get(0).toArray(ValueLayout.JAVA_INT);
            for (MemorySegment o : out) {
                assertThat(o.toArray(ValueLayout.JAVA_INT)).as("every child rank sees the same order").isEqualTo(order);
            }
            return order;
        }
    }

    @Test
    void colorsFormGroupsOrderedByKey() {
        List<Communicator> parent = local(5);
        int[] colors = {0, 1, 0, 1, 0};
        int[] keys = {0, 0, -2, 5, -2};   // color 0: keys 0, -2, -2 -> parent ranks 2, 4 (tie by rank), 0
        List<Optional<Communicator>> children = split(parent, colors, keys);
        List<Communicator> even = group(children, colors, 0);
        List<Communicator> odd = group(children, colors, 1);
        assertThat(even).hasSize(3).allSatisfy(c -> assertThat(c.size()).isEqualTo(3));
        assertThat(odd).hasSize(2).allSatisfy(c -> assertThat(c.size()).isEqualTo(2));
        assertThat(children.get(2).orElseThrow().rank()).isZero();
        assertThat(children.get(4).orElseThrow().rank()).isEqualTo(1);
        assertThat(children.get(0).orElseThrow().rank()).isEqualTo(2);
        assertThat(children.get(1).orElseThrow().rank()).isZero();
        assertThat(children.get(3).orElseThrow().rank()).isEqualTo(1);
        assertThat(parentRanks(children, colors, 0)).containsExactly(2, 4, 0);
        assertThat(parentRanks(children, colors, 1)).containsExactly(1, 3);
        assertThat(even.get(0).config()).isEqualTo(parent.get(2).config());
    }

    @Test
    void keysReverseTheOrder() {
        List<Communicator> parent = local(4);
        int[] colors = {3, 3, 3, 3};
        int[] keys = {40, 30, 20, 10};
        List<Optional<Communicator>> children = split(parent, colors, keys);
        for (int r = 0; r < 4; r++) {
            assertThat(children.get(r).orElseThrow().rank()).isEqualTo(3 - r);
        }
        assertThat(parentRanks(children, colors, 3)).containsExactly(3, 2, 1, 0);
        CollectiveRun.run(group(children, colors, 3), OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 1023,
                false, 11);
    }

    @Test
    void noColorRanksGetNothingAndTheRestWork() {
        List<Communicator> parent = local(4);
        int[] colors = {7, Communicator.SPLIT_NO_COLOR, 7, Communicator.SPLIT_NO_COLOR};
        List<Optional<Communicator>> children = split(parent, colors, new int[4]);
        assertThat(children.get(1)).isEmpty();
        assertThat(children.get(3)).isEmpty();
        List<Communicator> g = group(children, colors, 7);
        assertThat(g).hasSize(2);
        CollectiveRun.run(g, OpKind.BROADCAST, DataType.INT64, null, 777, false, 3);
        assertAllReduceWorks(parent, 9);
    }

    @Test
    void everyRankWithoutColorGetsNothing() {
        List<Communicator> parent = local(3);
        int[] none = {Communicator.SPLIT_NO_COLOR, Communicator.SPLIT_NO_COLOR, Communicator.SPLIT_NO_COLOR};
        assertThat(split(parent, none, new int[3])).allSatisfy(c -> assertThat(c).isEmpty());
        assertAllReduceWorks(parent, 3);
    }

    @Test
    void childrenComputeConcurrentlyWithTheParentAndEachOther() throws Exception {
        List<Communicator> parent = local(4);
        int[] colors = {0, 1, 1, 0};
        int[] keys = {1, 1, 0, 0};
        List<Optional<Communicator>> children = split(parent, colors, keys);
        List<Communicator> a = group(children, colors, 0);
        List<Communicator> b = group(children, colors, 1);
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        runs.add(CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 3; i++) {
                CollectiveRun.run(a, OpKind.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.SUM, 100_003, i == 1, i);
                CollectiveRun.run(a, OpKind.ALL_GATHER, DataType.FLOAT16, null, 1000, false, i);
            }
        }, CommAssertions.daemonPool()));
        runs.add(CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 3; i++) {
                CollectiveRun.run(b, OpKind.REDUCE_SCATTER, DataType.FLOAT64, ReduceOp.Kind.MAX, 50_000, false, i);
                CollectiveRun.run(b, OpKind.ALL_TO_ALL, DataType.UINT8, null, 999, false, i);
            }
        }, CommAssertions.daemonPool()));
        runs.add(CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 3; i++) {
                CollectiveRun.run(parent, OpKind.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 100_000, false, i);
                CollectiveRun.run(parent, OpKind.SCATTER, DataType.INT8, null, 4000, false, i);
            }
        }, CommAssertions.daemonPool()));
        CompletableFuture.allOf(runs.toArray(new CompletableFuture[0]))
                .get(CommAssertions.HANG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void splitOfASplit() {
        List<Communicator> parent = local(4);
        List<Optional<Communicator>> first = split(parent, new int[] {0, 0, 0, 0}, new int[] {3, 2, 1, 0});
        List<Communicator> reversed = group(first, new int[] {0, 0, 0, 0}, 0);
        // Within the reversed child: child ranks 0,1 -> color 5, child ranks 2,3 -> color 6.
        int[] colors = {5, 5, 6, 6};
        List<Optional<Communicator>> second = split(reversed, colors, new int[4]);
        List<Communicator> low = group(second, colors, 5);
        List<Communicator> high = group(second, colors, 6);
        assertThat(low).hasSize(2);
        assertThat(high).hasSize(2);
        CollectiveRun.run(low, OpKind.ALL_REDUCE, DataType.BFLOAT16, ReduceOp.Kind.AVG, 1023, true, 5);
        CollectiveRun.run(high, OpKind.GATHER, DataType.INT32, null, 100, false, 6);
        // A third level, down to one rank.
        List<Optional<Communicator>> third = split(low, new int[] {0, 1}, new int[2]);
        Communicator single = third.get(0).orElseThrow();
        assertThat(single.size()).isEqualTo(1);
        CollectiveRun.run(List.of(single), OpKind.ALL_REDUCE, DataType.INT64, ReduceOp.Kind.PROD, 7, false, 1);
        assertAllReduceWorks(reversed, 4);
        assertAllReduceWorks(parent, 4);
    }

    @Test
    void closingAChildLeavesTheParentAlone() {
        List<Communicator> parent = local(3);
        int[] colors = {0, 0, 1};
        List<Optional<Communicator>> children = split(parent, colors, new int[3]);
        List<Communicator> pair = group(children, colors, 0);
        CollectiveRun.run(pair, OpKind.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.SUM, 1000, false, 1);
        pair.forEach(Communicator::close);
        children.get(2).orElseThrow().close();
        assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> pair.get(0).barrier(), "closed");
        assertAllReduceWorks(parent, 100);
        CollectiveRun.run(parent, OpKind.ALL_GATHER, DataType.FLOAT32, null, 999, false, 2);
        // Splitting again still works.
        List<Optional<Communicator>> again = split(parent, new int[] {1, 1, 1}, new int[3]);
        assertAllReduceWorks(group(again, new int[] {1, 1, 1}, 1), 10);
    }

    @Test
    void childrenOutliveAClosedParent() {
        List<Communicator> parent = local(2);
        List<Optional<Communicator>> children = split(parent, new int[] {0, 0}, new int[] {0, 1});
        List<Communicator> child = group(children, new int[] {0, 0}, 0);
        parent.forEach(Communicator::close);
        assertAllReduceWorks(child, 50);
        CollectiveRun.run(child, OpKind.REDUCE, DataType.FLOAT32, ReduceOp.Kind.MIN, 1000, false, 4);
    }

    @Test
    void badColorIsRejectedAndTheParentStillSplits() {
        List<Communicator> parent = local(2);
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> parent.get(0).split(-2, 0), "color", "-2");
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> parent.get(1).split(Integer.MIN_VALUE, 0), "color",
                Integer.toString(Integer.MIN_VALUE));
        List<Optional<Communicator>> children = split(parent, new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE},
                new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE});
        assertThat(children.get(1).orElseThrow().rank()).isZero();
        assertAllReduceWorks(group(children, new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE}, Integer.MAX_VALUE), 3);
    }

    @Test
    void splitAgainstAnotherCollectiveIsAMismatch() {
        List<Communicator> parent = local(2);
        try (Arena arena = Arena.ofShared()) {
            io.jccl.CollectiveFuture other = parent.get(1).allReduce(Buffer.of(arena.allocate(40)),
                    Buffer.of(arena.allocate(40)), 10,
                    DataType.INT32, ReduceOp.SUM);
            io.jccl.JcclException e = assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> parent.get(0).split(0, 0),
                    "do not match");
            assertThat(e.detail()).containsAnyOf("operation split vs allReduce", "operation allReduce vs split");
            io.jccl.JcclException o = CommAssertions.awaitFailure(other, ErrorCode.INVALID_USAGE, "do not match");
            assertThat(o.detail()).containsAnyOf("operation split vs allReduce", "operation allReduce vs split");
        }
        assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> parent.get(0).split(0, 0), "failed earlier");
    }

    @Test
    void splitQueuesBehindEarlierOperations() {
        List<Communicator> parent = local(2);
        // An all-reduce issued before the split must complete first; the split then works.
        try (Arena arena = Arena.ofShared()) {
            MemorySegment[] send = {arena.allocate(4000), arena.allocate(4000)};
            MemorySegment[] recv = {arena.allocate(4000), arena.allocate(4000)};
            List<io.jccl.CollectiveFuture> fs = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                fs.add(parent.get(r).allReduce(Buffer.of(send[r]), Buffer.of(recv[r]), 1000, DataType.INT32,
                        ReduceOp.SUM));
            }
            List<Optional<Communicator>> children = split(parent, new int[] {0, 0}, new int[2]);
            for (io.jccl.CollectiveFuture f : fs) {
                assertThat(f.isDone()).as("issued before the split, so completed before it returned").isTrue();
                awaitSuccess(f);
            }
            assertAllReduceWorks(group(children, new int[] {0, 0}, 0), 2);
        }
    }
}
