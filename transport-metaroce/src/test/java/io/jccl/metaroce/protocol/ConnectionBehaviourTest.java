package io.jccl.metaroce.protocol;

import io.jccl.metaroce.protocol.conn.Connection;
import io.jccl.metaroce.protocol.wire.Crc32c;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import io.jccl.metaroce.protocol.wire.Flags;
import io.jccl.metaroce.protocol.wire.HandshakeInitFlyweight;
import io.jccl.metaroce.protocol.wire.HeaderFlyweight;
import io.jccl.metaroce.protocol.wire.PacketType;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Streams, receiver-not-ready, truncation, close, ECN, and hostile packets, on the minimal fabric. */
class ConnectionBehaviourTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

    record Done(long work, WorkKind kind, CompletionStatus status, long bytes) {
    }

    private final List<Done> doneA = new ArrayList<>();
    private final List<Done> doneB = new ArrayList<>();
    private Endpoint a;
    private Endpoint b;
    private MiniFabric f;
    private int ca;
    private int cb;
    /** B's session tag for its connection to A: what packets forged towards B carry. */
    private int tag;
    /** B's key for the region {@link #setUpWithRegion} registered. */
    private int key;

    private void setUp(long seed, double loss) {
        setUp(seed, loss, EndpointConfig.defaults(KEY));
    }

    private void setUp(long seed, double loss, EndpointConfig config) {
        a = new Endpoint(config, new SplittableRandom(seed));
        b = new Endpoint(config, new SplittableRandom(seed + 1));
        f = new MiniFabric(seed, a, b);
        f.loss = loss;
        ca = a.connect(0, 1);
        assertThat(f.run(() -> a.isEstablished(ca), 1_000_000_000L)).isTrue();
        cb = b.connectionTo(0);
        tag = b.connection(cb).sessionTag();
    }

    /**
     * {@link #setUp} without loss, and a region at B open for writes.
     *
     * @return the region ({@link #key} is its key)
     */
    private MemorySegment setUpWithRegion(long seed, Arena arena, long bytes) {
        setUp(seed, 0.0);
        MemorySegment region = arena.allocate(bytes);
        key = b.registerRegion(region, true);
        return region;
    }

    private boolean until(int aCount, int bCount) {
        return f.run(() -> {
            a.pollCompletions((c, id, k, s, n) -> doneA.add(new Done(id, k, s, n)));
            b.pollCompletions((c, id, k, s, n) -> doneB.add(new Done(id, k, s, n)));
            return doneA.size() >= aCount && doneB.size() >= bCount;
        }, 20_000_000_000L);
    }

    @Test
    void receivesCompleteInStreamOrderAndStreamsAreIndependent() {
        setUp(1, 0.05);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = TestData.pattern(arena, 300_000, 3);
            List<Long> recvIds = new ArrayList<>();
            MemorySegment[] bufs = new MemorySegment[6];
            for (int m = 0; m < 6; m++) {
                bufs[m] = arena.allocate(200_000);
                recvIds.add(b.postRecv(cb, m % 2, bufs[m], 0, 200_000));
            }
            // Big first messages, small later ones: the later ones arrive first.
            for (int m = 0; m < 6; m++) {
                a.postSend(ca, m % 2, src, m, m < 2 ? 150_000 : 100 + m);
            }
            assertThat(until(6, 6)).as("%s %s", a.counters(), b.counters()).isTrue();
            assertThat(f.refused).as("datagrams onDatagram said it dropped: those the counters count")
                    .isEqualTo(a.counters().totalDrops() + b.counters().totalDrops());
            List<Long> order = doneB.stream().map(Done::work).toList();
            // Per stream, in posting order.
            assertThat(order.stream().filter(id -> recvIds.indexOf(id) % 2 == 0).toList())
                    .containsExactly(recvIds.get(0), recvIds.get(2), recvIds.get(4));
            assertThat(order.stream().filter(id -> recvIds.indexOf(id) % 2 == 1).toList())
                    .containsExactly(recvIds.get(1), recvIds.get(3), recvIds.get(5));
            for (int m = 0; m < 6; m++) {
                int len = m < 2 ? 150_000 : 100 + m;
                assertThat(bufs[m].asSlice(0, len).mismatch(src.asSlice(m, len))).isEqualTo(-1);
            }
        }
    }

    @Test
    void aSendBeforeItsReceiveIsAnsweredNotReadyAndLandsOnceTheReceiveIsPosted() {
        setUp(2, 0.0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = TestData.pattern(arena, 50_000, 5);
            a.postSend(ca, 9, src, 0, 50_000);
            f.run(() -> b.counters().get(Counter.RNR_SENT) > 0 && a.counters().get(Counter.RNR_RECEIVED) > 0,
                    1_000_000_000L);
            assertThat(doneA).as("the send must not complete before the receiver placed it").isEmpty();
            MemorySegment buf = arena.allocate(50_000);
            b.postRecv(cb, 9, buf, 0, 50_000);
            assertThat(until(1, 1)).as("%s %s", a.counters(), b.counters()).isTrue();
            assertThat(doneA.getFirst().status()).isEqualTo(CompletionStatus.OK);
            assertThat(buf.mismatch(src)).isEqualTo(-1);
        }
    }

    /**
     * Sends posted to be acknowledged lazily (eager small messages their sender completed already) share one path
     * and one ACK, which waits for more of them or the lazy delay; an ordinary send is acknowledged at once.
     */
    @Test
    void lazilyAcknowledgedSendsShareOneAckAfterTheLazyDelay() {
        setUp(11, 0.0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = TestData.pattern(arena, 64, 11);
            MemorySegment dst = arena.allocate(64 * 4);
            for (int m = 0; m < 4; m++) {
                b.postRecv(cb, 0, dst, m * 64L, 64);
            }
            long acksBefore = b.counters().get(Counter.ACK_PACKETS_SENT);
            long postedNs = f.now;
            // Two: a path starts with a window of 4 packets, and a sender asks for an ACK at once when its window
            // is nearly full.
            for (int m = 0; m < 2; m++) {
                a.postSend(ca, 0, src, 0, 64, true);
            }
            assertThat(until(0, 2)).isTrue();
            assertThat(doneA).as("acknowledged as soon as they arrived").isEmpty();
            assertThat(b.counters().get(Counter.ACK_PACKETS_SENT)).isEqualTo(acksBefore);
            assertThat(until(2, 2)).isTrue();
            assertThat(f.now - postedNs).as("completed before the lazy delay")
                    .isGreaterThanOrEqualTo(Connection.lazyAckDelayNs(EndpointConfig.defaults(KEY)));
            assertThat(b.counters().get(Counter.ACK_PACKETS_SENT) - acksBefore).as("ACKs for the two").isEqualTo(1);
            long sentNs = f.now;
            a.postSend(ca, 0, src, 0, 64);
            assertThat(until(3, 3)).isTrue();
            assertThat(f.now - sentNs).as("an ordinary send's acknowledgement").isLessThan(4 * f.delayNs);
            for (int m = 0; m < 3; m++) {
                assertThat(dst.asSlice(m * 64L, 64).mismatch(src)).isEqualTo(-1);
            }
        }
    }

    /**
     * The last packet of a message is lost and nothing follows it on its path, so no acknowledgement can reveal the
     * hole: a tail probe sends it again after two round trips and the longest ACK delay, long before the 5 ms
     * retransmission timeout (the metaroce transport's floor), which never fires.
     */
    @Test
    void aLostTailIsSentAgainByATailProbeLongBeforeTheTimeout() {
        EndpointConfig config = EndpointConfig.defaults(KEY).withRto(5_000_000, 50_000_000);
        setUp(12, 0.0, config);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = TestData.pattern(arena, 10_000, 12);
            MemorySegment dst = arena.allocate(10_000 * 2);
            b.postRecv(cb, 0, dst, 0, 10_000);
            a.postSend(ca, 0, src, 0, 10_000);
            assertThat(until(1, 1)).as("a first message gives the paths a round trip").isTrue();
            int[] dropped = {0};
            f.dropIf = bytes -> {
                int flags = bytes[HeaderFlyweight.FLAGS_FIELD_OFFSET];
                boolean tail = bytes[HeaderFlyweight.TYPE_FIELD_OFFSET] == PacketType.SEND
                        && (flags & Flags.LAST) != 0 && (flags & Flags.RETRANSMISSION) == 0;
                return tail && dropped[0]++ == 0;
            };
            long postedNs = f.now;
            b.postRecv(cb, 0, dst, 10_000, 10_000);
            a.postSend(ca, 0, src, 0, 10_000);
            assertThat(until(2, 2)).isTrue();
            assertThat(dropped[0]).as("the tail was dropped once").isEqualTo(1);
            assertThat(f.now - postedNs).as("recovered well before the retransmission timeout")
                    .isLessThan(config.rtoFloorNs() / 2);
            assertThat(a.counters().get(Counter.RETRANSMITS_TAIL)).isEqualTo(1);
            assertThat(a.counters().get(Counter.RTO_FIRINGS)).isZero();
            assertThat(dst.asSlice(10_000, 10_000).mismatch(src)).isEqualTo(-1);
        }
    }

    @Test
    void aMessageLongerThanItsReceiveCompletesTruncatedAndWritesNothing() {
        setUp(3, 0.0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = TestData.pattern(arena, 10_000, 7);
            MemorySegment buf = arena.allocate(9_000);
            b.postRecv(cb, 1, buf, 0, 8_000);
            a.postSend(ca, 1, src, 0, 10_000);
            assertThat(until(1, 1)).isTrue();
            assertThat(doneB.getFirst().status()).isEqualTo(CompletionStatus.TRUNCATED);
            for (long i = 0; i < buf.byteSize(); i++) {
                assertThat(buf.get(ValueLayout.JAVA_BYTE, i)).isZero();
            }
        }
    }

    @Test
    void closeCompletesPendingWorkOnBothSides() {
        setUp(4, 0.0);
        try (Arena arena = Arena.ofConfined()) {
            b.postRecv(cb, 1, arena.allocate(100), 0, 100);
            a.postRecv(ca, 2, arena.allocate(100), 0, 100);
            a.close(f.now, ca);
            assertThat(until(1, 1)).isTrue();
            assertThat(doneA).extracting(Done::status).containsOnly(CompletionStatus.CONNECTION_CLOSED);
            assertThat(doneB).extracting(Done::status).containsOnly(CompletionStatus.CONNECTION_CLOSED);
            long id = a.postSend(ca, 1, arena.allocate(8), 0, 8);
            assertThat(until(2, 1)).isTrue();
            assertThat(doneA.get(1)).isEqualTo(new Done(id, WorkKind.SEND, CompletionStatus.CONNECTION_CLOSED, 0));
        }
    }

    @Test
    void ecnMarksCutWindowsButTheTransferCompletes() {
        setUp(5, 0.0);
        f.ecnMark = 0.2;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = TestData.pattern(arena, 4 << 20, 9);
            MemorySegment region = arena.allocate(4 << 20);
            int key = b.registerRegion(region, true);
            a.postWrite(ca, key, 0, src, 0, src.byteSize());
            assertThat(until(1, 0)).isTrue();
            assertThat(region.mismatch(src)).isEqualTo(-1);
            assertThat(a.counters().get(Counter.ECN_WINDOW_CUTS)).isPositive();
            assertThat(b.counters().get(Counter.ECN_MARKS_RECEIVED)).isPositive();
        }
    }

    // ---- Hostile packets ----

    private static int finish(byte[] p, int lengthWithoutCrc) {
        return new Crc32c().finish(new UnsafeBuffer(p), 0, lengthWithoutCrc);
    }

    /** A WRITE with a valid CRC for connection {@code conn}/{@code tag}, as an attacker could build it. */
    private static byte[] write(int conn, int tag, int path, int generation, int key, long base, long offset,
                                long messageLength, int payload) {
        return write(conn, tag, path, generation, 77, key, base, offset, messageLength, payload);
    }

    private static byte[] write(int conn, int tag, int path, int generation, int message, int key, long base,
                                long offset, long messageLength, int payload) {
        byte[] p = new byte[DataFlyweight.DATA_HEADER_LENGTH + payload + 4];
        new DataFlyweight().wrap(new UnsafeBuffer(p), 0)
                .putHeader(PacketType.WRITE, 0, path, generation, conn, tag, payload)
                .psn(0)
                .message(message)
                .target(key)
                .messageOffset(offset)
                .messageLength(messageLength)
                .base(base);
        for (int i = 0; i < payload; i++) {
            p[DataFlyweight.PAYLOAD_FIELD_OFFSET + i] = (byte) 0xEE;
        }
        finish(p, DataFlyweight.DATA_HEADER_LENGTH + payload);
        return p;
    }

    /** @return what the engine says of it: null when taken, else why it was dropped */
    private DropReason deliver(byte[] p) {
        return b.onDatagram(f.now, 0, 0, new UnsafeBuffer(p), 0, p.length, false);
    }

    @Test
    void forgedAndOutOfBoundsPacketsAreDroppedCountedAndTouchNothing() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = setUpWithRegion(6, arena, 8192);
            MemorySegment readOnlyNeighbour = arena.allocate(8192);
            int keyNotWritable = b.registerRegion(readOnlyNeighbour, false);
            int gen = 0;
            // Each is dropped, and onDatagram says why (a driver learns nothing from a dropped datagram).
            assertThat(deliver(write(cb + 1, tag, 0, gen, key, 0, 0, 100, 100)))         // unknown connection
                    .isEqualTo(DropReason.UNKNOWN_CONNECTION);
            assertThat(deliver(write(cb, tag + 1, 0, gen, key, 0, 0, 100, 100)))         // wrong session tag
                    .isEqualTo(DropReason.BAD_SESSION_TAG);
            assertThat(deliver(write(cb, tag, 9, gen, key, 0, 0, 100, 100)))             // path beyond the 8
                    .isEqualTo(DropReason.BAD_PATH);
            assertThat(deliver(write(cb, tag, 0, gen, key + 1, 0, 0, 100, 100)))         // unknown region key
                    .isEqualTo(DropReason.BAD_REGION_KEY);
            assertThat(deliver(write(cb, tag, 0, gen, keyNotWritable, 0, 0, 100, 100))) // not open for writes
                    .isEqualTo(DropReason.BAD_REGION_KEY);
            assertThat(deliver(write(cb, tag, 0, gen, key, 8100, 0, 100, 100)))          // beyond the region's end
                    .isEqualTo(DropReason.REGION_BOUNDS);
            assertThat(deliver(write(cb, tag, 0, gen, key, -5, 0, 100, 100)))            // negative base
                    .isEqualTo(DropReason.REGION_BOUNDS);
            assertThat(deliver(write(cb, tag, 0, gen, key, 0, 1, 100, 99)))              // offset off a chunk boundary
                    .isEqualTo(DropReason.MESSAGE_BOUNDS);
            assertThat(deliver(write(cb, tag, 0, gen, key, 0, 0, 100, 50)))              // shorter than the chunk
                    .isEqualTo(DropReason.MESSAGE_BOUNDS);
            deregisterAndWriteAgain(key, tag, gen);
            byte[] garbage = new byte[100];
            new SplittableRandom(6).nextBytes(garbage);
            assertThat(deliver(garbage)).isIn(DropReason.BAD_MAGIC, DropReason.TRUNCATED, DropReason.BAD_LENGTH);
            byte[] truncated = java.util.Arrays.copyOf(write(cb, tag, 0, gen, key, 0, 0, 100, 100), 60);
            assertThat(deliver(truncated)).isIn(DropReason.BAD_MAGIC, DropReason.TRUNCATED, DropReason.BAD_LENGTH);
            byte[] corrupted = write(cb, tag, 0, gen, key, 0, 0, 100, 100);
            corrupted[70] ^= 1;
            assertThat(deliver(corrupted)).isEqualTo(DropReason.BAD_CRC);
            byte[] badInit = new byte[HandshakeInitFlyweight.FRAME_LENGTH];
            new HandshakeInitFlyweight().wrap(new UnsafeBuffer(badInit), 0)
                    .putHeader(0, 0)
                    .paths(8)
                    .payloadBytes(4096);
            finish(badInit, HandshakeInitFlyweight.FRAME_LENGTH - 4);
            assertThat(b.onDatagram(f.now, 42, 0, new UnsafeBuffer(badInit), 0, badInit.length, false))
                    .isEqualTo(DropReason.BAD_HANDSHAKE_MAC);   // MAC of zeros

            Counters c = b.counters();
            assertThat(c.drops(DropReason.UNKNOWN_CONNECTION)).isEqualTo(1);
            assertThat(c.drops(DropReason.BAD_SESSION_TAG)).isEqualTo(1);
            assertThat(c.drops(DropReason.BAD_PATH)).isEqualTo(1);
            assertThat(c.drops(DropReason.BAD_REGION_KEY)).isEqualTo(3);
            assertThat(c.drops(DropReason.REGION_BOUNDS)).isEqualTo(2);
            assertThat(c.drops(DropReason.MESSAGE_BOUNDS)).isEqualTo(2);
            assertThat(c.drops(DropReason.BAD_MAGIC) + c.drops(DropReason.TRUNCATED)
                    + c.drops(DropReason.BAD_LENGTH)).isEqualTo(2);
            assertThat(c.drops(DropReason.BAD_CRC)).isEqualTo(1);
            assertThat(c.drops(DropReason.BAD_HANDSHAKE_MAC)).isEqualTo(1);
            assertThat(b.connectionTo(42)).isEqualTo(-1);
            assertThat(c.get(Counter.PAYLOAD_BYTES_PLACED)).isZero();
            for (long i = 0; i < 8192; i++) {
                assertThat(region.get(ValueLayout.JAVA_BYTE, i)).isZero();
                assertThat(readOnlyNeighbour.get(ValueLayout.JAVA_BYTE, i)).isZero();
            }
            // The real connection still works.
            MemorySegment src = TestData.pattern(arena, 5000, 1);
            a.postWrite(ca, key, 100, src, 0, 5000);
            assertThat(until(1, 0)).isTrue();
            assertThat(doneA.getFirst().status()).isEqualTo(CompletionStatus.OK);
            assertThat(region.asSlice(100, 5000).mismatch(src)).isEqualTo(-1);
        }
    }

    @Test
    void aLateDuplicateOfAWriteThatCompletedOutOfOrderDoesNotLandAgain() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = setUpWithRegion(7, arena, 8192);
            byte[] second = write(cb, tag, 0, 0, 1, key, 4096, 0, 100, 100);   // WRITE 1 while WRITE 0 is missing
            deliver(second);
            assertThat(region.get(ValueLayout.JAVA_BYTE, 4096)).isEqualTo((byte) 0xEE);
            // The sender saw WRITE 1 complete; the application reuses that memory.
            region.asSlice(4096, 100).fill((byte) 0x11);
            deliver(second.clone());   // a network duplicate, late
            for (long i = 4096; i < 4196; i++) {
                assertThat(region.get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo((byte) 0x11);
            }
            assertThat(b.counters().get(Counter.PAYLOAD_BYTES_PLACED)).isEqualTo(100);
            assertThat(b.counters().get(Counter.DUPLICATE_PACKETS_RECEIVED)).isEqualTo(1);
        }
    }

    /**
     * Write-with-immediate over a lossy, duplicating, reordering fabric: the receiver hears of each such WRITE exactly
     * once, with its immediate and length, only when every byte is in place; a plain WRITE tells it nothing. Seeded:
     * {@code -Djccl.test.seed=S} repeats one seed.
     */
    @Test
    void aWriteWithImmediateIsReportedAtTheReceiverOnceWhenEveryByteIsInPlace() {
        long first = Long.getLong("jccl.test.seed", 20);
        long last = Long.getLong("jccl.test.seed") != null ? first : first + 7;
        for (long seed = first; seed <= last; seed++) {
            doneA.clear();
            doneB.clear();
            setUp(seed, 0.05);
            f.duplicate = 0.05;
            f.jitterNs = 20_000;
            try (Arena arena = Arena.ofConfined()) {
                int[] sizes = {0, 1, 4096, 5000, 100_000, 64 * 4096};
                MemorySegment region = arena.allocate(1 << 20);
                int key = b.registerRegion(region, true);
                MemorySegment[] sources = new MemorySegment[sizes.length];
                long[] at = new long[sizes.length];
                long offset = 0;
                for (int i = 0; i < sizes.length; i++) {
                    sources[i] = TestData.pattern(arena, sizes[i], (int) seed + i);
                    at[i] = offset;
                    offset += sizes[i] + 64;
                    a.postWriteImmediate(ca, key, at[i], sources[i], 0, sizes[i], 0xF000_0000 + i);
                }
                MemorySegment plain = TestData.pattern(arena, 9000, 99);
                a.postWrite(ca, key, offset, plain, 0, 9000);
                List<String> wrongAtCompletion = new ArrayList<>();
                boolean finished = f.run(() -> {
                    a.pollCompletions((c, id, k, st, n) -> doneA.add(new Done(id, k, st, n)));
                    b.pollCompletions((c, id, k, st, n) -> {
                        doneB.add(new Done(id, k, st, n));
                        int i = (int) (id - 0xF000_0000L);
                        if (i < 0 || i >= sizes.length
                                || region.asSlice(at[i], sizes[i]).mismatch(sources[i]) != -1) {
                            wrongAtCompletion.add("immediate " + Long.toHexString(id));
                        }
                    });
                    return doneA.size() >= sizes.length + 1;
                }, 20_000_000_000L);
                assertThat(finished).as("seed %d: the sender's WRITEs complete", seed).isTrue();
                assertThat(doneA).allMatch(d -> d.status() == CompletionStatus.OK && d.kind() == WorkKind.WRITE);
                // Acknowledgements follow placement: once the sender's WRITEs completed, every immediate was reported.
                b.pollCompletions((c, id, k, st, n) -> doneB.add(new Done(id, k, st, n)));
                assertThat(wrongAtCompletion).as("seed %d: reported before its bytes were in place", seed).isEmpty();
                List<Done> expected = new ArrayList<>();
                for (int i = 0; i < sizes.length; i++) {
                    expected.add(new Done(0xF000_0000L + i, WorkKind.IMMEDIATE, CompletionStatus.OK, sizes[i]));
                }
                assertThat(doneB).as("seed %d", seed).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(region.asSlice(offset, 9000).mismatch(plain)).isEqualTo(-1);
            }
        }
    }

    @Test
    void aLateCopyOfAWriteWithImmediateIsAcknowledgedAfterItsRegionClosedAndNotReportedAgain() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = setUpWithRegion(11, arena, 8192);
            byte[] only = withImmediate(write(cb, tag, 0, 0, 0, key, 0, 0, 100, 100), 0x1234_5678);
            assertThat(deliver(only)).isNull();
            List<Done> reported = new ArrayList<>();
            b.pollCompletions((c, id, k, st, n) -> reported.add(new Done(id, k, st, n)));
            assertThat(reported).containsExactly(new Done(0x1234_5678L, WorkKind.IMMEDIATE, CompletionStatus.OK, 100));
            // The receiver closes the region at once; the sender missed the ACK and sends the packet again.
            b.deregisterRegion(key);
            assertThat(deliver(only.clone())).as("acknowledged as a duplicate, not dropped").isNull();
            assertThat(b.counters().get(Counter.DUPLICATE_PACKETS_RECEIVED)).isEqualTo(1);
            b.pollCompletions((c, id, k, st, n) -> reported.add(new Done(id, k, st, n)));
            assertThat(reported).hasSize(1);
            // A WRITE not yet complete still needs its region.
            assertThat(deliver(withImmediate(write(cb, tag, 0, 0, 1, key, 0, 0, 100, 100), 1)))
                    .isEqualTo(DropReason.BAD_REGION_KEY);
        }
    }

    @Test
    void anImmediateOnlyRidesOnTheLastPacketOfAWrite() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = setUpWithRegion(12, arena, 1 << 16);
            int payload = b.connection(cb).payloadBytes();
            // Flagged LAST (the validator's rule) but not the message's last packet by its offset.
            assertThat(deliver(withImmediate(write(cb, tag, 0, 0, 0, key, 0, 0, 2L * payload, payload), 7)))
                    .isEqualTo(DropReason.MESSAGE_BOUNDS);
            assertThat(region.get(ValueLayout.JAVA_BYTE, 0)).isZero();
            List<Done> reported = new ArrayList<>();
            b.pollCompletions((c, id, k, st, n) -> reported.add(new Done(id, k, st, n)));
            assertThat(reported).isEmpty();
        }
    }

    /** The same WRITE packet with IMMEDIATE (and LAST) set and {@code immediate} after its payload. */
    private static byte[] withImmediate(byte[] p, int immediate) {
        byte[] q = java.util.Arrays.copyOf(p, p.length + DataFlyweight.IMMEDIATE_LENGTH);
        DataFlyweight d = new DataFlyweight().wrap(new UnsafeBuffer(q), 0);
        d.flags(d.flags() | io.jccl.metaroce.protocol.wire.Flags.LAST);
        d.putImmediate(immediate);
        finish(q, q.length - Crc32c.LENGTH);
        return q;
    }

    @Test
    void writeIdsFarAheadOfTheOldestIncompleteOneAreDropped() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = setUpWithRegion(8, arena, 8192);
            int limit = EndpointConfig.defaults(KEY).maxPendingWork();
            deliver(write(cb, tag, 0, 0, limit, key, 0, 0, 100, 100));       // no sender has that many outstanding
            deliver(write(cb, tag, 0, 0, limit - 1, key, 4096, 0, 100, 100));   // the last id a sender can use
            assertThat(b.counters().drops(DropReason.MESSAGE_BOUNDS)).isEqualTo(1);
            assertThat(region.get(ValueLayout.JAVA_BYTE, 0)).isZero();
            assertThat(region.get(ValueLayout.JAVA_BYTE, 4096)).isEqualTo((byte) 0xEE);
        }
    }

    @Test
    void aMessageTooLongToCountInPacketsIsRefusedAtPost() {
        setUp(9, 0.0);
        long tooLong = (long) Integer.MAX_VALUE * EndpointConfig.defaults(KEY).payloadBytes() + 1;
        MemorySegment huge = MemorySegment.ofAddress(0).reinterpret(tooLong);   // never read: refused first
        assertThatThrownBy(() -> a.postWrite(ca, 1, 0, huge, 0, tooLong))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("postWrite: length " + tooLong);
        assertThatThrownBy(() -> a.postSend(ca, 0, huge, 0, tooLong))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("more than one message can carry");
    }

    private void deregisterAndWriteAgain(int key, int tag, int gen) {
        // A key that was valid and is not any more must not accept writes.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment other = arena.allocate(8192);
            int stale = b.registerRegion(other, true);
            b.deregisterRegion(stale);
            assertThat(deliver(write(b.connectionTo(0), tag, 0, gen, stale, 0, 0, 100, 100)))
                    .isEqualTo(DropReason.BAD_REGION_KEY);
            for (long i = 0; i < 8192; i++) {
                assertThat(other.get(ValueLayout.JAVA_BYTE, i)).isZero();
            }
        }
    }
}
