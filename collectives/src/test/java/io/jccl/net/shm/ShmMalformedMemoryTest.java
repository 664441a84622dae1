package io.jccl.net.shm;

import static io.jccl.net.NetTransportConformanceTest.loopbackContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransportConformanceTest;
import io.jccl.net.ProgressSignal;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A misbehaving peer writing shared memory: records, ring positions, acknowledgements and connection offers that break
 * the format are refused ({@link NetException.Reason#PROTOCOL_ERROR}, a warning for offers), and nothing is written
 * outside the posted receive. The test plays the bad peer by writing the connection's slot directly.
 */
class ShmMalformedMemoryTest {
    private static final VarHandle LONG = Layouts.LONG;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
    private static final int CAPACITY = 4096;
    private static final int GUARD = 256;
    private static final byte CANARY = 0x5A;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        arena.close();
    }

    private ShmTransport transport(int rank, Map<String, String> options) {
        Map<String, String> o = new HashMap<>(options);
        o.putIfAbsent(ShmOptions.REGISTERED_BYTES, String.valueOf(1 << 20));
        o.putIfAbsent(ShmOptions.RING_BYTES, String.valueOf(64 << 10));
        ShmTransport t = (ShmTransport) new ShmTransportProvider().create(
                loopbackContext(rank, 2, ShmTransportConformanceTest.CONNECT_TIMEOUT, o));
        resources.add(t);
        return t;
    }

    /** A connection whose sending end the test writes by hand. */
    private record Bad(ShmSendConnection send, ShmRecvConnection recv, MemorySegment ring, MemorySegment control) {
    }

    private Bad link(Map<String, String> options) {
        ShmTransport a = transport(0, options);
        ShmTransport b = transport(1, options);
        Listener listener = b.listen(ProgressSignal.NONE);
        resources.add(listener);
        return connect(a, listener);
    }

    /** Connects {@code a} to the listener, polling both ends. */
    private static Bad connect(ShmTransport a, Listener listener) {
        NetTransportConformanceTest.Link link = NetTransportConformanceTest.complete(
                a.connect(listener.handle(), ProgressSignal.NONE), listener, Thread::onSpinWait);
        ShmSendConnection s = (ShmSendConnection) link.send();
        return new Bad(s, (ShmRecvConnection) link.recv(), s.ring, s.control);
    }

    /** Writes a record the way a sender does: fields first, the stamp last with release. */
    private static void record(MemorySegment ring, long pos, long number, int kind, long length, long... fields) {
        for (int i = 0; i < fields.length; i++) {
            ring.set(WORD, pos + 8L * (i + 1), fields[i]);
        }
        LONG.setRelease(ring, pos, Records.stamp(number, kind, length));
    }

    /** A receive buffer with canaries before and after the receive's window. */
    private MemorySegment guarded() {
        MemorySegment m = arena.allocate(GUARD + CAPACITY + GUARD);
        m.fill(CANARY);
        return m;
    }

    private static void assertGuardsIntact(MemorySegment m) {
        for (long i = 0; i < GUARD; i++) {
            assertThat(m.get(ValueLayout.JAVA_BYTE, i)).as("byte %d before the receive", GUARD - i)
                    .isEqualTo(CANARY);
            assertThat(m.get(ValueLayout.JAVA_BYTE, GUARD + CAPACITY + i)).as("byte %d after the receive", i)
                    .isEqualTo(CANARY);
        }
    }

    /** Polls a receive until it fails (or completes); @return its failure, null when it completed */
    private static NetException outcome(NetRequest recv) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() - deadline < 0) {
            try {
                if (recv.test() != NetRequest.NOT_DONE) {
                    return null;
                }
            } catch (NetException e) {
                return e;
            }
        }
        throw new AssertionError("the receive neither completed nor failed");
    }

    /** The request must fail with a protocol error whose message contains {@code messagePart}. */
    private static void assertProtocolError(NetRequest request, String messagePart) {
        NetException e = outcome(request);
        assertThat(e).as("outcome of the request").isNotNull();
        assertThat(e.reason()).as(e.getMessage()).isEqualTo(NetException.Reason.PROTOCOL_ERROR);
        assertThat(e.getMessage()).contains(messagePart);
    }

    private void assertRefused(Bad bad, MemorySegment buffer, NetRequest recv, String messagePart) {
        assertProtocolError(recv, messagePart);
        assertGuardsIntact(buffer);
        for (long i = 0; i < CAPACITY; i++) {
            assertThat(buffer.get(ValueLayout.JAVA_BYTE, GUARD + i)).as("receive byte %d", i).isEqualTo(CANARY);
        }
    }

    private NetRequest post(Bad bad, MemorySegment buffer) {
        return bad.recv().irecv(buffer, GUARD, CAPACITY, 7, null);
    }

    /**
     * One record of a message that breaks the format, with a part of the message it is refused with.
     *
     * @param fields the record's words after the stamp: tag, then the kind's own
     */
    static Stream<Arguments> singleBadRecords() {
        return Stream.of(
                Arguments.of("record number out of sequence", 5, Records.INLINE, 8, new long[] {7L, 0x1111L},
                        "record number 5"),
                Arguments.of("unknown kind", 1, 9, 0, new long[] {7L}, "unknown kind 9"),
                Arguments.of("inline record running past the ring's end", 1, Records.INLINE, 64 << 10,
                        new long[] {7L}, "runs past the ring's end"),
                Arguments.of("START longer than its message", 1, Records.START, 100, new long[] {7L, 50L},
                        "START record"),
                Arguments.of("continuation outside a message", 1, Records.MORE, 10, new long[] {0L},
                        "continuation record outside any message"),
                Arguments.of("impossible message length", 1, Records.REG, 0, new long[] {7L, -5L, 0L},
                        "a message of -5 bytes"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("singleBadRecords")
    void aSingleBadRecordIsRefused(String what, long number, int kind, long length, long[] fields,
                                   String messagePart) {
        Bad bad = link(Map.of());
        MemorySegment buffer = guarded();
        NetRequest recv = post(bad, buffer);
        record(bad.ring(), 0, number, kind, length, fields);
        assertRefused(bad, buffer, recv, messagePart);
    }

    /**
     * Records that start a message and then break it, each as {position, number, kind, length, fields...}, with a
     * part of the message it is refused with.
     */
    static Stream<Arguments> brokenMessages() {
        return Stream.of(
                Arguments.of("more chunks than announced (100 announced, 158 sent)", new long[][] {
                    {0, 1, Records.START, 64, 7L, 100L, 0L}, {128, 2, Records.MORE, 30, 0L},
                    {192, 3, Records.MORE, 64, 0L}}, "more payload than its message header announced"),
                Arguments.of("a new message inside another", new long[][] {
                    {0, 1, Records.START, 64, 7L, 1000L, 0L}, {128, 2, Records.INLINE, 8, 7L}},
                        "before the previous one ended"));
    }

    /** The first chunk lands in the receive; nothing may land outside it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenMessages")
    void aMessageBrokenMidwayIsRefusedAndNothingOutsideTheReceiveIsWritten(String what, long[][] records,
                                                                           String messagePart) {
        Bad bad = link(Map.of());
        MemorySegment buffer = guarded();
        NetRequest recv = post(bad, buffer);
        for (long[] r : records) {
            record(bad.ring(), r[0], r[1], (int) r[2], r[3], Arrays.copyOfRange(r, 4, r.length));
        }
        assertProtocolError(recv, messagePart);
        assertGuardsIntact(buffer);
    }

    @Test
    void aChunkThatWouldSplitAnElementForASinkIsRefused() {
        Bad bad = link(Map.of());
        long[] taken = {0};
        NetRequest recv = bad.recv().irecv((from, fromOffset, messageOffset, bytes) -> taken[0] += bytes, CAPACITY, 7);
        record(bad.ring(), 0, 1, Records.START, 100, 7L, 200L, 0L);   // a first chunk of 100 bytes of 200
        assertProtocolError(recv, "in the middle of a message");
        assertThat(taken[0]).as("bytes the sink was given").isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 1 << 20, (1 << 20) - 100, Long.MAX_VALUE - 10})
    void aRegisteredOffsetOutsideTheSendersHeapIsRefused(long offset) {
        Bad bad = link(Map.of());
        MemorySegment buffer = guarded();
        NetRequest recv = post(bad, buffer);
        record(bad.ring(), 0, 1, Records.REG, 0, 7L, 200L, offset);
        assertRefused(bad, buffer, recv, "registered heap");
    }

    @Test
    void aCrossMemoryDescriptorOnARingConnectionIsRefused() {
        Bad bad = link(Map.of(ShmOptions.LARGE, "ring"));
        assertThat(bad.recv().mode()).isEqualTo(Layout.MODE_RING);
        MemorySegment buffer = guarded();
        NetRequest recv = post(bad, buffer);
        record(bad.ring(), 0, 1, Records.CMA, 0, 7L, 100L, buffer.address());
        assertRefused(bad, buffer, recv, "does not use cross-memory attach");
    }

    @Test
    void aCrossMemoryDescriptorNamingMemoryTheSenderLacksIsRefused() {
        org.junit.jupiter.api.Assumptions.assumeTrue(CrossMemory.check().usable(),
                "cross-memory attach is refused on this host");
        Bad bad = link(Map.of(ShmOptions.LARGE, "cma"));
        MemorySegment buffer = guarded();
        NetRequest recv = post(bad, buffer);
        record(bad.ring(), 0, 1, Records.CMA, 0, 7L, 100L, 4096L);   // the first page is never mapped
        assertRefused(bad, buffer, recv, "does not have");
    }

    @Test
    void aReceiverThatPublishesAnImpossibleHeadBreaksTheSender() {
        Bad bad = link(Map.of(ShmOptions.LARGE, "ring"));
        LONG.setRelease(bad.control(), Layout.S_HEAD, 1L << 40);
        MemorySegment big = arena.allocate(256 << 10);
        NetRequest send = bad.send().isend(big, 0, big.byteSize(), 1, null);
        assertProtocolError(send, "published ring position");
    }

    @Test
    void aReceiverThatAcknowledgesUnsentMessagesBreaksTheSender() {
        org.junit.jupiter.api.Assumptions.assumeTrue(CrossMemory.check().usable(),
                "cross-memory attach is refused on this host");
        Bad bad = link(Map.of(ShmOptions.LARGE, "cma"));
        MemorySegment big = arena.allocate(256 << 10);
        NetRequest send = bad.send().isend(big, 0, big.byteSize(), 1, null);
        LONG.setRelease(bad.control(), Layout.S_ACKS, 5L);
        assertProtocolError(send, "acknowledged 5");
    }

    /**
     * Seeded random records (plausible stamps, any kind, any lengths and fields): whatever the receive's outcome, it
     * writes nothing outside its window and fails, if it fails, with a reason the SPI knows.
     */
    @Test
    void randomRecordsNeverMakeTheReceiverWriteOutsideTheReceive() {
        Random random = new Random(20261201);
        for (int round = 0; round < 150; round++) {
            Bad bad = link(Map.of(ShmOptions.REGISTERED_BYTES, String.valueOf(64 << 10)));
            MemorySegment buffer = guarded();
            NetRequest recv = post(bad, buffer);
            long pos = 0;
            for (int r = 1; r <= 4; r++) {
                long number = random.nextInt(8) == 0 ? random.nextInt() : r;
                int kind = 1 + random.nextInt(7);
                long length = switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(64);
                    case 1 -> random.nextInt(CAPACITY * 2);
                    case 2 -> random.nextInt(1 << 24);
                    default -> 0;
                };
                long total = random.nextBoolean() ? length + random.nextInt(CAPACITY) : random.nextLong();
                long address = switch (random.nextInt(3)) {
                    case 0 -> random.nextInt(64 << 10);
                    case 1 -> buffer.address() + random.nextInt(GUARD + CAPACITY);
                    default -> random.nextLong();
                };
                long tag = random.nextInt(4) == 0 ? random.nextLong() : 7L;
                record(bad.ring(), pos, number, kind, length, tag, total, address);
                pos += 64L * (1 + random.nextInt(4));
                if (pos >= (64 << 10) - 256) {
                    break;
                }
            }
            try {
                for (int i = 0; i < 100 && recv.test() == NetRequest.NOT_DONE; i++) {
                    Thread.onSpinWait();
                }
            } catch (NetException e) {
                assertThat(e.reason()).as("round %d: %s", round, e.getMessage()).isIn(NetException.Reason.PROTOCOL_ERROR,
                        NetException.Reason.TAG_MISMATCH, NetException.Reason.TRUNCATED,
                        NetException.Reason.PEER_CLOSED);
            }
            assertGuardsIntact(buffer);
            closeAllNow();
        }
    }

    private void closeAllNow() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception ignored) {
                // best effort
            }
        }
        resources.clear();
    }

    @Test
    void aBogusOfferIsRefusedAndNeverSurfacesWhileARealOneIsAccepted() {
        ShmTransport a = transport(0, Map.of());
        ShmTransport b = transport(1, Map.of());
        Listener listener = b.listen(ProgressSignal.NONE);
        resources.add(listener);
        ShmHandle handle = ShmHandle.decode(listener.handle());
        // The bad peer claims slot 0 and offers nonsense: a descriptor of this process that is no segment.
        MemorySegment own = b.ownSegment().memory;
        long at = b.ownSegment().slotOffset((int) (long) LONG.getAndAdd(own, Layout.H_NEXT_SLOT, 1L));
        own.set(ValueLayout.JAVA_INT, at + Layout.S_LISTENER, handle.listenerId());
        own.set(ValueLayout.JAVA_INT, at + Layout.S_RANK, 3);
        own.set(WORD, at + Layout.S_PID, ProcessHandle.current().pid());
        own.set(WORD, at + Layout.S_SEGMENT_FD, 0L);   // standard input
        own.set(WORD, at + Layout.S_SEGMENT_BYTES, 1L << 20);
        LONG.setRelease(own, at + Layout.S_STATE, Layout.STATE_OFFERED);
        assertThat(listener.accept()).as("a bogus offer surfaces").isNull();
        assertThat((long) LONG.getAcquire(own, at + Layout.S_STATE)).isEqualTo(Layout.STATE_REFUSED);

        Bad real = connect(a, listener);
        MemorySegment src = arena.allocate(8);
        src.set(WORD, 0, 42L);
        MemorySegment dst = arena.allocate(8);
        NetRequest r = real.recv().irecv(dst, 0, 8, 1, null);
        NetRequest s = real.send().isend(src, 0, 8, 1, null);
        assertThat(outcome(s)).isNull();
        assertThat(outcome(r)).isNull();
        assertThat(dst.get(WORD, 0)).isEqualTo(42L);
    }
}
