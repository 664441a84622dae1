package io.jccl.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviour every {@link NetTransport} must show, as tests. A transport's test class extends this one and
 * implements {@link #createTransport(int, int)}; every test here then runs against that transport.
 *
 * <p>Most tests drive both ends of a connection from the test thread: they post requests and poll
 * {@link NetRequest#test()} on all of them in turn, which makes progress for transports that progress inside
 * {@code test()} and merely observes it for those with their own threads. Between polls the suite calls
 * {@link #idle()}. The tests named {@code ...Threads...} run each rank on its own thread, as separate
 * executors do.
 *
 * <p>Assumptions the suite makes beyond the SPI's Javadoc:
 * <ul>
 *   <li>A send completes when its sender polls it, once the matching receive is posted, even if nobody polls that
 *       receive yet (a transport may of course complete it earlier). A transport whose sends complete only once the
 *       receiving side has copied them (shm's large messages) steps its posted receives in {@link #idle()}, as the
 *       receiving rank's executor would.</li>
 *   <li>Requests still count against {@link NetProperties#maxInflightRequests()} after they complete, until
 *       {@code test()} has reported them.</li>
 *   <li>Posting on a connection that is closed or known to be broken either throws a {@link NetException} with
 *       the reason, or returns a request that fails with it; both are accepted.</li>
 *   <li>After a {@link NetException.Reason#TAG_MISMATCH} or {@link NetException.Reason#TRUNCATED} receive, the
 *       connection either keeps working (the next receive matches the next message) or fails later requests
 *       with {@link NetException.Reason#PROTOCOL_ERROR}; both are accepted.</li>
 * </ul>
 *
 * <p>No test asserts on timing. {@link #WAIT_LIMIT} only turns a hang into a failure.
 */
public abstract class NetTransportConformanceTest {
    /** Longest any single wait may take before the test fails instead of hanging; not a performance bound. */
    protected static final Duration WAIT_LIMIT = Duration.ofSeconds(60);

    private static final long TAG = 0x7A6L;
    private static final int SMALL_BYTES = 1000;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final Map<NetTransport, Listener> listeners = new IdentityHashMap<>();
    /** Memory for the test's buffers, freed after the transports are closed. */
    protected final Arena arena = Arena.ofShared();

    /**
     * Creates the transport of one rank. Called once per rank by each test; the suite closes what it creates.
     *
     * @param rank the rank, 0 to {@code size - 1}
     * @param size the number of ranks in the test
     * @return a fresh transport
     */
    protected abstract NetTransport createTransport(int rank, int size);

    /**
     * Called between polls while the suite waits for progress. Yields the CPU by default; a transport whose
     * progress needs something else driven can override it.
     */
    protected void idle() {
        Thread.yield();
    }

    @AfterEach
    final void closeEverything() throws Exception {
        Exception first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        arena.close();
        if (first != null) {
            throw first;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Connection setup

    @Test
    void connectAndAcceptCompleteWhenPolledInterleaved() {
        NetTransport[] t = transports(2);
        Listener listener = track(t[1].listen(ProgressSignal.NONE));
        assertThat(listener.handle()).isNotEmpty();
        assertThat(listener.accept()).as("accept before anyone connects").isNull();

        PendingConnect pending = t[0].connect(listener.handle(), ProgressSignal.NONE);
        Link link = complete(pending, listener);
        assertThat(listener.accept()).as("a second accept with nobody else connecting").isNull();
        assertMessageGoesThrough(link, 12345, 99);
    }

    @Test
    void cancelledAttemptDoesNotDisturbLaterConnections() {
        NetTransport[] t = transports(2);
        Listener listener = listener(t[1]);
        t[0].connect(listener.handle(), ProgressSignal.NONE).cancel();
        Link link = connect(t[0], t[1]);
        assertMessageGoesThrough(link, 5000, 1);
    }

    @Test
    void cancelAfterConnectingIsHarmless() {
        NetTransport[] t = transports(2);
        Listener listener = listener(t[1]);
        PendingConnect pending = t[0].connect(listener.handle(), ProgressSignal.NONE);
        Link link = complete(pending, listener);
        pending.cancel();
        assertMessageGoesThrough(link, 300, 2);
    }

    @Test
    void malformedHandlesAreRejected() {
        NetTransport[] t = transports(2);
        byte[] valid = listener(t[1]).handle();
        byte[] truncated = Arrays.copyOf(valid, valid.length - 1);
        for (byte[] handle : List.of(new byte[0], truncated)) {
            NetException e = connectFailure(t[0], handle);
            assertThat(e.reason()).as("reason for a handle of %d bytes", handle.length)
                    .isEqualTo(NetException.Reason.PROTOCOL_ERROR);
        }
        byte[] garbage = new byte[valid.length];
        new Random(42).nextBytes(garbage);
        for (byte[] handle : List.of(garbage, new byte[valid.length], new byte[] {1, 2, 3})) {
            NetException e = connectFailure(t[0], handle);
            assertThat(e.reason()).as("reason for a garbage handle")
                    .isIn(NetException.Reason.PROTOCOL_ERROR, NetException.Reason.IO_ERROR);
        }
    }

    @Test
    void severalRanksConnectToOneListener() {
        int size = 4;
        NetTransport[] t = transports(size);
        Listener listener = listener(t[0]);
        List<PendingConnect> pending = new ArrayList<>();
        for (int rank = 1; rank < size; rank++) {
            pending.add(t[rank].connect(listener.handle(), ProgressSignal.NONE));
        }
        SendConnection[] sends = new SendConnection[size];
        List<RecvConnection> accepted = new ArrayList<>();
        pollUntil(() -> {
            for (int rank = 1; rank < size; rank++) {
                if (sends[rank] == null) {
                    sends[rank] = pending.get(rank - 1).poll();
                    if (sends[rank] != null) {
                        track(sends[rank]);
                    }
                }
            }
            RecvConnection recv = listener.accept();
            if (recv != null) {
                accepted.add(track(recv));
            }
            return accepted.size() == size - 1 && Arrays.stream(sends, 1, size).allMatch(s -> s != null);
        }, "three connections to one listener");

        Link[] byRank = identifySenders(sends, accepted, 0);
        for (int rank = 1; rank < size; rank++) {
            streamMessages(byRank[rank], 10, 700, rank);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Matching and content

    @Test
    void hundredsOfMessagesArriveInOrderWithTheirContent() {
        Link link = link();
        streamMessages(link, 600, 5000, 7);
    }

    @Test
    void zeroLengthMessagesWork() {
        Link link = link();
        MemorySegment empty = MemorySegment.ofArray(new byte[0]);
        MemorySegment dst = filled(arena.allocate(64), (byte) 0x5A);
        NetRequest send1 = link.send.isend(empty, 0, 0, 1, null);
        NetRequest send2 = link.send.isend(dst, 10, 0, 2, null);
        NetRequest recv1 = link.recv.irecv(empty, 0, 0, 1, null);
        NetRequest recv2 = link.recv.irecv(dst, 0, 64, 2, null);
        long[] results = awaitAll(send1, send2, recv1, recv2);
        assertThat(results).containsExactly(0, 0, 0, 0);
        assertAllBytes(dst, 0, 64, (byte) 0x5A);
        assertMessageGoesThrough(link, 17, 3);
    }

    @Test
    void largeMessageArrivesIntact() {
        long bytes = 64L << 20;
        assumeTrue(properties().maxMessageBytes() >= bytes, "transport caps messages below 64 MiB");
        Link link = link();
        MemorySegment src = arena.allocate(bytes, 64);
        patterned(src, 0, bytes, 11);
        MemorySegment dst = arena.allocate(bytes, 64);
        NetRequest recv = link.recv.irecv(dst, 0, bytes, 64, null);
        NetRequest send = link.send.isend(src, 0, bytes, 64, null);
        assertThat(awaitAll(send, recv)).containsExactly(bytes, bytes);
        assertThat(src.mismatch(dst)).as("first differing byte").isEqualTo(-1L);
    }

    @Test
    void unalignedOffsetsAndOddSizesWork() {
        Link link = link();
        for (BufferKind kind : List.of(BufferKind.NATIVE, BufferKind.BYTE_ARRAY, BufferKind.LONG_ARRAY)) {
            for (int offset : new int[] {1, 3, 7}) {
                for (int size : new int[] {1, 7, 4093, 100_003, 1_000_003}) {
                    MemorySegment src = kind.allocate(arena, size + 16);
                    patterned(src, offset, size, offset + size);
                    MemorySegment dst = filled(kind.allocate(arena, size + 16), (byte) 0x5A);
                    int dstOffset = 8 - offset;
                    NetRequest send = link.send.isend(src, offset, size, size, null);
                    NetRequest recv = link.recv.irecv(dst, dstOffset, size + 3, size, null);
                    assertThat(awaitAll(send, recv)).as("%s offset %d size %d", kind, offset, size)
                            .containsExactly(size, size);
                    assertPattern(dst, dstOffset, size, offset + size);
                    assertAllBytes(dst, 0, dstOffset, (byte) 0x5A);
                    assertAllBytes(dst, dstOffset + size, dst.byteSize() - dstOffset - size, (byte) 0x5A);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void anyKindOfSegmentCanBeSentToAnyKind(BufferKind source) {
        Link link = link();
        int bytes = 200_000;
        int seed = source.ordinal();
        for (BufferKind destination : BufferKind.values()) {
            MemorySegment src = source.allocate(arena, bytes);
            patterned(src, 0, bytes, seed);
            MemorySegment dst = destination.allocate(arena, bytes);
            NetRequest recv = link.recv.irecv(dst, 0, bytes, destination.ordinal(), null);
            NetRequest send = link.send.isend(src, 0, bytes, destination.ordinal(), null);
            assertThat(awaitAll(send, recv)).as("%s to %s", source, destination).containsExactly(bytes, bytes);
            assertPattern(dst, 0, bytes, seed);
        }
    }

    @Test
    void extremeTagsAreCarried() {
        Link link = link();
        for (long tag : new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x8000_0000L}) {
            MemorySegment src = patterned(arena.allocate(8), 0, 8, (int) tag);
            MemorySegment dst = arena.allocate(8);
            assertThat(awaitAll(link.send.isend(src, 0, 8, tag, null), link.recv.irecv(dst, 0, 8, tag, null)))
                    .containsExactly(8, 8);
            assertPattern(dst, 0, 8, (int) tag);
        }
    }

    /** Either end may post first: the message arrives whole, whether the send or the receive waited for the other. */
    @ParameterizedTest(name = "send posted first: {0}")
    @ValueSource(booleans = {true, false})
    void eitherEndMayPostFirst(boolean sendFirst) {
        Link link = link();
        int seed = sendFirst ? 21 : 22;
        MemorySegment src = patterned(arena.allocate(SMALL_BYTES), 0, SMALL_BYTES, seed);
        MemorySegment dst = arena.allocate(SMALL_BYTES);
        NetRequest send;
        NetRequest recv;
        if (sendFirst) {
            send = link.send.isend(src, 0, SMALL_BYTES, TAG, null);
            for (int i = 0; i < 10; i++) {
                if (send.test() != NetRequest.NOT_DONE) {
                    send = null;
                    break;
                }
            }
            recv = link.recv.irecv(dst, 0, SMALL_BYTES, TAG, null);
        } else {
            recv = link.recv.irecv(dst, 0, SMALL_BYTES, TAG, null);
            for (int i = 0; i < 10; i++) {
                assertThat(recv.test()).as("receive with nothing sent").isEqualTo(NetRequest.NOT_DONE);
            }
            send = link.send.isend(src, 0, SMALL_BYTES, TAG, null);
        }
        if (send == null) {
            assertThat(await(recv)).isEqualTo(SMALL_BYTES);
        } else {
            assertThat(awaitAll(send, recv)).containsExactly(SMALL_BYTES, SMALL_BYTES);
        }
        assertPattern(dst, 0, SMALL_BYTES, seed);
    }

    @Test
    void bothDirectionsBetweenTwoRanksAtOnce() {
        NetTransport[] t = transports(2);
        Link forward = connect(t[0], t[1]);
        Link backward = connect(t[1], t[0]);
        long big = 8L << 20;
        MemorySegment[] src = {patterned(arena.allocate(big), 0, big, 1), patterned(arena.allocate(big), 0, big, 2)};
        MemorySegment[] dst = {arena.allocate(big), arena.allocate(big)};
        List<NetRequest> requests = new ArrayList<>();
        requests.add(forward.recv.irecv(dst[0], 0, big, 1, null));
        requests.add(backward.recv.irecv(dst[1], 0, big, 2, null));
        requests.add(forward.send.isend(src[0], 0, big, 1, null));
        requests.add(backward.send.isend(src[1], 0, big, 2, null));
        awaitAll(requests.toArray(NetRequest[]::new));
        assertThat(src[0].mismatch(dst[0])).isEqualTo(-1L);
        assertThat(src[1].mismatch(dst[1])).isEqualTo(-1L);
        streamBothWays(forward, backward, 200, 3000);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Receive sinks (transports that hand received bytes over where they hold them)

    @Test
    void sinkTakesEveryByteOnceInAlignedPieces() {
        NetTransport[] t = transports(2);
        Link link = connect(t[0], t[1]);
        assumeTrue(link.recv.acceptsSinks(), "transport does not take receive sinks");
        List<MemorySegment> registered = new ArrayList<>();
        for (int size : new int[] {0, 8, 100, 4093, 100_003, 1_000_003, 3 << 20}) {
            List<MemorySegment> sources = new ArrayList<>(List.of(BufferKind.NATIVE.allocate(arena, size),
                    BufferKind.BYTE_ARRAY.allocate(arena, size)));
            MemorySegment reg = t[0].allocateMemory(Math.max(1, size));   // sent by reference where supported
            if (reg != null) {
                registered.add(reg);
                sources.add(reg);
            }
            for (MemorySegment src : sources) {
                patterned(src, 0, size, size);
                CollectingSink sink = new CollectingSink(arena.allocate(Math.max(1, size)));
                NetRequest recv = link.recv.irecv(sink, size + 64, size);
                NetRequest send = link.send.isend(src, 0, size, size, null);
                assertThat(awaitAll(send, recv)).as("%d bytes from %s", size, src).containsExactly(size, size);
                assertThat(sink.taken).as("bytes the sink took").isEqualTo(size);
                sink.assertPiecesCover(size);
                assertPattern(sink.into, 0, size, size);
            }
        }
        for (MemorySegment reg : registered) {
            assertThat(t[0].freeMemory(reg)).isTrue();
        }
    }

    /**
     * A sink may run where the transport runs its receives: memory a receive buffer may not be (confined to the
     * caller's thread, for a transport with a driver thread) must not be bound into a sink either.
     */
    @Test
    void sinksReachWhatReceiveBuffersReach() {
        Link link = link();
        assumeTrue(link.recv.acceptsSinks(), "transport does not take receive sinks");
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(64);
            boolean bufferTaken;
            NetRequest r = null;
            try {
                r = link.recv.irecv(mine, 0, 64, TAG, null);
                bufferTaken = true;
            } catch (IllegalArgumentException e) {
                bufferTaken = false;
            }
            assertThat(link.recv.sinkReaches(mine)).as("a sink reaches memory a receive buffer could not")
                    .isEqualTo(bufferTaken);
            assertThat(link.recv.sinkReaches(arena.allocate(64))).as("shared memory").isTrue();
            if (r != null) {
                MemorySegment src = patterned(arena.allocate(64), 0, 64, 9);
                awaitAll(link.send.isend(src, 0, 64, TAG, null), r);
            }
        }
    }

    @Test
    void sinkReceivesMixWithBufferReceivesInPostingOrder() {
        Link link = link();
        assumeTrue(link.recv.acceptsSinks(), "transport does not take receive sinks");
        int[] sizes = {40, 300_000, 17, 70_000};
        MemorySegment[] sources = new MemorySegment[sizes.length];
        NetRequest[] requests = new NetRequest[2 * sizes.length];
        CollectingSink[] sinks = new CollectingSink[sizes.length];
        MemorySegment[] buffers = new MemorySegment[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            sources[i] = patterned(arena.allocate(sizes[i]), 0, sizes[i], 100 + i);
            if (i % 2 == 0) {
                sinks[i] = new CollectingSink(arena.allocate(sizes[i]));
                requests[i] = link.recv.irecv(sinks[i], sizes[i], 100 + i);
            } else {
                buffers[i] = arena.allocate(sizes[i]);
                requests[i] = link.recv.irecv(buffers[i], 0, sizes[i], 100 + i, null);
            }
        }
        for (int i = 0; i < sizes.length; i++) {
            requests[sizes.length + i] = link.send.isend(sources[i], 0, sizes[i], 100 + i, null);
        }
        awaitAll(requests);
        for (int i = 0; i < sizes.length; i++) {
            if (i % 2 == 0) {
                sinks[i].assertPiecesCover(sizes[i]);
            }
            assertPattern(i % 2 == 0 ? sinks[i].into : buffers[i], 0, sizes[i], 100 + i);
        }
    }

    @Test
    void sinkSeesNothingOfAMismatchedOrTooLongMessage() {
        Link link = link();
        assumeTrue(link.recv.acceptsSinks(), "transport does not take receive sinks");
        int bytes = 100_000;
        MemorySegment src = patterned(arena.allocate(bytes), 0, bytes, 5);
        CollectingSink sink = new CollectingSink(arena.allocate(bytes));
        NetRequest send = link.send.isend(src, 0, bytes, 0x1234, null);
        NetException e = awaitFailure(link.recv.irecv(sink, bytes, 0x9876), send);
        assertThat(e.reason()).isEqualTo(NetException.Reason.TAG_MISMATCH);
        assertNextMessageDeliveredOrProtocolError(link);
        send = link.send.isend(src, 0, bytes, TAG, null);
        e = awaitFailure(link.recv.irecv(sink, bytes - 1, TAG), send);
        assertThat(e.reason()).isEqualTo(NetException.Reason.TRUNCATED);
        assertThat(sink.taken).as("bytes the sink took of rejected messages").isZero();
        assertNextMessageDeliveredOrProtocolError(link);
    }

    /**
     * Copies what a receive sink is given and records its pieces, on whichever thread drives the connection; the
     * test checks them afterwards ({@link #assertPiecesCover}): each byte exactly once, pieces starting at multiples
     * of {@link RecvSink#ALIGN_BYTES} and multiples of it long but for the one that ends the message, in any order.
     */
    private static final class CollectingSink implements RecvSink {
        final MemorySegment into;
        volatile long taken;
        private final List<long[]> pieces = java.util.Collections.synchronizedList(new ArrayList<>());

        CollectingSink(MemorySegment into) {
            this.into = into;
        }

        @Override
        public void accept(MemorySegment from, long fromOffset, long messageOffset, long bytes) {
            pieces.add(new long[] {messageOffset, bytes});
            if (bytes > 0 && messageOffset >= 0 && messageOffset + bytes <= into.byteSize()) {
                MemorySegment.copy(from, fromOffset, into, messageOffset, bytes);
            }
            taken += bytes;
        }

        /** Asserts the pieces covered {@code [0, size)} exactly once and kept the alignment. */
        void assertPiecesCover(long size) {
            List<long[]> sorted;
            synchronized (pieces) {
                sorted = new ArrayList<>(pieces);
            }
            sorted.sort(java.util.Comparator.comparingLong(p -> p[0]));
            long next = 0;
            for (long[] p : sorted) {
                assertThat(p[1]).as("piece length at %d", p[0]).isPositive();
                assertThat(p[0]).as("piece offset (pieces overlap or leave a gap)").isEqualTo(next);
                assertThat(p[0] % RecvSink.ALIGN_BYTES).as("piece offset %d modulo the alignment", p[0]).isZero();
                next = p[0] + p[1];
                if (next != size) {
                    assertThat(p[1] % RecvSink.ALIGN_BYTES).as("length of the piece at %d, not the message's end", p[0])
                            .isZero();
                }
            }
            assertThat(next).as("bytes the pieces covered").isEqualTo(size);
        }
    }

    // Failures

    @Test
    void tagMismatchNamesBothTagsAndLeavesTheBufferUntouched() {
        NetException e = assertFailedReceiveLeavesBufferAndLink(0x1234, 0x9876, 0, 5, NetException.Reason.TAG_MISMATCH);
        assertThat(e.expectedTag()).isEqualTo(0x9876);
        assertThat(e.actualTag()).isEqualTo(0x1234);
    }

    @Test
    void messageLongerThanTheReceiveIsTruncatedAndWritesNothing() {
        assertFailedReceiveLeavesBufferAndLink(TAG, TAG, 1, 6, NetException.Reason.TRUNCATED);
    }

    /**
     * Sends a patterned 100,000-byte message tagged {@code sendTag} to a receive expecting {@code expectedTag} with
     * {@code shortBy} bytes less room: the receive must fail for {@code reason}, write nothing into its buffer, and
     * leave the link delivering the next message (or failing it as a protocol error).
     *
     * @return the receive's failure
     */
    private NetException assertFailedReceiveLeavesBufferAndLink(long sendTag, long expectedTag, int shortBy, int seed,
                                                               NetException.Reason reason) {
        Link link = link();
        int bytes = 100_000;
        MemorySegment src = patterned(arena.allocate(bytes), 0, bytes, seed);
        MemorySegment dst = filled(arena.allocate(bytes), (byte) 0x5A);
        NetRequest send = link.send.isend(src, 0, bytes, sendTag, null);
        NetRequest recv = link.recv.irecv(dst, 0, bytes - shortBy, expectedTag, null);
        NetException e = awaitFailure(recv, send);
        assertThat(e.reason()).isEqualTo(reason);
        assertAllBytes(dst, 0, bytes, (byte) 0x5A);
        assertNextMessageDeliveredOrProtocolError(link);
        return e;
    }

    @Test
    void senderCloseDeliversCompletedSendsThenPeerClosed() {
        Link link = link();
        int[] sizes = {10, 0, 1 << 20};
        MemorySegment[] dst = new MemorySegment[sizes.length];
        NetRequest[] recvs = new NetRequest[sizes.length];
        NetRequest[] sends = new NetRequest[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            dst[i] = arena.allocate(Math.max(1, sizes[i]));
            recvs[i] = link.recv.irecv(dst[i], 0, sizes[i], i, null);
        }
        for (int i = 0; i < sizes.length; i++) {
            MemorySegment src = patterned(arena.allocate(Math.max(1, sizes[i])), 0, sizes[i], i);
            sends[i] = link.send.isend(src, 0, sizes[i], i, null);
        }
        awaitAll(sends);
        link.send.close();

        NetRequest[] afterClose = new NetRequest[1];
        NetException early = null;
        try {
            afterClose[0] = link.recv.irecv(arena.allocate(8), 0, 8, 99, null);
        } catch (NetException e) {
            early = e;
        }
        long[] results = awaitAll(recvs);
        for (int i = 0; i < sizes.length; i++) {
            assertThat(results[i]).isEqualTo(sizes[i]);
            assertPattern(dst[i], 0, sizes[i], i);
        }
        NetException e = early != null ? early : awaitFailure(afterClose[0]);
        assertThat(e.reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
        assertPostFails(() -> link.recv.irecv(arena.allocate(8), 0, 8, 100, null), NetException.Reason.PEER_CLOSED);
    }

    @Test
    void pendingReceiveFailsWithPeerClosedWhenTheSenderCloses() {
        Link link = link();
        NetRequest recv = link.recv.irecv(arena.allocate(64), 0, 64, TAG, null);
        assertThat(recv.test()).isEqualTo(NetRequest.NOT_DONE);
        link.send.close();
        assertThat(awaitFailure(recv).reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
    }

    @Test
    void localCloseFailsPendingReceivesWithClosed() {
        Link link = link();
        NetRequest first = link.recv.irecv(arena.allocate(64), 0, 64, TAG, null);
        NetRequest second = link.recv.irecv(arena.allocate(64), 0, 64, TAG, null);
        assertThat(first.test()).isEqualTo(NetRequest.NOT_DONE);
        link.recv.close();
        assertThat(awaitFailure(first).reason()).isEqualTo(NetException.Reason.CLOSED);
        assertThat(awaitFailure(second).reason()).isEqualTo(NetException.Reason.CLOSED);
        assertPostFails(() -> link.recv.irecv(arena.allocate(64), 0, 64, TAG, null), NetException.Reason.CLOSED);
    }

    @Test
    void localCloseFailsPendingSendsWithClosed() {
        Link link = link();
        long bytes = 64L << 20;
        assumeTrue(properties().maxMessageBytes() >= bytes, "transport caps messages below 64 MiB");
        NetRequest send = link.send.isend(arena.allocate(bytes), 0, bytes, TAG, null);
        assumeTrue(send.test() == NetRequest.NOT_DONE, "transport buffered a 64 MiB send without a receiver");
        link.send.close();
        assertThat(awaitFailure(send).reason()).isEqualTo(NetException.Reason.CLOSED);
        assertPostFails(() -> link.send.isend(arena.allocate(8), 0, 8, TAG, null), NetException.Reason.CLOSED);
    }

    @Test
    void closingTheTransportClosesItsConnections() {
        NetTransport[] t = transports(2);
        Link link = connect(t[0], t[1]);
        Link back = connect(t[1], t[0]);
        NetRequest recv = link.recv.irecv(arena.allocate(64), 0, 64, TAG, null);
        assertThat(recv.test()).isEqualTo(NetRequest.NOT_DONE);
        NetRequest peerRecv = back.recv.irecv(arena.allocate(64), 0, 64, TAG, null);
        t[1].close();
        assertThat(awaitFailure(recv).reason()).isEqualTo(NetException.Reason.CLOSED);
        assertPostFails(() -> back.send.isend(arena.allocate(8), 0, 8, TAG, null), NetException.Reason.CLOSED);
        assertThat(awaitFailure(peerRecv).reason()).as("the peer's receive from the closed rank")
                .isEqualTo(NetException.Reason.PEER_CLOSED);
    }

    @Test
    void inflightLimitReturnsNullUntilARequestIsReported() {
        Link link = link();
        int max = properties().maxInflightRequests();
        MemorySegment buffer = arena.allocate(8L * (max + 1));
        List<NetRequest> recvs = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            recvs.add(assertNotNullRequest(link.recv.irecv(buffer, 8L * i, 8, i, null), "receive " + i));
        }
        assertThat(link.recv.irecv(buffer, 0, 8, max, null)).as("receive beyond the in-flight limit").isNull();
        List<NetRequest> sends = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            sends.add(assertNotNullRequest(link.send.isend(buffer, 8L * i, 8, i, null), "send " + i));
        }
        assertThat(link.send.isend(buffer, 0, 8, max, null)).as("send beyond the in-flight limit").isNull();

        awaitAll(sends.getFirst(), recvs.getFirst());
        NetRequest lastRecv = assertNotNullRequest(link.recv.irecv(buffer, 8L * max, 8, max, null), "receive after one was reported");
        NetRequest lastSend = assertNotNullRequest(link.send.isend(buffer, 8L * max, 8, max, null), "send after one was reported");
        List<NetRequest> rest = new ArrayList<>(sends.subList(1, max));
        rest.addAll(recvs.subList(1, max));
        rest.add(lastRecv);
        rest.add(lastSend);
        awaitAll(rest.toArray(NetRequest[]::new));
    }

    // ---------------------------------------------------------------------------------------------------------
    // One thread per rank

    @Test
    void twoThreadsPingPongAndStream() throws Exception {
        runRanksOnThreads(2, (transport, me, handles) -> {
            Link toPeer = connectMesh(transport, me, handles)[1 - me];
            pingPong(toPeer, me, 200);
            // Stream both ways: this rank's messages carry seed me, the peer's seed 1 - me.
            driveHalves(List.of(new SendHalf(new MessagePlan(300, 4000, me), toPeer.send()),
                    new ReceiveHalf(new MessagePlan(300, 4000, 1 - me), toPeer.recv())), "rank " + me + " streaming");
            // One message larger than any socket buffer each way.
            long big = 16L << 20;
            MemorySegment src = patterned(arena.allocate(big), 0, big, 100 + me);
            MemorySegment dst = arena.allocate(big);
            awaitAll(toPeer.recv().irecv(dst, 0, big, 7, null), toPeer.send().isend(src, 0, big, 7, null));
            assertPattern(dst, 0, big, 100 + (1 - me));
        });
    }

    @Test
    void fourThreadsExchangeAllToAll() throws Exception {
        int size = 4;
        runRanksOnThreads(size, (transport, me, handles) -> allToAll(connectMesh(transport, me, handles), me, size));
    }

    /** What one rank does on its own thread. */
    @FunctionalInterface
    private interface RankBody {
        void run(NetTransport transport, int me, List<CompletableFuture<byte[]>> handles) throws Exception;
    }

    /** Runs one thread per rank; each gets its transport and the handles every rank publishes. */
    private void runRanksOnThreads(int size, RankBody body) throws Exception {
        NetTransport[] t = transports(size);
        List<CompletableFuture<byte[]>> handles = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            handles.add(new CompletableFuture<>());
        }
        ExecutorService threads = Executors.newFixedThreadPool(size);
        try {
            List<Future<Void>> ranks = new ArrayList<>();
            for (int rank = 0; rank < size; rank++) {
                int me = rank;
                ranks.add(threads.submit(() -> {
                    body.run(t[me], me, handles);
                    return null;
                }));
            }
            for (Future<Void> rank : ranks) {
                rank.get(WAIT_LIMIT.toSeconds() * 2, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            threads.awaitTermination(WAIT_LIMIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Properties

    @Test
    void propertiesAreConsistent() {
        NetProperties p = properties();
        assertThat(p.name()).isNotBlank();
        assertThat(p.maxInflightRequests()).isPositive();
        assertThat(p.maxMessageBytes()).isPositive();
        assertThat(transports(1)[0].properties()).isEqualTo(p);
    }

    // =========================================================================================================
    // Helpers for subclasses and tests

    /** A one-directional connection: both of its ends. */
    public record Link(SendConnection send, RecvConnection recv) {
    }

    /** Kinds of memory a request may name. */
    protected enum BufferKind {
        /** Native memory. */
        NATIVE(1),
        /** A heap {@code byte[]}. */
        BYTE_ARRAY(1),
        /** A heap {@code short[]}. */
        SHORT_ARRAY(2),
        /** A heap {@code char[]}. */
        CHAR_ARRAY(2),
        /** A heap {@code int[]}. */
        INT_ARRAY(4),
        /** A heap {@code float[]}. */
        FLOAT_ARRAY(4),
        /** A heap {@code long[]}. */
        LONG_ARRAY(8),
        /** A heap {@code double[]}. */
        DOUBLE_ARRAY(8);

        private final int elementBytes;

        BufferKind(int elementBytes) {
            this.elementBytes = elementBytes;
        }

        /** @return a zeroed segment of this kind with at least {@code bytes} bytes */
        public MemorySegment allocate(Arena arena, long bytes) {
            int n = Math.toIntExact((bytes + elementBytes - 1) / elementBytes);
            return switch (this) {
                case NATIVE -> arena.allocate(bytes);
                case BYTE_ARRAY -> MemorySegment.ofArray(new byte[n]);
                case SHORT_ARRAY -> MemorySegment.ofArray(new short[n]);
                case CHAR_ARRAY -> MemorySegment.ofArray(new char[n]);
                case INT_ARRAY -> MemorySegment.ofArray(new int[n]);
                case FLOAT_ARRAY -> MemorySegment.ofArray(new float[n]);
                case LONG_ARRAY -> MemorySegment.ofArray(new long[n]);
                case DOUBLE_ARRAY -> MemorySegment.ofArray(new double[n]);
            };
        }
    }

    /** @return {@code size} new transports, ranks 0 to {@code size - 1}, closed after the test */
    // ---------------------------------------------------------------------------------------------------------
    // Sleeping until a peer makes progress possible (awaitProgress), for transports that can

    /**
     * @param transport a transport of this test
     * @return whether a thread sleeps in its {@link NetTransport#awaitProgress} now; transports that can sleep
     *         override this (the default: the transport cannot)
     */
    protected boolean sleeping(NetTransport transport) {
        return false;
    }

    /** @return whether this test's transports can sleep in awaitProgress (skips the tests below when not) */
    private boolean canSleep(NetTransport transport) {
        return transport.awaitProgress(0);
    }

    @Test
    void aSleeperWakesForArrivingDataAndForWakeUp() throws Exception {
        NetTransport[] t = transports(2);
        assumeTrue(canSleep(t[1]), "the transport cannot sleep in awaitProgress");
        Link link = connect(t[0], t[1]);
        MemorySegment dst = arena.allocate(8);
        NetRequest recv = link.recv().irecv(dst, 0, 8, 3, null);
        assertThat(recv.test()).isEqualTo(NetRequest.NOT_DONE);
        Thread sleeper = Thread.ofPlatform().start(() -> t[1].awaitProgress(WAIT_LIMIT.toNanos()));
        pollUntil(() -> sleeping(t[1]), "the receiver to sleep");
        NetRequest send = link.send().isend(patterned(arena.allocate(8), 0, 8, 3), 0, 8, 3, null);
        sleeper.join(WAIT_LIMIT.toMillis());
        assertThat(sleeper.isAlive()).as("sleeper still asleep after the data arrived").isFalse();
        assertThat(awaitAll(send, recv)).containsExactly(8, 8);
        assertPattern(dst, 0, 8, 3);

        Thread second = Thread.ofPlatform().start(() -> t[1].awaitProgress(WAIT_LIMIT.toNanos()));
        pollUntil(() -> sleeping(t[1]), "the receiver to sleep again");
        t[1].wakeUp();
        second.join(WAIT_LIMIT.toMillis());
        assertThat(second.isAlive()).as("sleeper still asleep after wakeUp()").isFalse();
        assertThat(sleeping(t[1])).isFalse();
    }

    @Test
    void aSleeperWithDataAlreadyThereReturnsAtOnce() {
        NetTransport[] t = transports(2);
        assumeTrue(canSleep(t[1]), "the transport cannot sleep in awaitProgress");
        Link link = connect(t[0], t[1]);
        NetRequest recv = link.recv().irecv(arena.allocate(8), 0, 8, 3, null);
        NetRequest send = link.send().isend(arena.allocate(8), 0, 8, 3, null);
        assertThat(await(send)).as("a small send completes without its receiver's help").isEqualTo(8);
        long start = System.nanoTime();
        assertThat(t[1].awaitProgress(WAIT_LIMIT.toNanos())).isTrue();
        assertThat(System.nanoTime() - start).as("a wait with news must not sleep the whole limit")
                .isLessThan(WAIT_LIMIT.toNanos());
        assertThat(await(recv)).isEqualTo(8);
    }

    @Test
    void closingWakesASleeper() throws Exception {
        NetTransport[] t = transports(2);
        assumeTrue(canSleep(t[1]), "the transport cannot sleep in awaitProgress");
        Link link = connect(t[0], t[1]);
        NetRequest recv = link.recv().irecv(arena.allocate(8), 0, 8, 3, null);
        assertThat(recv.test()).isEqualTo(NetRequest.NOT_DONE);
        Thread sleeper = Thread.ofPlatform().start(() -> t[1].awaitProgress(WAIT_LIMIT.toNanos()));
        pollUntil(() -> sleeping(t[1]), "the receiver to sleep");
        t[1].close();
        sleeper.join(WAIT_LIMIT.toMillis());
        assertThat(sleeper.isAlive()).as("sleeper still asleep after close()").isFalse();
    }

    /**
     * Two ranks on their own threads ping-pong messages of 8 bytes, 64 KiB and 8 MiB (more than a ring or a socket
     * buffer holds, so senders also sleep for room), each sleeping in its transport whenever a request is not done.
     * A lost wake-up would leave a sleeper for its whole timeout: every sleep must end well before it.
     */
    @Test
    void sleepersOnBothSidesNeverMissAWakeUp() throws Exception {
        NetTransport[] t = transports(2);
        assumeTrue(canSleep(t[0]), "the transport cannot sleep in awaitProgress");
        Link ab = connect(t[0], t[1]);
        Link ba = connect(t[1], t[0]);
        long sleepLimitNs = 30_000_000_000L;
        long[] longestSleepNs = new long[2];
        long[] waits = new long[2];
        int rounds = 600;
        int largeBytes = 8 << 20;
        MemorySegment[] src = {arena.allocate(largeBytes), arena.allocate(largeBytes)};
        MemorySegment[] dst = {arena.allocate(largeBytes), arena.allocate(largeBytes)};
        List<java.util.concurrent.Callable<Void>> sides = new ArrayList<>();
        for (int me = 0; me < 2; me++) {
            int rank = me;
            Link out = rank == 0 ? ab : ba;
            Link in = rank == 0 ? ba : ab;
            sides.add(() -> {
                for (int i = 0; i < rounds; i++) {
                    long bytes = i % 50 == 0 ? largeBytes : i % 3 == 0 ? 64 << 10 : 8;
                    NetRequest send = out.send().isend(src[rank], 0, bytes, i, null);
                    NetRequest recv = in.recv().irecv(dst[rank], 0, bytes, i, null);
                    boolean sent = false;
                    boolean received = false;
                    while (!sent || !received) {
                        sent = sent || send.test() != NetRequest.NOT_DONE;
                        received = received || recv.test() != NetRequest.NOT_DONE;
                        if (!sent || !received) {
                            long start = System.nanoTime();
                            assertThat(t[rank].awaitProgress(sleepLimitNs)).isTrue();
                            waits[rank]++;
                            longestSleepNs[rank] = Math.max(longestSleepNs[rank], System.nanoTime() - start);
                        }
                    }
                }
                return null;
            });
        }
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Void>> done = threads.invokeAll(sides, 5, TimeUnit.MINUTES);
            for (Future<Void> f : done) {
                f.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(waits[0] + waits[1]).as("sleeps in awaitProgress").isPositive();
        for (int rank = 0; rank < 2; rank++) {
            assertThat(longestSleepNs[rank]).as("longest sleep of rank %d (a lost wake-up sleeps %d ns)", rank,
                    sleepLimitNs).isLessThan(sleepLimitNs / 2);
        }
    }

    protected final NetTransport[] transports(int size) {
        NetTransport[] t = new NetTransport[size];
        for (int rank = 0; rank < size; rank++) {
            t[rank] = track(createTransport(rank, size));
        }
        return t;
    }

    /** @return the properties of a fresh transport */
    protected final NetProperties properties() {
        return transports(1)[0].properties();
    }

    /** @return a connection between two fresh transports */
    protected final Link link() {
        NetTransport[] t = transports(2);
        return connect(t[0], t[1]);
    }

    /** @return the handle of a listener of rank 1 (of two transports), as peers connect with it */
    protected final byte[] aListenersHandle() {
        return listener(transports(2)[1]).handle();
    }

    /** @return the test's listener of {@code transport}, created on first use */
    protected final Listener listener(NetTransport transport) {
        return listeners.computeIfAbsent(transport, t -> track(t.listen(ProgressSignal.NONE)));
    }

    /** Connects {@code from} to {@code to}'s listener, polling both sides in turn. */
    protected final Link connect(NetTransport from, NetTransport to) {
        Listener listener = listener(to);
        return complete(from.connect(listener.handle(), ProgressSignal.NONE), listener);
    }

    /**
     * Polls a connection attempt and the listener it targets in turn until both sides have their end; nobody
     * else may be connecting to that listener meanwhile.
     */
    protected final Link complete(PendingConnect pending, Listener listener) {
        Link link = complete(pending, listener, this::idle);
        return new Link(track(link.send()), track(link.recv()));
    }

    /**
     * Polls a connection attempt and the listener it targets in turn, calling {@code idle} between rounds, until both
     * sides have their end (failing after {@link #WAIT_LIMIT}); nobody else may be connecting to that listener
     * meanwhile. The caller closes the link.
     */
    public static Link complete(PendingConnect pending, Listener listener, Runnable idle) {
        SendConnection[] send = new SendConnection[1];
        RecvConnection[] recv = new RecvConnection[1];
        pollUntil(() -> {
            if (send[0] == null) {
                send[0] = pending.poll();
            }
            if (recv[0] == null) {
                recv[0] = listener.accept();
            }
            return send[0] != null && recv[0] != null;
        }, "connect and accept", idle);
        return new Link(send[0], recv[0]);
    }

    /** Registers something to close after the test, most recent first. */
    protected final <T extends AutoCloseable> T track(T resource) {
        synchronized (resources) {
            resources.push(resource);
        }
        return resource;
    }

    /** Calls {@link #idle()} until {@code done} holds; fails after {@link #WAIT_LIMIT}. */
    protected final void pollUntil(BooleanSupplier done, String what) {
        pollUntil(done, what, this::idle);
    }

    /** Calls {@code done} until it is true, {@code idle} between calls; fails after {@link #WAIT_LIMIT}. */
    private static void pollUntil(BooleanSupplier done, String what, Runnable idle) {
        long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("gave up waiting for " + what + " after " + WAIT_LIMIT);
            }
            idle.run();
        }
    }

    /** Polls one request until it completes; a failure propagates. */
    protected final long await(NetRequest request) {
        return awaitAll(request)[0];
    }

    /** Polls all requests in turn until each has completed; a failure propagates. */
    protected final long[] awaitAll(NetRequest... requests) {
        long[] results = new long[requests.length];
        boolean[] done = new boolean[requests.length];
        int[] remaining = {requests.length};
        pollUntil(() -> {
            for (int i = 0; i < requests.length; i++) {
                if (!done[i]) {
                    long result = requests[i].test();
                    if (result != NetRequest.NOT_DONE) {
                        results[i] = result;
                        done[i] = true;
                        remaining[0]--;
                    }
                }
            }
            return remaining[0] == 0;
        }, remaining[0] + " of " + requests.length + " requests");
        return results;
    }

    /**
     * Polls {@code failing} until it fails, and {@code others} until each has completed or failed.
     *
     * @return the failure
     */
    protected final NetException awaitFailure(NetRequest failing, NetRequest... others) {
        NetException[] failure = new NetException[1];
        boolean[] othersDone = new boolean[others.length];
        pollUntil(() -> {
            for (int i = 0; i < others.length; i++) {
                if (!othersDone[i]) {
                    try {
                        othersDone[i] = others[i].test() != NetRequest.NOT_DONE;
                    } catch (NetException e) {
                        othersDone[i] = true;
                    }
                }
            }
            if (failure[0] == null) {
                try {
                    long result = failing.test();
                    if (result != NetRequest.NOT_DONE) {
                        fail("request completed with " + result + " bytes but should have failed");
                    }
                } catch (NetException e) {
                    failure[0] = e;
                }
            }
            boolean allDone = failure[0] != null;
            for (boolean done : othersDone) {
                allDone &= done;
            }
            return allDone;
        }, "a request to fail");
        return failure[0];
    }

    /**
     * Asserts that posting fails with {@code reason}: either the post throws, or the request it returns fails.
     */
    protected final void assertPostFails(Supplier<NetRequest> post, NetException.Reason reason) {
        NetRequest request;
        try {
            request = post.get();
        } catch (NetException e) {
            assertThat(e.reason()).as("reason thrown by the post: %s", e.getMessage()).isEqualTo(reason);
            return;
        }
        assertThat(request).as("request posted on a failed connection").isNotNull();
        NetException e = awaitFailure(request);
        assertThat(e.reason()).as("reason of the request: %s", e.getMessage()).isEqualTo(reason);
    }

    private NetException connectFailure(NetTransport transport, byte[] handle) {
        PendingConnect pending;
        try {
            pending = transport.connect(handle, ProgressSignal.NONE);
        } catch (NetException e) {
            return e;
        }
        return awaitConnectFailure(pending, () -> fail("connecting with a malformed handle succeeded"),
                "a connection attempt with a malformed handle to fail");
    }

    /**
     * Polls a connection attempt until it fails.
     *
     * @param onConnected runs (and should throw) when the attempt connects instead; the connection is tracked
     * @param what        what is awaited, for the message when it does not happen in time
     * @return the failure
     */
    protected final NetException awaitConnectFailure(PendingConnect pending, Runnable onConnected, String what) {
        NetException[] failure = new NetException[1];
        pollUntil(() -> {
            try {
                SendConnection connection = pending.poll();
                if (connection != null) {
                    track(connection);
                    onConnected.run();
                }
            } catch (NetException e) {
                failure[0] = e;
            }
            return failure[0] != null;
        }, what);
        return failure[0];
    }

    private static NetRequest assertNotNullRequest(NetRequest request, String what) {
        assertThat(request).as(what).isNotNull();
        return request;
    }

    /** Sends one message of {@code bytes} bytes and checks it arrives. */
    protected final void assertMessageGoesThrough(Link link, int bytes, long tag) {
        MemorySegment src = patterned(arena.allocate(Math.max(1, bytes)), 0, bytes, (int) tag);
        MemorySegment dst = arena.allocate(Math.max(1, bytes));
        NetRequest recv = link.recv.irecv(dst, 0, bytes, tag, null);
        NetRequest send = link.send.isend(src, 0, bytes, tag, null);
        assertThat(awaitAll(send, recv)).containsExactly(bytes, bytes);
        assertPattern(dst, 0, bytes, (int) tag);
    }

    private void assertNextMessageDeliveredOrProtocolError(Link link) {
        MemorySegment src = patterned(arena.allocate(64), 0, 64, 77);
        MemorySegment dst = arena.allocate(64);
        NetRequest send;
        NetRequest recv;
        try {
            recv = link.recv.irecv(dst, 0, 64, 77, null);
            send = link.send.isend(src, 0, 64, 77, null);
        } catch (NetException e) {
            assertThat(e.reason()).as("reason after a failed receive").isEqualTo(NetException.Reason.PROTOCOL_ERROR);
            return;
        }
        try {
            assertThat(awaitAll(send, recv)).containsExactly(64, 64);
        } catch (NetException e) {
            assertThat(e.reason()).as("reason after a failed receive").isEqualTo(NetException.Reason.PROTOCOL_ERROR);
            return;
        }
        assertPattern(dst, 0, 64, 77);
    }

    /**
     * Sends {@code count} messages of varied sizes up to {@code maxBytes} over one link, keeping as many requests
     * in flight as the transport allows, and checks each one's length and content.
     */
    protected final void streamMessages(Link link, int count, int maxBytes, int seed) {
        MessagePlan plan = new MessagePlan(count, maxBytes, seed);
        driveHalves(List.of(new SendHalf(plan, link.send()), new ReceiveHalf(plan, link.recv())),
                count + " messages");
    }

    /** Streams messages both ways over two links at the same time. */
    private void streamBothWays(Link forward, Link backward, int count, int maxBytes) {
        MessagePlan there = new MessagePlan(count, maxBytes, 31);
        MessagePlan back = new MessagePlan(count, maxBytes, 32);
        driveHalves(List.of(new SendHalf(there, forward.send()), new ReceiveHalf(there, forward.recv()),
                new SendHalf(back, backward.send()), new ReceiveHalf(back, backward.recv())),
                count + " messages each way");
    }

    /**
     * Drives all halves until each is done.
     */
    private void driveHalves(List<? extends StreamHalf> halves, String what) {
        pollUntil(() -> {
            boolean done = true;
            for (StreamHalf half : halves) {
                done &= half.step();
            }
            return done;
        }, what);
    }

    /**
     * A deterministic list of messages: sizes from 0 to {@code maxBytes}, tags, and their place in one buffer.
     * Both ends of a stream build the same plan, so a receiver on another thread knows what to expect.
     */
    private final class MessagePlan {
        final int count;
        final int seed;
        final int[] sizes;
        final long[] offsets;

        MessagePlan(int count, int maxBytes, int seed) {
            this.count = count;
            this.seed = seed;
            sizes = new int[count];
            offsets = new long[count + 1];
            for (int i = 0; i < count; i++) {
                sizes[i] = (int) (((i + 1) * 2_654_435_761L + seed) % (maxBytes + 1));
                offsets[i + 1] = offsets[i] + sizes[i];
            }
        }

        long totalBytes() {
            return offsets[count];
        }

        long tag(int i) {
            return ((long) seed << 32) | i;
        }

        /** @return a new buffer holding every message's payload at its offset */
        MemorySegment source() {
            return patterned(arena.allocate(Math.max(1, totalBytes())), 0, totalBytes(), seed);
        }
    }

    /** One end of a message stream, driven a step at a time. */
    private abstract static class StreamHalf {
        final MessagePlan plan;
        final NetRequest[] requests;
        int posted;
        int completed;

        StreamHalf(MessagePlan plan) {
            this.plan = plan;
            this.requests = new NetRequest[plan.count];
        }

        /** Posts what the transport accepts and tests what is pending. @return true when all completed */
        final boolean step() {
            while (posted < plan.count) {
                NetRequest request = post(posted);
                if (request == null) {
                    break;
                }
                requests[posted++] = request;
            }
            for (int i = completed; i < posted; i++) {
                if (requests[i] != null) {
                    long result = requests[i].test();
                    if (result != NetRequest.NOT_DONE) {
                        assertThat(result).as("bytes reported for message %d", i).isEqualTo(plan.sizes[i]);
                        requests[i] = null;
                    }
                }
            }
            while (completed < posted && requests[completed] == null) {
                completed++;
            }
            if (completed == plan.count) {
                finish();
                return true;
            }
            return false;
        }

        abstract NetRequest post(int i);

        void finish() {
        }
    }

    /** The sending end of a stream. */
    private final class SendHalf extends StreamHalf {
        private final SendConnection connection;
        private final MemorySegment source;

        SendHalf(MessagePlan plan, SendConnection connection) {
            super(plan);
            this.connection = connection;
            this.source = plan.source();
        }

        @Override
        NetRequest post(int i) {
            return connection.isend(source, plan.offsets[i], plan.sizes[i], plan.tag(i), null);
        }
    }

    /** The receiving end of a stream; checks the content once everything arrived. */
    private final class ReceiveHalf extends StreamHalf {
        private final RecvConnection connection;
        private final MemorySegment destination;
        private boolean checked;

        ReceiveHalf(MessagePlan plan, RecvConnection connection) {
            super(plan);
            this.connection = connection;
            this.destination = filled(arena.allocate(Math.max(1, plan.totalBytes())), (byte) 0x5A);
        }

        @Override
        NetRequest post(int i) {
            return connection.irecv(destination, plan.offsets[i], plan.sizes[i], plan.tag(i), null);
        }

        @Override
        void finish() {
            if (checked) {
                return;
            }
            checked = true;
            long differs = destination.asSlice(0, plan.totalBytes()).mismatch(plan.source().asSlice(0, plan.totalBytes()));
            if (differs >= 0) {
                int message = 0;
                while (plan.offsets[message + 1] <= differs) {
                    message++;
                }
                fail("message " + message + " differs at its byte " + (differs - plan.offsets[message]));
            }
        }
    }

    /**
     * Matches accepted connections to their senders: every sender sends its rank first.
     *
     * @param sends    the send connections of the ranks connecting to {@code me}, indexed by rank (nulls skipped)
     * @param accepted the connections {@code me} accepted, in any order
     * @param me       the accepting rank
     * @return links indexed by the peer's rank; the entry of a rank without a send connection is null
     */
    private Link[] identifySenders(SendConnection[] sends, List<RecvConnection> accepted, int me) {
        int size = sends.length;
        MemorySegment ids = filled(arena.allocate(4L * accepted.size() + 1), (byte) -1);
        List<NetRequest> requests = new ArrayList<>();
        for (int i = 0; i < accepted.size(); i++) {
            requests.add(accepted.get(i).irecv(ids, 4L * i, 4, TAG, null));
        }
        for (int rank = 0; rank < size; rank++) {
            if (sends[rank] != null) {
                MemorySegment id = arena.allocate(4);
                id.set(ValueLayout.JAVA_INT_UNALIGNED, 0, rank);
                requests.add(sends[rank].isend(id, 0, 4, TAG, null));
            }
        }
        awaitAll(requests.toArray(NetRequest[]::new));
        Link[] links = new Link[size];
        for (int i = 0; i < accepted.size(); i++) {
            int rank = ids.get(ValueLayout.JAVA_INT_UNALIGNED, 4L * i);
            assertThat(rank).as("rank named by accepted connection %d", i).isBetween(0, size - 1).isNotEqualTo(me);
            assertThat(links[rank]).as("two connections claim rank %d", rank).isNull();
            links[rank] = new Link(sends[rank], accepted.get(i));
        }
        return links;
    }

    /**
     * Rank {@code me}'s part of connecting every rank to every other, on that rank's own thread: it listens,
     * publishes its handle, connects to everyone and accepts everyone.
     *
     * @return for each peer, this rank's send connection to it and receive connection from it
     */
    private Link[] connectMesh(NetTransport transport, int me, List<CompletableFuture<byte[]>> handles)
            throws Exception {
        int size = handles.size();
        Listener listener = track(transport.listen(ProgressSignal.NONE));
        handles.get(me).complete(listener.handle());
        PendingConnect[] pending = new PendingConnect[size];
        for (int peer = 0; peer < size; peer++) {
            if (peer != me) {
                pending[peer] = transport.connect(handles.get(peer).get(WAIT_LIMIT.toSeconds(), TimeUnit.SECONDS),
                        ProgressSignal.NONE);
            }
        }
        SendConnection[] sends = new SendConnection[size];
        List<RecvConnection> accepted = new ArrayList<>();
        pollUntil(() -> {
            boolean allConnected = true;
            for (int peer = 0; peer < size; peer++) {
                if (peer != me && sends[peer] == null) {
                    sends[peer] = pending[peer].poll();
                    if (sends[peer] != null) {
                        track(sends[peer]);
                    }
                    allConnected &= sends[peer] != null;
                }
            }
            RecvConnection recv = listener.accept();
            if (recv != null) {
                accepted.add(track(recv));
            }
            return allConnected && accepted.size() == size - 1;
        }, "rank " + me + " to connect to all peers");

        // Send our rank to everyone and read who each accepted connection is from.
        MemorySegment ids = filled(arena.allocate(4L * size), (byte) -1);
        List<NetRequest> requests = new ArrayList<>();
        for (int i = 0; i < accepted.size(); i++) {
            requests.add(accepted.get(i).irecv(ids, 4L * i, 4, TAG, null));
        }
        MemorySegment myRank = arena.allocate(4);
        myRank.set(ValueLayout.JAVA_INT_UNALIGNED, 0, me);
        for (int peer = 0; peer < size; peer++) {
            if (peer != me) {
                requests.add(sends[peer].isend(myRank, 0, 4, TAG, null));
            }
        }
        awaitAll(requests.toArray(NetRequest[]::new));
        RecvConnection[] fromPeer = new RecvConnection[size];
        for (int i = 0; i < accepted.size(); i++) {
            int peer = ids.get(ValueLayout.JAVA_INT_UNALIGNED, 4L * i);
            assertThat(peer).as("rank named on an accepted connection").isBetween(0, size - 1).isNotEqualTo(me);
            assertThat(fromPeer[peer]).as("two connections claim rank %d", peer).isNull();
            fromPeer[peer] = accepted.get(i);
        }
        Link[] links = new Link[size];
        for (int peer = 0; peer < size; peer++) {
            if (peer != me) {
                links[peer] = new Link(sends[peer], fromPeer[peer]);
            }
        }
        return links;
    }

    /** Alternates small messages of varying size between two ranks, each on its own thread. */
    private void pingPong(Link link, int me, int rounds) {
        MemorySegment buffer = arena.allocate(4096);
        for (int round = 0; round < rounds; round++) {
            int bytes = 1 + (round * 37) % 4096;
            if (round % 2 == me) {
                patterned(buffer, 0, bytes, round);
                await(link.send().isend(buffer, 0, bytes, round, null));
            } else {
                assertThat(await(link.recv().irecv(buffer, 0, 4096, round, null))).isEqualTo(bytes);
                assertPattern(buffer, 0, bytes, round);
            }
        }
    }

    /** Every rank sends a distinct 300 kB block to every other rank at once, on its own thread. */
    private void allToAll(Link[] links, int me, int size) {
        int bytes = 300_000;
        MemorySegment src = arena.allocate((long) bytes * size);
        MemorySegment dst = arena.allocate((long) bytes * size);
        for (int peer = 0; peer < size; peer++) {
            patterned(src, (long) peer * bytes, bytes, me * size + peer);
        }
        List<NetRequest> requests = new ArrayList<>();
        for (int peer = 0; peer < size; peer++) {
            if (peer != me) {
                requests.add(links[peer].recv().irecv(dst, (long) peer * bytes, bytes, peer, null));
                requests.add(links[peer].send().isend(src, (long) peer * bytes, bytes, me, null));
            }
        }
        awaitAll(requests.toArray(NetRequest[]::new));
        for (int peer = 0; peer < size; peer++) {
            if (peer != me) {
                assertPattern(dst, (long) peer * bytes, bytes, peer * size + me);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Content patterns

    /** The byte the pattern with {@code seed} has at position {@code i}. */
    private static byte patternByte(long i, int seed) {
        long x = (i + 1) * 0x9E37_79B9_7F4A_7C15L + seed * 0xC2B2_AE3D_27D4_EB4FL;
        return (byte) (x >>> 56);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Checks that transports' own test classes share

    /**
     * What a test's transport of {@code rank} is given: loopback, host {@code host}, JVM {@code jvm-<rank>}.
     *
     * @param rank           the transport's rank
     * @param size           ranks in the job
     * @param connectTimeout how long a connect may take
     * @param options        the transport's options
     */
    public static TransportContext loopbackContext(int rank, int size, Duration connectTimeout,
                                                   Map<String, String> options) {
        return new TransportContext(new PeerIdentity(rank, "host", "jvm-" + rank), size,
                InetAddress.getLoopbackAddress(), connectTimeout, options);
    }

    /** @return the provider named {@code name}, as {@link ServiceLoader} finds it */
    protected static NetTransportProvider loadProvider(String name) {
        return ServiceLoader.load(NetTransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("ServiceLoader finds no transport provider named " + name));
    }

    /** Asserts that {@code provider} connects two JVMs of one host and nothing else. */
    protected static void assertConnectsOnlyOtherJvmsOfTheSameHost(NetTransportProvider provider) {
        PeerIdentity a = new PeerIdentity(0, "h1", "j1");
        assertThat(provider.canConnect(a, new PeerIdentity(1, "h1", "j2"))).isTrue();
        assertThat(provider.canConnect(new PeerIdentity(1, "h1", "j2"), a)).isTrue();
        assertThat(provider.canConnect(a, new PeerIdentity(1, "h1", "j1"))).as("same JVM").isFalse();
        assertThat(provider.canConnect(a, new PeerIdentity(1, "h2", "j2"))).as("other host").isFalse();
    }

    /**
     * Asserts that this test's transport is named {@code name}, progresses inside {@code test()} (it does not
     * signal completion) and takes 64 requests in flight per connection.
     *
     * @return the properties, for further checks
     */
    protected final NetProperties assertCallerDriven(String name) {
        NetProperties p = properties();
        assertThat(p.name()).isEqualTo(name);
        assertThat(p.signalsCompletion()).isFalse();
        assertThat(p.maxInflightRequests()).isEqualTo(64);
        return p;
    }

    /**
     * Asserts that creating a transport with option {@code key} set to {@code value} fails with an
     * {@link IllegalArgumentException} naming both.
     */
    protected static void assertOptionRejected(ThrowingCallable create, String key, String value) {
        assertThatThrownBy(create).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(key).hasMessageContaining("'" + value + "'");
    }

    /**
     * Asserts that decoding a handle of another version, or one byte longer than {@code valid}, fails with a
     * {@link NetException} saying so. A handle's version is its byte 4, after a 4-byte magic.
     */
    protected static void assertHandleVersionAndLengthChecked(byte[] valid, Consumer<byte[]> decode) {
        assertSpoiledHandleRefused(valid, h -> h[4] = 9, decode, "version");
        byte[] longer = Arrays.copyOf(valid, valid.length + 1);
        assertThatThrownBy(() -> decode.accept(longer)).isInstanceOf(NetException.class)
                .hasMessageContaining("bytes");
    }

    /**
     * Asserts that decoding a copy of {@code valid} that {@code spoil} changed fails with a {@link NetException}
     * naming {@code what}.
     */
    protected static void assertSpoiledHandleRefused(byte[] valid, Consumer<byte[]> spoil, Consumer<byte[]> decode,
                                                     String what) {
        byte[] spoiled = valid.clone();
        spoil.accept(spoiled);
        assertThatThrownBy(() -> decode.accept(spoiled)).isInstanceOf(NetException.class).hasMessageContaining(what);
    }

    /**
     * Closes a new link's receiving end, then posts sends on it until one fails: it must fail with PEER_CLOSED.
     *
     * @return how long after the close the failure came
     */
    protected final Duration assertSendsFailWithPeerClosedOnceTheReceiverCloses() {
        Link link = link();
        link.recv().close();
        long closedNs = System.nanoTime();
        assertThat(sendUntilFailure(link).reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
        return Duration.ofNanos(System.nanoTime() - closedNs);
    }

    /**
     * Posts 1 MiB sends on {@code link}, whose receiving end is closed or gone, until one fails.
     *
     * @return the failure
     */
    private NetException sendUntilFailure(Link link) {
        MemorySegment src = arena.allocate(1 << 20);
        NetException[] failure = new NetException[1];
        NetRequest[] send = new NetRequest[1];
        pollUntil(() -> {
            try {
                if (send[0] == null) {
                    send[0] = link.send().isend(src, 0, src.byteSize(), 1, null);
                } else if (send[0].test() != NetRequest.NOT_DONE) {
                    send[0] = null;
                }
            } catch (NetException e) {
                failure[0] = e;
            }
            return failure[0] != null;
        }, "sends to a closed receiver to fail");
        return failure[0];
    }

    /**
     * Asserts that the data path allocates nothing once warm: rounds of a small (100 bytes), a large native (512 KiB)
     * and a heap float[] message, each posted receive first, allocate less than 8 bytes a round on the test thread.
     * Skips where the JVM does not count a thread's allocations.
     */
    protected final void assertSteadyStateAllocatesNothing(Link link) {
        MemorySegment small = arena.allocate(256);
        MemorySegment heapSrc = MemorySegment.ofArray(new float[10_000]);
        MemorySegment heapDst = MemorySegment.ofArray(new float[10_000]);
        assertSteadyStateAllocatesNothing(link, new MemorySegment[] {small, arena.allocate(512 << 10), heapSrc},
                new long[] {100, 512 << 10, heapSrc.byteSize()},
                new MemorySegment[] {small, arena.allocate(512 << 10), heapDst}, 1500);
    }

    /**
     * Asserts that the data path allocates nothing once warm: after {@code warmUpRounds} and then until the JIT
     * compiled nothing for 200 ms, 1000 rounds of one message from each source (receives posted first, into the
     * destination of the same index) allocate less than 8 bytes a round on the test thread. Skips where the JVM does
     * not count a thread's allocations.
     *
     * @param sendBytes how much of each source a round sends
     */
    protected final void assertSteadyStateAllocatesNothing(Link link, MemorySegment[] sources, long[] sendBytes,
                                                           MemorySegment[] destinations, int warmUpRounds) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        exchange(link, sources, sendBytes, destinations, warmUpRounds);
        // As MetaRoceTransportConformanceTest does: while C2 still compiles the path, the interpreter allocates what
        // escape analysis later removes (a full verify once counted 27,888 bytes over the 1000 rounds on tcp with two
        // sockets; the same test alone, 13 runs, idle and beside two busy processes, stayed under the bound).
        io.jccl.check.JitQuiet jit = io.jccl.check.JitQuiet.ofThisJvm();
        long giveUpNs = System.nanoTime() + 30_000_000_000L;
        while (!jit.quiet() && System.nanoTime() - giveUpNs < 0) {
            exchange(link, sources, sendBytes, destinations, 20);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        int rounds = 1000;
        exchange(link, sources, sendBytes, destinations, rounds);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // Allow a few stray bytes per round for one-off JIT or JDK internals.
        assertThat(allocated).as("bytes allocated over %d rounds of %d messages", rounds, sources.length)
                .isLessThan(rounds * 8L);
    }

    private static void exchange(Link link, MemorySegment[] sources, long[] sendBytes, MemorySegment[] destinations,
                                 int rounds) {
        SendConnection send = link.send();
        RecvConnection recv = link.recv();
        int n = sources.length;
        NetRequest[] all = new NetRequest[2 * n];
        boolean[] done = new boolean[all.length];
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < n; i++) {
                all[i] = recv.irecv(destinations[i], 0, destinations[i].byteSize(), round, null);
            }
            for (int i = 0; i < n; i++) {
                all[n + i] = send.isend(sources[i], 0, sendBytes[i], round, null);
            }
            Arrays.fill(done, false);
            int left = all.length;
            long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
            for (long spins = 1; left > 0; spins++) {
                if ((spins & 0xFFFF) == 0 && System.nanoTime() - deadline > 0) {
                    throw new AssertionError("round " + round + " did not complete");
                }
                for (int i = 0; i < all.length; i++) {
                    if (!done[i] && all[i].test() != NetRequest.NOT_DONE) {
                        done[i] = true;
                        left--;
                    }
                }
            }
        }
    }

    /** Writes the pattern {@code seed} into {@code [offset, offset + length)}, position 0 at {@code offset}. */
    protected static MemorySegment patterned(MemorySegment segment, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, patternByte(i, seed));
        }
        return segment;
    }

    /** Asserts that {@code [offset, offset + length)} holds the pattern {@code seed}. */
    protected static void assertPattern(MemorySegment segment, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            byte got = segment.get(ValueLayout.JAVA_BYTE, offset + i);
            if (got != patternByte(i, seed)) {
                fail("byte " + i + " of the message (segment offset " + (offset + i) + ") is " + got + ", expected "
                        + patternByte(i, seed));
            }
        }
    }

    /** Fills a segment with one byte value. */
    protected static MemorySegment filled(MemorySegment segment, byte value) {
        segment.fill(value);
        return segment;
    }

    /** Asserts that every byte of {@code [offset, offset + length)} is {@code value}. */
    protected static void assertAllBytes(MemorySegment segment, long offset, long length, byte value) {
        for (long i = 0; i < length; i++) {
            byte got = segment.get(ValueLayout.JAVA_BYTE, offset + i);
            if (got != value) {
                fail("byte at offset " + (offset + i) + " was overwritten: " + got + " instead of " + value);
            }
        }
    }
}
