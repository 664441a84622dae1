package io.jccl.metaroce.conformance;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.WorkKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What any driver of the MetaRoCE core must deliver, run against each one (the simulator, the UDP driver): two
 * connected endpoints, WRITEs and SENDs with exact data and per-stream order, late receives, truncation, empty
 * messages, and close. A subclass says how to make and drive a connected pair.
 */
public abstract class DriverConformanceTest {
    /** How a driver steps a pair's endpoints. */
    @FunctionalInterface
    protected interface Stepper {
        /**
         * Drives both endpoints (work posted since the last call included) until {@code done} holds.
         *
         * @return false when a generous limit passed first (a hang, reported as a failure)
         */
        boolean runUntil(BooleanSupplier done);
    }

    /**
     * Two connected endpoints and how to drive them.
     *
     * @param a       the connecting side
     * @param b       the accepting side
     * @param atA     the connection id at {@code a}
     * @param atB     the connection id at {@code b}
     * @param clock   the driver's clock
     * @param stepper drives both endpoints
     * @param closer  releases what the driver holds
     */
    protected record Pair(Endpoint a, Endpoint b, int atA, int atB, LongSupplier clock, Stepper stepper,
                          Runnable closer) implements AutoCloseable {
        /** @return the driver's clock */
        long nowNs() {
            return clock.getAsLong();
        }

        /** @see Stepper#runUntil */
        boolean runUntil(BooleanSupplier done) {
            return stepper.runUntil(done);
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    /** @return a connected pair, driven by the driver under test, deterministic for a seed where it can be */
    protected abstract Pair connectedPair(long seed);

    private record Done(long work, WorkKind kind, CompletionStatus status, long bytes) {
    }

    private final Arena arena = Arena.ofShared();
    private final List<Pair> pairs = new ArrayList<>();
    private final List<Done> doneA = new ArrayList<>();
    private final List<Done> doneB = new ArrayList<>();

    @AfterEach
    final void closeEverything() {
        pairs.forEach(Pair::close);
        arena.close();
    }

    private Pair pair(long seed) {
        Pair p = connectedPair(seed);
        pairs.add(p);
        return p;
    }

    private MemorySegment pattern(long size, long seed) {
        MemorySegment s = arena.allocate(Math.max(1, size));
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        return s;
    }

    private boolean until(Pair p, int aCount, int bCount) {
        return p.runUntil(() -> {
            p.a().pollCompletions((c, id, kind, status, bytes) -> doneA.add(new Done(id, kind, status, bytes)));
            p.b().pollCompletions((c, id, kind, status, bytes) -> doneB.add(new Done(id, kind, status, bytes)));
            return doneA.size() >= aCount && doneB.size() >= bCount;
        });
    }

    /** Runs until each side has a completion, and checks that each has exactly one, of that status. */
    private void assertEachCompletesOnce(Pair p, CompletionStatus atA, CompletionStatus atB) {
        assertThat(until(p, 1, 1)).isTrue();
        assertThat(doneA).extracting(Done::status).containsExactly(atA);
        assertThat(doneB).extracting(Done::status).containsExactly(atB);
    }

    @Test
    void aWriteArrivesExactlyAtAnOddOffsetAndNothingAroundItChanges() {
        Pair p = pair(1);
        long size = (1 << 20) + 3;
        MemorySegment src = pattern(size + 7, 1);
        MemorySegment region = arena.allocate(size + 64);
        region.fill((byte) 0x77);
        int key = p.b().registerRegion(region, true);
        long id = p.a().postWrite(p.atA(), key, 13, src, 7, size);
        assertThat(until(p, 1, 0)).isTrue();
        assertThat(doneA).containsExactly(new Done(id, WorkKind.WRITE, CompletionStatus.OK, size));
        assertThat(region.asSlice(13, size).mismatch(src.asSlice(7, size))).isEqualTo(-1);
        for (long i = 0; i < 13; i++) {
            assertThat(region.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x77);
        }
        for (long i = 13 + size; i < region.byteSize(); i++) {
            assertThat(region.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x77);
        }
    }

    @Test
    void sendsCompleteInPostingOrderPerStreamBothWays() {
        Pair p = pair(2);
        int messages = 12;
        List<MemorySegment> sent = new ArrayList<>();
        List<MemorySegment> into = new ArrayList<>();
        for (int m = 0; m < messages; m++) {
            MemorySegment s = pattern(1000 + m * 9973, 10 + m);
            sent.add(s);
            MemorySegment r = arena.allocate(200_000);
            into.add(r);
            p.b().postRecv(p.atB(), m % 3, r, 0, r.byteSize());
        }
        MemorySegment back = pattern(50_000, 99);
        MemorySegment backInto = arena.allocate(50_000);
        p.a().postRecv(p.atA(), 5, backInto, 0, backInto.byteSize());
        for (int m = 0; m < messages; m++) {
            p.a().postSend(p.atA(), m % 3, sent.get(m), 0, sent.get(m).byteSize());
        }
        p.b().postSend(p.atB(), 5, back, 0, back.byteSize());
        assertThat(until(p, messages + 1, messages + 1)).isTrue();
        for (int m = 0; m < messages; m++) {
            long len = sent.get(m).byteSize();
            assertThat(into.get(m).asSlice(0, len).mismatch(sent.get(m))).as("message %d", m).isEqualTo(-1);
        }
        assertThat(backInto.mismatch(back)).isEqualTo(-1);
        List<Long> recvBytes = doneB.stream().filter(d -> d.kind() == WorkKind.RECV).map(Done::bytes).toList();
        List<Long> expected = new ArrayList<>();
        for (int m = 0; m < messages; m++) {
            expected.add(sent.get(m).byteSize());
        }
        // Per stream in posting order (message sizes are all different); streams interleave freely.
        for (int stream = 0; stream < 3; stream++) {
            List<Long> got = new ArrayList<>();
            List<Long> want = new ArrayList<>();
            for (int m = stream; m < messages; m += 3) {
                want.add(expected.get(m));
            }
            for (Long b : recvBytes) {
                if (want.contains(b)) {
                    got.add(b);
                }
            }
            assertThat(got).as("stream %d", stream).containsExactlyElementsOf(want);
        }
    }

    @Test
    void aSendWhoseReceiveIsPostedLateStillLandsOnce() {
        Pair p = pair(3);
        MemorySegment s = pattern(300_000, 3);
        p.a().postSend(p.atA(), 1, s, 0, s.byteSize());
        long[] polls = new long[1];
        p.runUntil(() -> p.b().counters().get(Counter.RNR_SENT) > 0 && ++polls[0] > 1_000);   // not ready yet
        MemorySegment r = arena.allocate(300_000);
        p.b().postRecv(p.atB(), 1, r, 0, r.byteSize());
        assertEachCompletesOnce(p, CompletionStatus.OK, CompletionStatus.OK);
        assertThat(r.mismatch(s)).isEqualTo(-1);
        assertThat(p.b().counters().get(Counter.RNR_SENT)).as("the receiver said it was not ready").isPositive();
    }

    @Test
    void aMessageLongerThanItsReceiveCompletesTruncatedAndWritesNothing() {
        Pair p = pair(4);
        MemorySegment s = pattern(10_000, 4);
        MemorySegment r = arena.allocate(5_000);
        r.fill((byte) 0x33);
        p.b().postRecv(p.atB(), 2, r, 0, r.byteSize());
        p.a().postSend(p.atA(), 2, s, 0, s.byteSize());
        assertThat(until(p, 1, 1)).isTrue();
        assertThat(doneB).extracting(Done::status).containsExactly(CompletionStatus.TRUNCATED);
        for (long i = 0; i < r.byteSize(); i++) {
            assertThat(r.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x33);
        }
    }

    @Test
    void emptyMessagesCarryNothingButComplete() {
        Pair p = pair(5);
        MemorySegment r = arena.allocate(16);
        p.b().postRecv(p.atB(), 0, r, 0, 16);
        p.a().postSend(p.atA(), 0, arena.allocate(1), 0, 0);
        assertEachCompletesOnce(p, CompletionStatus.OK, CompletionStatus.OK);
        assertThat(doneB).containsExactly(new Done(doneB.getFirst().work(), WorkKind.RECV, CompletionStatus.OK, 0));
    }

    @Test
    void closeCompletesPendingWorkOnBothSidesAsClosed() {
        Pair p = pair(6);
        p.a().postRecv(p.atA(), 9, arena.allocate(1000), 0, 1000);
        p.b().postRecv(p.atB(), 9, arena.allocate(1000), 0, 1000);
        p.a().close(p.nowNs(), p.atA());
        assertEachCompletesOnce(p, CompletionStatus.CONNECTION_CLOSED, CompletionStatus.CONNECTION_CLOSED);
    }
}
