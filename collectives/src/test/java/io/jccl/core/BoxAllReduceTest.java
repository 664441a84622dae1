package io.jccl.core;

import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.check.CollectiveCheck;
import io.jccl.net.BoxPeer;
import io.jccl.plan.Fingerprint;
import io.jccl.plan.OpKind;
import io.jccl.reduce.Reducers;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link BoxAllReduce} on box lines in this process's memory, the ranks stepped by one thread in seeded random orders
 * (a failing seed is named and replays the same interleaving): exact results, the same bits on every rank, a line
 * never overwritten while a peer may still read it, and calls that differ across ranks failing with both named.
 */
class BoxAllReduceTest {
    private static final int SEEDS = 40;

    /** The box lines of {@code size} ranks and each rank's view of its peers; counts the wake-ups. */
    private static final class Host {
        final Arena arena;
        final MemorySegment[] lines;
        final int[] wakes;
        final BoxAllReduce[] runs;

        Host(Arena arena, int size) {
            this.arena = arena;
            lines = new MemorySegment[size];
            wakes = new int[size];
            for (int r = 0; r < size; r++) {
                lines[r] = arena.allocate(BoxPeer.BOX_BYTES, 64);
            }
            runs = new BoxAllReduce[size];
            for (int r = 0; r < size; r++) {
                BoxPeer[] peers = new BoxPeer[size];
                for (int p = 0; p < size; p++) {
                    if (p != r) {
                        int peer = p;
                        peers[p] = new BoxPeer() {
                            @Override
                            public MemorySegment lines() {
                                return lines[peer];
                            }

                            @Override
                            public void wakeIfAsleep() {
                                wakes[peer]++;
                            }
                        };
                    }
                }
                runs[r] = new BoxAllReduce(r, lines[r], peers);
            }
        }

        /** Starts {@code rank}'s INT64 sum all-reduce, announced as call {@code seq} of {@code announcedCount}. */
        void start(int rank, OpRequest request, long seq, long announcedCount) {
            runs[rank].start(request, seq, tag(seq, announcedCount),
                    Reducers.of(DataType.INT64, ReduceOp.SUM, runs.length));
        }

        /** Starts {@code rank}'s first call, as {@link #startFirstCall}, and steps it once: that publishes its line. */
        void publishFirstCall(int rank, long count) {
            startFirstCall(rank, count);
            runs[rank].progress();
        }

        /** Announces that {@code rank} runs call {@code seq}, of {@code count} INT64, by another algorithm. */
        void announce(int rank, long seq, long count) {
            runs[rank].announce(seq, tag(seq, count));
        }

        /** Starts {@code rank}'s in-place all-reduce of {@code count} INT64 in fresh memory, as call 0. */
        void startFirstCall(int rank, long count) {
            start(rank, allReduce(count, arena.allocate(8 * count)), 0, count);
        }
    }

    /** One rank's call: a box all-reduce, or a collective some other algorithm runs (announced, done at once). */
    private record Call(boolean box, long seq, CollectiveCheck check, DataType type) {
    }

