package io.jccl.metaroce.udp;

import io.jccl.metaroce.fabric.ImpairmentRelay;
import io.jccl.metaroce.fabric.RateLimit;
import io.jccl.metaroce.fabric.RelayCounters;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.impair.Impairments;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** MetaRoCE on real loopback sockets through the impairment relay: exact data under loss and a black hole. */
@Tag("integration")
class RelayTransferTest {


    /** Connects a to b through the relay and moves a WRITE and three SENDs; returns b's region. */
    private static void transfer(UdpDriver a, UdpDriver b, ImpairmentRelay relay, Arena arena, long size,
                                 Runnable midway) {
        long peerB = a.addPeer(relay.addressesForA());
        b.addPeer(relay.addressesForB());
        Endpoint ea = a.endpoint();
        Endpoint eb = b.endpoint();
        MemorySegment src = Loopback.randomBytes(arena, size, 7);
        MemorySegment region = arena.allocate(size);
        int key = eb.registerRegion(region, true);
        int conn = Loopback.connect(a, b, peerB);
        int back = eb.connectionTo(1);
        MemorySegment[] recv = new MemorySegment[3];
        for (int m = 0; m < 3; m++) {
            recv[m] = arena.allocate(300_000);
            eb.postRecv(back, 2, recv[m], 0, 300_000);
        }
        List<CompletionStatus> doneA = new ArrayList<>();
        List<CompletionStatus> doneB = new ArrayList<>();
        ea.postWrite(conn, key, 0, src, 0, size);
        for (int m = 0; m < 3; m++) {
            ea.postSend(conn, 2, src, m * 1000L, 300_000 - m);
        }
        midway.run();
        boolean finished = Loopback.run(a, b, () -> {
            ea.pollCompletions((c, id, kind, status, bytes) -> doneA.add(status));
            eb.pollCompletions((c, id, kind, status, bytes) -> doneB.add(status));
            return doneA.size() == 4 && doneB.size() == 3;
        });
        assertThat(finished).as("a=%s b=%s%n%s%n%s%nrelay %s", doneA, doneB, ea.counters(), eb.counters(),
                relay.counters()).isTrue();
        assertThat(doneA).containsOnly(CompletionStatus.OK);
        assertThat(doneB).containsOnly(CompletionStatus.OK);
        assertThat(region.mismatch(src)).isEqualTo(-1);
        for (int m = 0; m < 3; m++) {
            long len = 300_000 - m;
            assertThat(recv[m].asSlice(0, len).mismatch(src.asSlice(m * 1000L, len))).isEqualTo(-1);
        }
    }

    @Test
    void exactThroughLossDuplicatesReorderingAndCorruption() {
        try (UdpDriver a = Loopback.driver(1); UdpDriver b = Loopback.driver(2); Arena arena = Arena.ofConfined();
             ImpairmentRelay relay = new ImpairmentRelay(InetAddress.getLoopbackAddress(), a.localAddresses(),
                     b.localAddresses(), Impairments.NONE.withLossRate(0.02).withDuplicateRate(0.01)
                             .withReorder(0.01, 10, 100_000).withCorruptRate(0.005), 0, 42)) {
            relay.start();
            transfer(a, b, relay, arena, 8 << 20, () -> { });
            assertThat(relay.counter(ImpairmentRelay.DROPPED_LOSS)).isPositive();
            assertThat(relay.counter(ImpairmentRelay.DUPLICATED)).isPositive();
            assertThat(relay.counter(ImpairmentRelay.REORDERED)).isPositive();
            assertThat(relay.counter(ImpairmentRelay.CORRUPTED)).isPositive();
            assertThat(b.endpoint().counters().drops(DropReason.BAD_CRC)
                    + a.endpoint().counters().drops(DropReason.BAD_CRC)).isPositive();
        }
    }

    @Test
    void aBlackHoledPathIsReroutedOntoANewSourcePortAndTheTransferCompletes() {
        try (UdpDriver a = Loopback.driver(3); UdpDriver b = Loopback.driver(4); Arena arena = Arena.ofConfined();
             ImpairmentRelay relay = new ImpairmentRelay(InetAddress.getLoopbackAddress(), a.localAddresses(),
                     b.localAddresses(), Impairments.NONE, 0, 43)) {
            relay.start();
            transfer(a, b, relay, arena, 64 << 20, () -> relay.blackHolePath(3, System.nanoTime(),
                    System.nanoTime() + 3_600_000_000_000L));   // for good: only a new route gets through
            assertThat(relay.counter(ImpairmentRelay.DROPPED_BLACK_HOLE)).isPositive();
            assertThat(a.endpoint().counters().get(Counter.PATHS_FAILED)).isPositive();
            assertThat(a.socketsRebound()).isPositive();
            assertThat(a.endpoint().counters().get(Counter.PATHS_READMITTED)).isPositive();
        }
    }

    @Test
    void aTinyRateLimitedQueueDropsAtItsTailAndTheTransferCompletes() {
        try (UdpDriver a = Loopback.driver(5); UdpDriver b = Loopback.driver(6); Arena arena = Arena.ofConfined();
             ImpairmentRelay relay = new ImpairmentRelay(InetAddress.getLoopbackAddress(), a.localAddresses(),
                     b.localAddresses(), Impairments.NONE, 0, new RateLimit(100_000_000, 12 << 10, 4 << 10), 44)) {
            relay.start();
            transfer(a, b, relay, arena, 4 << 20, () -> { });
            assertThat(relay.counter(RelayCounters.DROPPED_QUEUE_FULL)).isPositive();
            assertThat(relay.counter(RelayCounters.ECN_MARKED)).isPositive();
        }
    }
}
