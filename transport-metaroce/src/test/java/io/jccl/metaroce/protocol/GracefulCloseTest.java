package io.jccl.metaroce.protocol;

import io.jccl.metaroce.protocol.conn.Connection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The graceful close of a connection (docs/metaroce-wire.md, "Closing"), on two endpoints over a lossy mini fabric:
 * everything posted before the close is delivered and acknowledged, receives nothing can fill end as
 * {@link CompletionStatus#PEER_DONE}, new work is refused, both sides end closed whichever closes first, lost
 * CLOSEs are repeated or answered again, and a side whose peer vanished after confirming stops waiting.
 */
class GracefulCloseTest {
    private static final byte[] KEY = new byte[32];

    record Done(long work, WorkKind kind, CompletionStatus status, long bytes) {
    }

    /** Two connected endpoints, a receive posted on b for each send a will make, plus one nothing fills. */
    private static final class Pair {
        final Endpoint a;
        final Endpoint b;
        final MiniFabric f;
        final int ca;
        final int cb;
        final List<Done> doneA = new ArrayList<>();
        final List<Done> doneB = new ArrayList<>();

        Pair(long seed, double loss) {
            a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed));
            b = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed + 100));
            f = new MiniFabric(seed, a, b);
            f.loss = loss;
            f.duplicate = loss / 4;
            f.jitterNs = 3_000;
            ca = a.connect(0, 1);
            assertThat(f.run(() -> b.connectionTo(0) >= 0 && a.isEstablished(ca), 10_000_000_000L)).isTrue();
            cb = b.connectionTo(0);
        }

        boolean run(java.util.function.BooleanSupplier done, long limitNs) {
            return f.run(() -> {
                a.pollCompletions((c, id, k, s, n) -> doneA.add(new Done(id, k, s, n)));
                b.pollCompletions((c, id, k, s, n) -> doneB.add(new Done(id, k, s, n)));
                return done.getAsBoolean();
            }, f.now + limitNs);
        }

        Connection.State stateA() {
            return a.connection(ca).state();
        }

        Connection.State stateB() {
            return b.connection(cb).state();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void aSideThatClosesRightAfterPostingStillDeliversEverything(long seed) {
        double loss = (seed % 4) * 0.07;   // 0 to 21%
        Pair p = new Pair(seed, loss);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(50_000);
            for (int i = 0; i < 50_000; i++) {
                src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + seed));
            }
            MemorySegment[] recv = new MemorySegment[4];
            long[] recvWork = new long[4];
            for (int m = 0; m < 4; m++) {
                recv[m] = arena.allocate(50_000);
                recvWork[m] = p.b.postRecv(p.cb, 3, recv[m], 0, 50_000);
            }
            long[] sizes = {0, 1, 4096, 50_000};   // an empty message is a message too
            long[] sendWork = new long[3];
            for (int m = 0; m < 3; m++) {
                sendWork[m] = p.a.postSend(p.ca, 3, src, 0, sizes[m + 1 == 3 ? 3 : m]);
            }
            p.a.shutdown(p.f.now, p.ca);
            // Refused at once, not queued: the closing side posts nothing new.
            long late = p.a.postSend(p.ca, 3, src, 0, 8);
            assertThat(p.run(() -> p.stateA() == Connection.State.CLOSED && p.stateB() == Connection.State.CLOSED,
                    60_000_000_000L)).as("both sides closed; a=%s b=%s", p.a.counters(), p.b.counters()).isTrue();
            assertThat(p.doneA).filteredOn(d -> d.work() == late).singleElement()
                    .extracting(Done::status).isEqualTo(CompletionStatus.CONNECTION_CLOSED);
            for (long w : sendWork) {
                assertThat(p.doneA).filteredOn(d -> d.work() == w).singleElement().extracting(Done::status)
                        .isEqualTo(CompletionStatus.OK);
            }
            for (int m = 0; m < 3; m++) {
                long w = recvWork[m];
                assertThat(p.doneB).filteredOn(d -> d.work() == w).singleElement().extracting(Done::status)
                        .isEqualTo(CompletionStatus.OK);
            }
            long size2 = sizes[3];
            assertThat(recv[2].asSlice(0, size2).mismatch(src.asSlice(0, size2))).isEqualTo(-1);
            long unfilled = recvWork[3];
            assertThat(p.doneB).filteredOn(d -> d.work() == unfilled).singleElement().extracting(Done::status)
                    .as("the receive nothing can fill").isEqualTo(CompletionStatus.PEER_DONE);
            assertThat(p.a.connection(p.ca).closeCause()).contains("everything delivered");
            assertThat(p.a.counters().get(Counter.CONNECTIONS_CLOSED_DRAINED)
                    + p.b.counters().get(Counter.CONNECTIONS_CLOSED_DRAINED)).isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {21, 22, 23, 24, 25, 26, 27, 28})
    void bothSidesClosingAtOnceEndClosedWithEverythingDelivered(long seed) {
        Pair p = new Pair(seed, 0.15);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ab = arena.allocate(30_000);
            MemorySegment ba = arena.allocate(30_000);
            MemorySegment inA = arena.allocate(30_000);
            MemorySegment inB = arena.allocate(30_000);
            long ra = p.a.postRecv(p.ca, 5, inA, 0, 30_000);
            long rb = p.b.postRecv(p.cb, 5, inB, 0, 30_000);
            long sa = p.a.postSend(p.ca, 5, ab, 0, 30_000);
            long sb = p.b.postSend(p.cb, 5, ba, 0, 30_000);
            p.a.shutdown(p.f.now, p.ca);
            p.b.shutdown(p.f.now, p.cb);
            assertThat(p.run(() -> p.stateA() == Connection.State.CLOSED && p.stateB() == Connection.State.CLOSED,
                    60_000_000_000L)).isTrue();
            for (long w : new long[] {sa, ra}) {
                assertThat(p.doneA).filteredOn(d -> d.work() == w).singleElement().extracting(Done::status)
                        .isEqualTo(CompletionStatus.OK);
            }
            for (long w : new long[] {sb, rb}) {
                assertThat(p.doneB).filteredOn(d -> d.work() == w).singleElement().extracting(Done::status)
                        .isEqualTo(CompletionStatus.OK);
            }
        }
    }

    @Test
    void aClosingSideWhosePeerVanishedAfterConfirmingStopsWaiting() {
        Pair p = new Pair(31, 0);
        p.a.shutdown(p.f.now, p.ca);
        // b answers, but every CLOSE of b's is lost, and b goes away right after (as a finished process does).
        p.f.loss = 0;
        assertThat(p.run(() -> p.stateB() == Connection.State.CLOSED, 10_000_000_000L)).isTrue();
        p.f.inFlight.clear();   // b's confirmation never arrives
        long since = p.f.now;
        Endpoint silent = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(1));
        p.f.nodes[1] = silent;   // b's process is gone: nothing answers any more
        assertThat(p.run(() -> p.stateA() == Connection.State.CLOSED, 60_000_000_000L)).isTrue();
        assertThat(p.a.connection(p.ca).closeCause()).contains("did not confirm").contains("silent");
        assertThat(p.f.now - since).as("waited about twice the RTO cap, not for ever")
                .isLessThan(4 * EndpointConfig.defaults(KEY).rtoMaxNs() + 1_000_000_000L);
    }

    @Test
    void aLostConfirmationIsAnsweredAgain() {
        Pair p = new Pair(41, 0);
        p.a.shutdown(p.f.now, p.ca);
        assertThat(p.run(() -> p.stateB() == Connection.State.CLOSED, 10_000_000_000L)).isTrue();
        p.f.inFlight.clear();   // the confirmation is lost; b is still there and answers a's repeated CLOSE
        assertThat(p.run(() -> p.stateA() == Connection.State.CLOSED, 10_000_000_000L)).isTrue();
        assertThat(p.a.connection(p.ca).closeCause()).isEqualTo("closed by both sides, everything delivered");
    }

    @Test
    void aWithdrawnWriteCompletesAsCancelledAndDoesNotHoldTheCloseUp() {
        Pair p = new Pair(51, 0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(1 << 20);
            // A WRITE to a region the peer never opened: nothing acknowledges it, so only withdrawing ends it.
            long w = p.a.postWrite(p.ca, 12345, 0, src, 0, 1 << 20);
            assertThat(p.a.cancelWrite(p.ca, w)).isTrue();
            assertThat(p.a.cancelWrite(p.ca, w)).as("once").isFalse();
            p.a.shutdown(p.f.now, p.ca);
            assertThat(p.run(() -> p.stateA() == Connection.State.CLOSED && p.stateB() == Connection.State.CLOSED,
                    10_000_000_000L)).isTrue();
            assertThat(p.doneA).filteredOn(d -> d.work() == w).singleElement().extracting(Done::status)
                    .isEqualTo(CompletionStatus.CANCELLED);
        }
    }
}