    @Test
    void everyRankEndsWithTheExactResultAndTheSameBitsWhateverTheInterleaving() {
        DataType[] types = {DataType.FLOAT32, DataType.INT64, DataType.FLOAT16, DataType.BFLOAT16, DataType.INT8,
            DataType.FLOAT64, DataType.FLOAT8_E4M3};
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            int size = 2 + random.nextInt(4);
            int calls = 12;
            List<Call> script = new ArrayList<>();
            for (int s = 0; s < calls; s++) {
                DataType type = types[random.nextInt(types.length)];
                ReduceOp.Kind op = ReduceOp.Kind.values()[random.nextInt(ReduceOp.Kind.values().length)];
                if (new CollectiveCheck(OpKind.ALL_REDUCE, type, op, size, 1, -1, 0).opFor(0)
                        .unsupportedReason(type) != null) {
                    op = ReduceOp.Kind.SUM;
                }
                long count = 1 + random.nextInt(BoxAllReduce.PAYLOAD_BYTES / type.sizeBytes());
                boolean box = random.nextInt(4) != 0;
                script.add(new Call(box, s, new CollectiveCheck(OpKind.ALL_REDUCE, type, op, size, count, -1,
                        seed * 100L + s), type));
            }
            runScript(seed, size, script, random);
        }
    }

    private static void runScript(int seed, int size, List<Call> script, Random random) {
        try (Arena arena = Arena.ofConfined()) {
            Host host = new Host(arena, size);
            int[] next = new int[size];
            boolean[] started = new boolean[size];
            MemorySegment[][] recvs = new MemorySegment[size][script.size()];
            int finished = 0;
            long steps = 0;
            while (finished < size) {
                assertThat(++steps).as("seed %d: the ranks stopped making progress", seed).isLessThan(1_000_000);
                int r = random.nextInt(size);
                if (next[r] == script.size()) {
                    continue;
                }
                Call call = script.get(next[r]);
                CollectiveCheck check = call.check();
                long tag = Fingerprint.tag(OpKind.ALL_REDUCE, call.seq(), check.count(), call.type(),
                        check.opFor(r), -1);
                if (!call.box()) {
                    host.runs[r].announce(call.seq(), tag);
                    advance(next, r, script.size());
                    finished += next[r] == script.size() ? 1 : 0;
                    continue;
                }
                BoxAllReduce run = host.runs[r];
                if (!started[r]) {
                    MemorySegment send = arena.allocate(check.count() * call.type().sizeBytes(), 64);
                    check.fillSend(r, send);
                    recvs[r][next[r]] = arena.allocate(send.byteSize(), 64);
                    run.start(OpRequest.collective(OpKind.ALL_REDUCE, check.count(), call.type(), check.opFor(r), -1,
                            send, recvs[r][next[r]], false, null), call.seq(), tag,
                            Reducers.of(call.type(), check.opFor(r), size));
                    started[r] = true;
                }
                run.progress();
                if (run.done()) {
                    MemorySegment recv = recvs[r][next[r]];
                    assertThat(check.countWrong(r, recv)).as("seed %d, rank %d, call %d: %s", seed, r, call.seq(),
                            check.countWrong(r, recv) > 0 ? check.firstMismatch(r, recv) : "").isZero();
                    started[r] = false;
                    advance(next, r, script.size());
                    finished += next[r] == script.size() ? 1 : 0;
                }
            }
            for (int s = 0; s < script.size(); s++) {
                for (int r = 1; r < size && script.get(s).box(); r++) {
                    assertThat(recvs[r][s].mismatch(recvs[0][s])).as("seed %d, call %d: rank %d's bits differ from "
                            + "rank 0's", seed, s, r).isEqualTo(-1L);
                }
            }
        }
    }

    private static void advance(int[] next, int r, int calls) {
        next[r] = Math.min(calls, next[r] + 1);
    }

    /**
     * Two threads, one rank each, alternating box calls with calls another algorithm runs (announced, done at once):
     * a peer that publishes a call, completes it and announces the next between two of this rank's looks at its lines
     * is not taken for one that called something else, and every result is exact.
     */
    @Test
    void ranksOnTwoThreadsAlternatingBoxAndOtherCallsNeverSeeAFalseMismatch() throws Exception {
        int calls = 200_000;
        try (Arena arena = Arena.ofShared()) {
            Host host = new Host(arena, 2);
            Throwable[] failures = new Throwable[2];
            java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
            Thread[] threads = new Thread[2];
            for (int r = 0; r < 2; r++) {
                int rank = r;
                MemorySegment send = arena.allocate(8);
                MemorySegment recv = arena.allocate(8);
                threads[r] = Thread.ofPlatform().name("box-rank-" + r).start(() -> {
                    try {
                        for (long seq = 0; seq < calls; seq++) {
                            if (seq % 2 == 1) {
                                host.announce(rank, seq, 3);
                                continue;
                            }
                            send.set(ValueLayout.JAVA_LONG, 0, seq * 10 + rank);
                            start(host, rank, seq, send, recv);
                            while (!host.runs[rank].done()) {
                                if (failed.get()) {
                                    return;   // the peer failed: it will never publish
                                }
                                host.runs[rank].progress();
                                Thread.onSpinWait();
                            }
                            long expected = 2 * seq * 10 + 1;
                            if (recv.get(ValueLayout.JAVA_LONG, 0) != expected) {
                                throw new AssertionError("rank " + rank + ", call " + seq + ": "
                                        + recv.get(ValueLayout.JAVA_LONG, 0) + " instead of " + expected);
                            }
                        }
                    } catch (Throwable t) {
                        failures[rank] = t;
                        failed.set(true);
                    }
                });
            }
            for (Thread t : threads) {
                t.join(600_000);   // a hang, not slowness
                assertThat(t.isAlive()).as("%s still runs", t.getName()).isFalse();
            }
            assertThat(failures).containsOnlyNulls();
        }
    }

    @Test
    void aLineIsNotOverwrittenWhileAPeerMayStillReadIt() {
        try (Arena arena = Arena.ofConfined()) {
            Host host = new Host(arena, 2);
            MemorySegment[] sends = new MemorySegment[2];
            MemorySegment[] recvs = new MemorySegment[2];
            for (int r = 0; r < 2; r++) {
                sends[r] = arena.allocate(8);
                sends[r].set(ValueLayout.JAVA_LONG, 0, 10 + r);
                recvs[r] = arena.allocate(8);
            }
            // Call 0 by the box: rank 0 publishes and reads rank 1's line; rank 1 publishes but has not read yet.
            start(host, 0, 0, sends[0], recvs[0]);
            start(host, 1, 0, sends[1], recvs[1]);
            host.runs[0].progress();
            host.runs[1].progress();
            host.runs[0].progress();
            assertThat(host.runs[0].done()).isTrue();
            // Call 1 by another algorithm that completes at once on rank 0 (a root's broadcast, say), then call 2 by
            // the box: its line is call 0's, which rank 1 has not read.
            host.announce(0, 1, 1);
            sends[0].set(ValueLayout.JAVA_LONG, 0, 1000);
            start(host, 0, 2, sends[0], arena.allocate(8));
            host.runs[0].progress();
            assertThat(host.runs[0].done()).isFalse();
            assertThat(host.runs[0].waitingFor()).contains("ranks [1] to finish");
            host.runs[1].progress();
            assertThat(host.runs[1].done()).isTrue();
            assertThat(recvs[1].get(ValueLayout.JAVA_LONG, 0)).as("rank 1 read call 0's line intact").isEqualTo(21);
            assertThat(recvs[0].get(ValueLayout.JAVA_LONG, 0)).isEqualTo(21);
            // Once rank 1 starts call 1, rank 0 publishes call 2.
            host.announce(1, 1, 1);
            host.runs[0].progress();
            assertThat(host.runs[0].waitingFor()).isEqualTo("the box lines of ranks [1]");
        }
    }

    @Test
    void aPeerThatCalledWithAnotherCountFailsTheCallWithBothNamed() {
        try (Arena arena = Arena.ofConfined()) {
            Host host = new Host(arena, 2);
            host.startFirstCall(0, 1);
            host.publishFirstCall(1, 2);
            assertRank0FailsAsAMismatchNaming(host, "rank 1 called allReduce(count=2", "rank 0 called allReduce(count=1");
        }
    }

    @Test
    void aPeerThatRunsAnotherAlgorithmForTheSameCallFailsTheCall() {
        try (Arena arena = Arena.ofConfined()) {
            Host host = new Host(arena, 3);
            host.publishFirstCall(0, 1);
            assertThat(host.runs[0].done()).isFalse();
            host.announce(2, 0, 100);   // rank 2 called with 800 bytes: not by the box
            assertRank0FailsAsAMismatchNaming(host, "rank 2 called allReduce(count=100");
        }
    }

    @Test
    void publishingAndAnnouncingWakeEveryPeerAndOnlyThem() {
        try (Arena arena = Arena.ofConfined()) {
            Host host = new Host(arena, 3);
            host.publishFirstCall(1, 1);
            assertThat(host.wakes).containsExactly(1, 0, 1);
            host.announce(2, 0, 1);
            assertThat(host.wakes).containsExactly(2, 1, 1);
        }
    }

    /** Rank 0's next step fails its call with INVALID_USAGE, as calls that do not match, naming each fragment. */
    private static void assertRank0FailsAsAMismatchNaming(Host host, String... fragments) {
        assertThatThrownBy(() -> host.runs[0].progress()).isInstanceOf(JcclException.class)
                .satisfies(e -> assertThat(((JcclException) e).code()).isEqualTo(ErrorCode.INVALID_USAGE))
                .hasMessageContaining("do not match")
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    private static void start(Host host, int rank, long seq, MemorySegment send, MemorySegment recv) {
        host.start(rank, OpRequest.collective(OpKind.ALL_REDUCE, 1, DataType.INT64, ReduceOp.SUM, -1, send, recv,
                false, null), seq, 1);
    }

    private static OpRequest allReduce(long count, MemorySegment send) {
        return OpRequest.collective(OpKind.ALL_REDUCE, count, DataType.INT64, ReduceOp.SUM, -1, send,
                send.asSlice(0, 8 * count), true, null);
    }

    private static long tag(long seq, long count) {
        return Fingerprint.tag(OpKind.ALL_REDUCE, seq, count, DataType.INT64, ReduceOp.SUM, -1);
    }
}
