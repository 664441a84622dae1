package io.jccl.net.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the transport conformance suite against the TCP transport on the loopback interface, and adds what only
 * TCP has: the hello handshake, the wire format, socket options and timeouts. Hostile peers are played by raw
 * sockets. This class runs everything with the defaults (connections offered for both directions, one bulk socket
 * each way); its subclasses run all of it again with two one-way sockets per connection
 * ({@link TcpTwoSocketConformanceTest}) and with four bulk sockets each way ({@link TcpFourSocketConformanceTest}).
 */
@Tag("integration")
class TcpTransportConformanceTest extends NetTransportConformanceTest {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    @Override
    protected NetTransport createTransport(int rank, int size) {
        return tcp(rank, size, CONNECT_TIMEOUT, Map.of());
    }

    /** @return the options every transport of the test gets, under those a test adds */
    protected Map<String, String> transportOptions() {
        return Map.of();
    }

    final NetTransport tcp(int rank, int size, Duration connectTimeout, Map<String, String> options) {
        Map<String, String> all = new HashMap<>(transportOptions());
        all.putAll(options);
        return track(new TcpNetTransportProvider().create(loopbackContext(rank, size, connectTimeout, all)));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Provider and properties

    @Test
    void providerIsFoundByServiceLoader() {
        NetTransportProvider tcp = loadProvider("tcp");
        assertThat(tcp.priority()).isEqualTo(10);
        assertThat(tcp.canConnect(new PeerIdentity(0, "a", "x"), new PeerIdentity(1, "b", "y"))).isTrue();
    }

    @Test
    void propertiesDescribeACallerDrivenTransport() {
        assertThat(assertCallerDriven("tcp").maxMessageBytes()).isEqualTo(1L << 40);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sleeping until a socket is ready (awaitProgress; the shared cases are in the base class)

    @Override
    protected boolean sleeping(NetTransport transport) {
        return ((TcpNetTransport) transport).sleeping();
    }

    @Test
    void socketsAreWatchedOnlyForWhatAPendingRequestWaitsFor() {
        NetTransport[] t = transports(2);
        Link link = connect(t[0], t[1]);
        TcpRecvConnection recvSide = (TcpRecvConnection) link.recv();
        // Data nobody posted a receive for stays in the kernel: readiness for it would wake a sleeper for nothing,
        // again and again, so the socket is not watched.
        NetRequest send = link.send().isend(patterned(arena.allocate(8), 0, 8, 4), 0, 8, 4, null);
        pollUntil(() -> send.test() != NetRequest.NOT_DONE, "the send");
        assertThat(recvSide.wantedOps(0)).as("no receive posted").isZero();
        MemorySegment dst = arena.allocate(8);
        assertThat(await(link.recv().irecv(dst, 0, 8, 4, null))).isEqualTo(8);
        assertPattern(dst, 0, 8, 4);
        NetRequest next = link.recv().irecv(dst, 0, 8, 5, null);
        assertThat(next.test()).isEqualTo(NetRequest.NOT_DONE);
        assertThat(recvSide.wantedOps(0)).as("a receive waits for its header").isEqualTo(SelectionKey.OP_READ);
        TcpSendConnection sendSide = (TcpSendConnection) link.send();
        for (int i = 0; i < sendSide.socketCount(); i++) {
            assertThat(sendSide.wantedOps(i)).as("nothing left to write on socket %d", i).isZero();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Options

    @ParameterizedTest
    @ValueSource(strings = {"abc", "-1", "1", "4095", "2147483648", "", "4 MiB", "1e6"})
    void invalidSocketBufferSizeIsRejectedNamingKeyAndValue(String value) {
        assertOptionRejected(() -> tcp(0, 1, CONNECT_TIMEOUT, Map.of("JCCL_SOCKET_BUFFER_BYTES", value)),
                "JCCL_SOCKET_BUFFER_BYTES", value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "8192", " 65536 "})
    void smallOrKernelDefaultSocketBuffersStillCarryLargeMessages(String value) {
        NetTransport a = tcp(0, 2, CONNECT_TIMEOUT, Map.of("JCCL_SOCKET_BUFFER_BYTES", value));
        NetTransport b = tcp(1, 2, CONNECT_TIMEOUT, Map.of("JCCL_SOCKET_BUFFER_BYTES", value));
        Link link = connect(a, b);
        long bytes = 8L << 20;
        MemorySegment src = patterned(arena.allocate(bytes), 0, bytes, 3);
        MemorySegment dst = arena.allocate(bytes);
        assertThat(awaitAll(link.send().isend(src, 0, bytes, 1, null), link.recv().irecv(dst, 0, bytes, 1, null)))
                .containsExactly(bytes, bytes);
        assertThat(src.mismatch(dst)).isEqualTo(-1L);
    }

    // ---------------------------------------------------------------------------------------------------------
    // One socket for both directions: a connect back takes the peer's offered sockets

    @Test
    void connectingBackToAPeerSendsOverTheSocketsItsConnectionOffered() {
        NetTransport[] t = duplexTransports();
        listener(t[0]);   // a rank with a listener offers its connections' sockets
        Link there = connect(t[0], t[1]);
        Link back = connect(t[1], t[0]);
        assertThat(((TcpConnection) back.send()).channels).as("sockets of the connection back")
                .containsExactly(((TcpConnection) there.recv()).channels);
        assertThat(((TcpConnection) back.recv()).channels).containsExactly(((TcpConnection) there.send()).channels);
        assertMessageGoesThrough(there, 8, 1);
        assertMessageGoesThrough(back, 8, 2);
        assertMessageGoesThrough(there, 300_000, 3);
        assertMessageGoesThrough(back, 300_000, 4);
        streamMessages(there, 200, 70_000, 5);
        streamMessages(back, 200, 70_000, 6);
    }

    @Test
    void bothDirectionsAtOnceOverOneSocketKeepEveryByte() throws Exception {
        NetTransport[] t = duplexTransports();
        listener(t[0]);
        Link there = connect(t[0], t[1]);
        Link back = connect(t[1], t[0]);
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> streamMessages(back, 300, 200_000, 8));
        streamMessages(there, 300, 200_000, 7);
        other.get();
    }

    @Test
    void closingTheSendingSideOfASharedSocketEndsOnlyItsDirection() {
        NetTransport[] t = duplexTransports();
        listener(t[0]);
        Link there = connect(t[0], t[1]);
        Link back = connect(t[1], t[0]);
        back.send().close();
        NetRequest waiting = back.recv().irecv(arena.allocate(8), 0, 8, 9, null);
        assertThat(awaitFailure(waiting).reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
        assertMessageGoesThrough(there, 64, 10);
        there.recv().close();
        NetException failure = null;
        MemorySegment src = arena.allocate(1 << 20);
        for (int i = 0; i < 1000 && failure == null; i++) {   // the kernel takes sends until its buffers fill
            NetRequest send = there.send().isend(src, 0, src.byteSize(), 11, null);
            if (send == null) {
                continue;
            }
            try {
                await(send);
            } catch (NetException e) {
                failure = e;
            }
        }
        assertThat(failure).as("a send once both ends of the peer closed").isNotNull();
        assertThat(failure.reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
    }

    /**
     * Both directions' headers and short messages share socket 0; each direction's bulk payloads go on its own
     * sockets (1..n for the offering side, n+1..2n for the taking side), so two directions' bulk never contend for
     * one socket.
     */
    @ParameterizedTest(name = "{0} bulk socket(s) per direction")
    @ValueSource(ints = {1, 2})
    void sharedSocketCarriesShortMessagesAndEachDirectionsBulkGoesOnItsOwnSockets(int perDirection) {
        onlyInTheOneSocketClass();
        Map<String, String> options = Map.of("JCCL_SOCKET_DUPLEX", "1",
                TcpOptions.NSOCKS, String.valueOf(perDirection));
        NetTransport t0 = tcp(0, 2, CONNECT_TIMEOUT, options);
        NetTransport t1 = tcp(1, 2, CONNECT_TIMEOUT, options);
        listener(t0);
        Link there = connect(t0, t1);
        Link back = connect(t1, t0);
        int sockets = 1 + 2 * perDirection;
        assertThat(((TcpRecvConnection) there.recv()).socketCount()).isEqualTo(sockets);
        assertThat(((TcpRecvConnection) back.recv()).socketCount()).isEqualTo(sockets);
        long bulkBytes = 300_000;   // at least 64 KiB: bulk, in min(n, 300000 / 64 KiB) stripes
        int seed = 20;
        for (Link link : new Link[] {there, back}) {
            TcpRecvConnection recv = (TcpRecvConnection) link.recv();
            int firstBulk = link == there ? 1 : 1 + perDirection;
            long[] expected = new long[sockets];
            for (long bytes : new long[] {8, 65_535, bulkBytes}) {
                assertMessageGoesThrough(link, (int) bytes, seed++);
                expected[0] += Wire.HEADER_BYTES;
                if (bytes < 65_536) {
                    expected[0] += bytes;
                } else {
                    for (int i = 0; i < perDirection; i++) {
                        expected[firstBulk + i] += Wire.HEADER_BYTES + Wire.stripeStart(bytes, perDirection, i + 1)
                                - Wire.stripeStart(bytes, perDirection, i);
                    }
                }
                for (int i = 0; i < sockets; i++) {
                    assertThat(recv.bytesRead(i)).as("bytes read on socket %d of %s after a %d-byte message", i,
                            link == there ? "the offering side's direction" : "the taking side's", bytes)
                            .isEqualTo(expected[i]);
                }
            }
        }
    }

    static Stream<Arguments> badSharedHeaders() {
        return Stream.of(
                Arguments.of("two stripes of a short message on a shared connection",
                        header(Wire.HEADER_MAGIC, 1, 100_000), "1 shared socket"),
                Arguments.of("two bulk stripes on one bulk socket",
                        header(Wire.HEADER_MAGIC, Wire.FLAG_BULK | 1, 100_000), "1 bulk socket"));
    }

    /** An offered connection's layout bounds what its headers may ask for. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("badSharedHeaders")
    void headerThatBreaksTheSharedLayoutIsAProtocolError(String name, byte[] header, String why) throws IOException {
        onlyInTheOneSocketClass();
        Listener listener = listener(transports(1)[0]);
        SocketChannel[] peer = rawPeers(listener, 3, (hello, i, token) -> Wire.putHello(hello, Wire.FLAG_OFFER, 3, i,
                3, 0x5EED, token, new byte[Wire.TOKEN_BYTES]));
        try {
            RecvConnection recv = acceptOne(listener);
            writeAll(peer[0], header);
            NetException e = awaitFailure(recv.irecv(arena.allocate(100_000), 0, 100_000, 1, null));
            assertThat(e.reason()).isEqualTo(NetException.Reason.PROTOCOL_ERROR);
            assertThat(e.getMessage()).contains(why);
        } finally {
            closeAll(peer);
        }
    }

    /** @return two transports with {@code JCCL_SOCKET_DUPLEX=1} */
    private NetTransport[] duplexTransports() {
        return new NetTransport[] {tcp(0, 2, CONNECT_TIMEOUT, Map.of("JCCL_SOCKET_DUPLEX", "1")),
            tcp(1, 2, CONNECT_TIMEOUT, Map.of("JCCL_SOCKET_DUPLEX", "1"))};
    }

    @Test
    void byDefaultAConnectBackTakesTheSocketsTheConnectionOffered() {
        onlyInTheOneSocketClass();
        NetTransport t0 = tcp(0, 2, CONNECT_TIMEOUT, Map.of());
        NetTransport t1 = tcp(1, 2, CONNECT_TIMEOUT, Map.of());
        listener(t0);
        Link there = connect(t0, t1);
        Link back = connect(t1, t0);
        assertThat(t1.reusesAcceptedConnections()).isTrue();
        assertThat(((TcpConnection) back.send()).channels).hasSize(3);
        assertThat(((TcpConnection) back.send()).channels[0]).isSameAs(((TcpConnection) there.recv()).channels[0]);
        assertMessageGoesThrough(there, 8, 16);
        assertMessageGoesThrough(back, 8, 17);
    }

    @Test
    void withDuplexOffAConnectBackOpensItsOwnSockets() {
        NetTransport t0 = tcp(0, 2, CONNECT_TIMEOUT, Map.of("JCCL_SOCKET_DUPLEX", "0"));
        NetTransport t1 = tcp(1, 2, CONNECT_TIMEOUT, Map.of("JCCL_SOCKET_DUPLEX", "0"));
        listener(t0);
        Link there = connect(t0, t1);
        Link back = connect(t1, t0);
        assertThat(t1.reusesAcceptedConnections()).isFalse();
        assertThat(((TcpConnection) back.send()).channels[0]).isNotSameAs(((TcpConnection) there.recv()).channels[0]);
        assertMessageGoesThrough(there, 8, 14);
        assertMessageGoesThrough(back, 8, 15);
    }

    @Test
    void connectsCrossingEachOtherKeepASocketEach() {
        NetTransport[] t = duplexTransports();
        Listener l0 = listener(t[0]);
        Listener l1 = listener(t[1]);
        PendingConnect a = t[0].connect(l1.handle(), ProgressSignal.NONE);
        PendingConnect b = t[1].connect(l0.handle(), ProgressSignal.NONE);
        Link there = complete(a, l1);
        Link back = complete(b, l0);
        assertThat(((TcpConnection) back.send()).channels[0]).isNotSameAs(((TcpConnection) there.recv()).channels[0]);
        assertMessageGoesThrough(there, 8, 12);
        assertMessageGoesThrough(back, 8, 13);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Handshake: only peers with the listener's token get through

    static Stream<Arguments> badHellos() {
        return Stream.of(
                Arguments.of("wrong token", hello(Wire.HELLO_MAGIC, Wire.VERSION, 0, 1, 0, 1, token -> new byte[16])),
                Arguments.of("wrong magic", hello(0xCAFEBABE, Wire.VERSION, 0, 1, 0, 1, token -> token)),
                Arguments.of("version 1 (one socket, no socket fields)", hello(Wire.HELLO_MAGIC, 1, 0, 1, 0, 1,
                        token -> token)),
                Arguments.of("version 2 (no sender token)", hello(Wire.HELLO_MAGIC, 2, 0, 1, 0, 1, token -> token)),
                Arguments.of("version 3 (offered connections of one socket)", hello(Wire.HELLO_MAGIC, 3, 0, 1, 0, 1,
                        token -> token)),
                Arguments.of("wrong version", hello(Wire.HELLO_MAGIC, 5, 0, 1, 0, 1, token -> token)),
                Arguments.of("OFFER of two sockets (not 1 + 2n)", hello(Wire.HELLO_MAGIC, Wire.VERSION,
                        Wire.FLAG_OFFER, 1, 0, 2, token -> token)),
                Arguments.of("unknown flags", hello(Wire.HELLO_MAGIC, Wire.VERSION, 4, 1, 0, 1, token -> token)),
                Arguments.of("OFFER and REVERSE at once", hello(Wire.HELLO_MAGIC, Wire.VERSION,
                        Wire.FLAG_OFFER | Wire.FLAG_REVERSE, 1, 0, 1, token -> token)),
                Arguments.of("REVERSE on a socket the listener accepted", hello(Wire.HELLO_MAGIC, Wire.VERSION,
                        Wire.FLAG_REVERSE, 1, 0, 1, token -> token)),
                Arguments.of("negative rank", hello(Wire.HELLO_MAGIC, Wire.VERSION, 0, -5, 0, 1, token -> token)),
                Arguments.of("zero sockets", hello(Wire.HELLO_MAGIC, Wire.VERSION, 0, 1, 0, 0, token -> token)),
                Arguments.of("17 sockets", hello(Wire.HELLO_MAGIC, Wire.VERSION, 0, 1, 0, 17, token -> token)),
                Arguments.of("socket index beyond the count", hello(Wire.HELLO_MAGIC, Wire.VERSION, 0, 1, 2, 2,
                        token -> token)),
                Arguments.of("garbage", (Function<byte[], byte[]>) token -> {
                    byte[] junk = new byte[4096];
                    new Random(7).nextBytes(junk);
                    return junk;
                }),
                Arguments.of("short hello", (Function<byte[], byte[]>) token -> new byte[] {0x4A, 0x43, 0x43}));
    }

    private static Function<byte[], byte[]> hello(int magic, int version, int flags, int rank, int socketIndex,
                                                  int socketCount, Function<byte[], byte[]> tokenOf) {
        return token -> {
            ByteBuffer b = ByteBuffer.allocate(Wire.HELLO_BYTES);
            b.putInt(magic).putShort((short) version).putShort((short) flags).putInt(rank).put((byte) socketIndex)
                    .put((byte) socketCount).putShort((short) 0).putLong(42).put(tokenOf.apply(token));
            return b.array();
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badHellos")
    void badHelloIsDroppedAndNeverSurfacesFromAccept(String name, Function<byte[], byte[]> bytesFor)
            throws IOException {
        NetTransport[] t = transports(2);
        Listener listener = listener(t[1]);
        TcpHandle handle = TcpHandle.decode(listener.handle());
        try (SocketChannel intruder = SocketChannel.open(handle.address())) {
            intruder.write(ByteBuffer.wrap(bytesFor.apply(handle.token().bytes())));
            intruder.shutdownOutput();
            intruder.configureBlocking(false);

            PendingConnect pending = t[0].connect(listener.handle(), ProgressSignal.NONE);
            List<RecvConnection> accepted = new ArrayList<>();
            SendConnection[] send = new SendConnection[1];
            pollUntil(() -> {
                if (send[0] == null) {
                    send[0] = pending.poll();
                }
                RecvConnection recv = listener.accept();
                if (recv != null) {
                    accepted.add(track(recv));
                }
                return send[0] != null && !accepted.isEmpty() && closedByPeer(intruder);
            }, "the listener to accept the real peer and drop the intruder");
            track(send[0]);
            for (int i = 0; i < 10; i++) {
                RecvConnection extra = listener.accept();
                assertThat(extra).as("a further accepted connection").isNull();
            }
            assertThat(accepted).hasSize(1);
            assertMessageGoesThrough(new Link(send[0], accepted.getFirst()), 100, 5);
        }
    }

    @Test
    void silentConnectionIsDroppedAfterTheConnectTimeout() throws IOException {
        NetTransport transport = tcp(0, 1, Duration.ofMillis(50), Map.of());
        Listener listener = track(transport.listen(ProgressSignal.NONE));
        try (SocketChannel silent = SocketChannel.open(TcpHandle.decode(listener.handle()).address())) {
            silent.configureBlocking(false);
            pollUntil(() -> {
                assertThat(listener.accept()).isNull();
                return closedByPeer(silent);
            }, "the listener to drop a connection that never says hello");
        }
    }

    /** @return true once the peer closed or reset the socket; reads and ignores anything it sent */
    private static boolean closedByPeer(SocketChannel channel) {
        try {
            return channel.read(ByteBuffer.allocate(64)) < 0;
        } catch (IOException reset) {
            return true;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Wire format: a peer that breaks it breaks the connection, never the receiver

    static Stream<Arguments> corruptHeaders() {
        return Stream.of(
                Arguments.of("huge length", header(Wire.HEADER_MAGIC, 0, 1L << 50)),
                Arguments.of("maximum length", header(Wire.HEADER_MAGIC, 0, Long.MAX_VALUE)),
                Arguments.of("negative length", header(Wire.HEADER_MAGIC, 0, -1)),
                Arguments.of("wrong magic", header(0x12345678, 0, 10)),
                Arguments.of("unknown flags", header(Wire.HEADER_MAGIC, 4, 10)),
                Arguments.of("unknown flag bit 9", header(Wire.HEADER_MAGIC, 1 << 9, 10)),
                Arguments.of("BULK on a connection that was not offered", header(Wire.HEADER_MAGIC, Wire.FLAG_BULK,
                        10)));
    }

    private static byte[] header(int magic, int flags, long length) {
        return ByteBuffer.allocate(Wire.HEADER_BYTES).putInt(magic).putInt(flags).putLong(1).putLong(length).array();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corruptHeaders")
    void corruptHeaderIsAProtocolError(String name, byte[] header) throws IOException {
        NetTransport transport = transports(1)[0];
        Listener listener = listener(transport);
        try (SocketChannel peer = rawPeer(listener)) {
            RecvConnection recv = acceptOne(listener);
            peer.write(ByteBuffer.wrap(header));
            MemorySegment dst = filled(arena.allocate(64), (byte) 0x5A);
            NetException e = awaitFailure(recv.irecv(dst, 0, 64, 1, null));
            assertThat(e.reason()).isEqualTo(NetException.Reason.PROTOCOL_ERROR);
            assertThat(e.getMessage()).contains("header");
            assertAllBytes(dst, 0, 64, (byte) 0x5A);
            assertPostFails(() -> recv.irecv(dst, 0, 64, 1, null), NetException.Reason.PROTOCOL_ERROR);
        }
    }

    /** TCP buffers: sends complete without any receive posted, and still arrive after the sender closed. */
    @Test
    void messagesSentBeforeCloseArriveEvenIfReceivesArePostedAfterwards() {
        Link link = link();
        int count = 50;
        MemorySegment src = patterned(arena.allocate(count * 1000L), 0, count * 1000L, 4);
        for (int i = 0; i < count; i++) {
            await(link.send().isend(src, i * 1000L, 1000, i, null));
        }
        link.send().close();
        MemorySegment dst = arena.allocate(count * 1000L);
        for (int i = 0; i < count; i++) {
            assertThat(await(link.recv().irecv(dst, i * 1000L, 1000, i, null))).isEqualTo(1000);
        }
        assertThat(dst.mismatch(src)).isEqualTo(-1L);
        assertPostFails(() -> link.recv().irecv(dst, 0, 1000, count, null), NetException.Reason.PEER_CLOSED);
    }

    @Test
    void peerVanishingInTheMiddleOfAMessageIsPeerClosed() throws IOException {
        NetTransport transport = transports(1)[0];
        Listener listener = listener(transport);
        RecvConnection recv;
        try (SocketChannel peer = rawPeer(listener)) {
            recv = acceptOne(listener);
            peer.write(ByteBuffer.wrap(header(Wire.HEADER_MAGIC, 0, 1000)));
            peer.write(ByteBuffer.wrap(new byte[10]));
            peer.setOption(StandardSocketOptions.SO_LINGER, 0);
        }
        NetException e = awaitFailure(recv.irecv(arena.allocate(1000), 0, 1000, 1, null));
        assertThat(e.reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
    }

    @Test
    void receiverGoneMakesSendsFailWithPeerClosed() {
        assertSendsFailWithPeerClosedOnceTheReceiverCloses();
    }

    private SocketChannel rawPeer(Listener listener) throws IOException {
        TcpHandle handle = TcpHandle.decode(listener.handle());
        SocketChannel peer = SocketChannel.open(handle.address());
        ByteBuffer hello = ByteBuffer.allocate(Wire.HELLO_BYTES);
        Wire.putHello(hello, 3, 0, 1, 7, handle.token().bytes());
        peer.write(hello.flip());
        return peer;
    }

    private RecvConnection acceptOne(Listener listener) {
        RecvConnection[] recv = new RecvConnection[1];
        pollUntil(() -> (recv[0] = listener.accept()) != null, "accept");
        return track(recv[0]);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Several sockets per connection. Tests that choose their own socket count run in this class only.

    private void onlyInTheOneSocketClass() {
        assumeTrue(getClass() == TcpTransportConformanceTest.class, "chooses its own socket count; runs once");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "JCCL_SOCKET_NSOCKS;0", "JCCL_SOCKET_NSOCKS;17", "JCCL_SOCKET_NSOCKS;-1", "JCCL_SOCKET_NSOCKS;abc",
            "JCCL_SOCKET_NSOCKS;2.5", "JCCL_SOCKET_NSOCKS;''", "JCCL_SOCKET_MIN_STRIPE_BYTES;4095",
            "JCCL_SOCKET_MIN_STRIPE_BYTES;0", "JCCL_SOCKET_MIN_STRIPE_BYTES;1073741825",
            "JCCL_SOCKET_MIN_STRIPE_BYTES;64K", "JCCL_SOCKET_MIN_STRIPE_BYTES;x"})
    void invalidSocketCountOrStripeIsRejectedNamingKeyAndValue(String key, String value) {
        onlyInTheOneSocketClass();
        assertOptionRejected(() -> tcp(0, 1, CONNECT_TIMEOUT, Map.of(key, value)), key, value);
    }

    /**
     * A long message leaves in one contiguous stripe per socket, each behind its own header, exactly as
     * {@link Wire#stripeStart} cuts it; a short one goes whole on socket 0; both arrive intact, from native and
     * heap memory.
     */
    @Test
    void longMessagesAreStripedAcrossEverySocketAndShortOnesStayOnTheFirst() {
        onlyInTheOneSocketClass();
        Map<String, String> options = Map.of(TcpOptions.NSOCKS, "3", TcpOptions.MIN_STRIPE_BYTES, "65536");
        Link link = connect(tcp(0, 2, CONNECT_TIMEOUT, options), tcp(1, 2, CONNECT_TIMEOUT, options));
        TcpRecvConnection recv = (TcpRecvConnection) link.recv();
        assertThat(((TcpSendConnection) link.send()).socketCount()).isEqualTo(3);
        assertThat(recv.socketCount()).isEqualTo(3);
        long[] expected = new long[3];
        int seed = 0;
        // 100 bytes and 131071 (one stripe: less than twice 64 KiB), 131072 (two), 1 MiB + 5 (three, the cap).
        for (long bytes : new long[] {100, 131_071, 131_072, (1 << 20) + 5}) {
            int stripes = (int) Math.min(3, Math.max(1, bytes / 65536));
            for (boolean heap : new boolean[] {false, true}) {
                seed++;
                MemorySegment src = patterned(heap ? MemorySegment.ofArray(new int[(int) bytes / 4 + 1])
                        : arena.allocate(bytes), 0, bytes, seed);
                MemorySegment dst = filled(heap ? MemorySegment.ofArray(new int[(int) bytes / 4 + 3])
                        : arena.allocate(bytes + 8), (byte) 0x5A);
                assertThat(awaitAll(link.send().isend(src, 0, bytes, seed, null),
                        link.recv().irecv(dst, 0, bytes + 8, seed, null))).containsExactly(bytes, bytes);
                assertPattern(dst, 0, bytes, seed);
                assertAllBytes(dst, bytes, 8, (byte) 0x5A);
                for (int i = 0; i < stripes; i++) {
                    expected[i] += Wire.HEADER_BYTES + Wire.stripeStart(bytes, stripes, i + 1)
                            - Wire.stripeStart(bytes, stripes, i);
                }
                for (int i = 0; i < 3; i++) {
                    assertThat(recv.bytesRead(i)).as("bytes read on socket %d after the %d-byte %s message", i,
                            bytes, heap ? "heap" : "native").isEqualTo(expected[i]);
                }
            }
        }
    }

    /** The receiving side never surfaces a connection whose sockets did not all arrive, and drops them in time. */
    @Test
    void connectionMissingSomeOfItsSocketsIsDroppedAfterTheConnectTimeout() throws IOException {
        onlyInTheOneSocketClass();
        NetTransport transport = tcp(0, 2, Duration.ofMillis(200), Map.of());
        Listener listener = track(transport.listen(ProgressSignal.NONE));
        assertBothDropped(listener, rawPeers(listener, 4, 5, new int[] {0, 2}), "a connection with 2 of its 4 sockets",
                "the listener to drop a connection that sent only 2 of its 4 sockets");
        NetTransport peer = tcp(1, 2, CONNECT_TIMEOUT, Map.of(TcpOptions.NSOCKS, "4"));
        assertMessageGoesThrough(complete(peer.connect(listener.handle(), ProgressSignal.NONE), listener), 300_000, 8);
    }

    static Stream<Arguments> contradictingSockets() {
        return Stream.of(
                Arguments.of("the same index twice", new int[] {0, 0}, new int[] {2, 2}, new int[] {5, 5}),
                Arguments.of("different socket counts", new int[] {0, 1}, new int[] {2, 3}, new int[] {5, 5}),
                Arguments.of("different ranks", new int[] {0, 1}, new int[] {2, 2}, new int[] {5, 6}));
    }

    /** Sockets naming the same connection but disagreeing about it are dropped together, at once. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("contradictingSockets")
    void socketsThatContradictEachOtherAreDroppedTogether(String name, int[] indexes, int[] counts, int[] ranks)
            throws IOException {
        onlyInTheOneSocketClass();
        Listener listener = listener(transports(1)[0]);
        assertBothDropped(listener, rawPeers(listener, 2,
                (hello, i, token) -> Wire.putHello(hello, ranks[i], indexes[i], counts[i], 99, token)),
                "a contradicting set", "the listener to drop both sockets");
    }

    /**
     * Polls the listener, which must accept nothing ({@code what}), until it has closed both raw sockets; closes them
     * after.
     */
    private void assertBothDropped(Listener listener, SocketChannel[] peers, String what, String until)
            throws IOException {
        try {
            pollUntil(() -> {
                assertThat(listener.accept()).as(what).isNull();
                return closedByPeer(peers[0]) && closedByPeer(peers[1]);
            }, until);
        } finally {
            closeAll(peers);
        }
    }

    @Test
    void connectingSideSaysHowManyOfItsSocketsConnectedWhenItTimesOut() throws Exception {
        onlyInTheOneSocketClass();
        // A listener that never accepts, with a backlog of 1: the kernel completes a socket or two, then drops SYNs.
        try (ServerSocketChannel full = ServerSocketChannel.open()) {
            full.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            byte[] handle = new TcpHandle((InetSocketAddress) full.getLocalAddress(), new byte[16]).encode();
            NetTransport transport = tcp(0, 1, Duration.ofMillis(300), Map.of(TcpOptions.NSOCKS, "8"));
            PendingConnect pending = transport.connect(handle, ProgressSignal.NONE);
            NetException failure = awaitConnectFailure(pending,
                    () -> assumeTrue(false, "this kernel completed 8 connections to a listener with a backlog of 1"),
                    "the connection attempt to fail");
            assertThat(failure.reason()).isEqualTo(NetException.Reason.IO_ERROR);
            assertThat(failure.getMessage()).contains("timed out")
                    .containsPattern("\\(\\d of its 8 sockets were connected\\)");
        }
    }

    static Stream<Arguments> badStripes() {
        return Stream.of(
                Arguments.of("a stripe header with another tag", 16_384, 2, stripeHeader(Wire.STRIPE_MAGIC, 1, 2, 8192)),
                Arguments.of("a stripe header with another length", 16_384, 2,
                        stripeHeader(Wire.STRIPE_MAGIC, 1, 1, 8000)),
                Arguments.of("a stripe header with another index", 16_384, 2,
                        stripeHeader(Wire.STRIPE_MAGIC, 0, 1, 8192)),
                Arguments.of("a message header where a stripe header is due", 16_384, 2,
                        header(Wire.HEADER_MAGIC, 0, 8192)),
                Arguments.of("two stripes of fewer than 4096 bytes", 8000, 2, stripeHeader(Wire.STRIPE_MAGIC, 1, 1, 4000)),
                Arguments.of("three stripes on two sockets", 30_000, 3, stripeHeader(Wire.STRIPE_MAGIC, 1, 1, 9984)));
    }

    private static byte[] stripeHeader(int magic, int index, long tag, long length) {
        return ByteBuffer.allocate(Wire.HEADER_BYTES).putInt(magic).putInt(index).putLong(tag).putLong(length).array();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badStripes")
    void stripeThatIsNotTheOneDueIsAProtocolError(String name, int length, int stripes, byte[] onSocket1)
            throws IOException {
        onlyInTheOneSocketClass();
        Listener listener = listener(transports(1)[0]);
        SocketChannel[] peer = rawPeers(listener, 2, 3, new int[] {0, 1});
        try {
            RecvConnection recv = acceptOne(listener);
            long firstStripe = Wire.stripeStart(length, Math.min(stripes, 2), 1);
            writeAll(peer[0], header(Wire.HEADER_MAGIC, stripes - 1, length));
            writeAll(peer[0], new byte[(int) firstStripe]);
            writeAll(peer[1], onSocket1);
            NetException e = awaitFailure(recv.irecv(arena.allocate(length), 0, length, 1, null));
            assertThat(e.reason()).isEqualTo(NetException.Reason.PROTOCOL_ERROR);
            assertThat(e.getMessage()).contains("header");
            assertPostFails(() -> recv.irecv(arena.allocate(64), 0, 64, 1, null), NetException.Reason.PROTOCOL_ERROR);
        } finally {
            peer[0].close();
            peer[1].close();
        }
    }

    /**
     * A peer that vanishes in the middle of a stripe on socket 1 fails the receive that needed it, with
     * PEER_CLOSED, after the earlier message, which socket 0 delivered whole, completed.
     */
    @Test
    void peerVanishingInTheMiddleOfAStripeFailsOnlyWhatItCannotDeliver() throws IOException {
        onlyInTheOneSocketClass();
        Listener listener = listener(transports(1)[0]);
        RecvConnection recv;
        SocketChannel[] peer = rawPeers(listener, 2, 3, new int[] {0, 1});
        try {
            recv = acceptOne(listener);
            writeAll(peer[0], header(Wire.HEADER_MAGIC, 0, 100));
            writeAll(peer[0], patterned(arena.allocate(100), 0, 100, 4).toArray(ValueLayout.JAVA_BYTE));
            writeAll(peer[0], header(Wire.HEADER_MAGIC, 1, 16_384));
            writeAll(peer[0], new byte[8192]);
            writeAll(peer[1], stripeHeader(Wire.STRIPE_MAGIC, 1, 1, 8192));
            writeAll(peer[1], new byte[10]);
            peer[1].setOption(StandardSocketOptions.SO_LINGER, 0);
        } finally {
            peer[1].close();
            peer[0].close();
        }
        MemorySegment small = arena.allocate(100);
        NetRequest first = recv.irecv(small, 0, 100, 1, null);
        NetRequest second = recv.irecv(arena.allocate(16_384), 0, 16_384, 1, null);
        assertThat(await(first)).isEqualTo(100);
        assertPattern(small, 0, 100, 4);
        assertThat(awaitFailure(second).reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
    }

    private static void writeAll(SocketChannel channel, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            if (channel.write(buffer) == 0) {
                Thread.yield();
            }
        }
    }

    /** @return raw sockets to the listener, each having said hello as socket {@code indexes[i]} of {@code count} */
    private SocketChannel[] rawPeers(Listener listener, int count, int rank, int[] indexes) throws IOException {
        return rawPeers(listener, indexes.length,
                (hello, i, token) -> Wire.putHello(hello, rank, indexes[i], count, 0x5EED, token));
    }

    /** Writes the hello of raw socket {@code i} to a listener whose token is {@code token}. */
    @FunctionalInterface
    private interface RawHello {
        void put(ByteBuffer hello, int i, byte[] token);
    }

    /** @return {@code n} raw sockets to the listener, non-blocking, each having sent the hello {@code hello} wrote */
    private static SocketChannel[] rawPeers(Listener listener, int n, RawHello hello) throws IOException {
        TcpHandle handle = TcpHandle.decode(listener.handle());
        SocketChannel[] peers = new SocketChannel[n];
        try {
            for (int i = 0; i < n; i++) {
                peers[i] = SocketChannel.open(handle.address());
                ByteBuffer frame = ByteBuffer.allocate(Wire.HELLO_BYTES);
                hello.put(frame, i, handle.token().bytes());
                writeAll(peers[i], frame.flip().array());
                peers[i].configureBlocking(false);
            }
        } catch (IOException | RuntimeException e) {
            closeAll(peers);
            throw e;
        }
        return peers;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Connecting

    @Test
    void refusedConnectionIsAnIoError() throws IOException {
        InetSocketAddress closedPort;
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            closedPort = (InetSocketAddress) probe.getLocalAddress();
        }
        byte[] handle = new TcpHandle(closedPort, new byte[16]).encode();
        NetException e = connectFailure(transports(1)[0], handle);
        assertThat(e.reason()).isEqualTo(NetException.Reason.IO_ERROR);
        assertThat(e.getMessage()).contains(String.valueOf(closedPort.getPort()));
    }

    @Test
    void connectionThatNeverCompletesTimesOutAsAnIoError() throws Exception {
        // A listener that never accepts and has a backlog of 1: once its queue is full, the kernel drops SYNs.
        List<SocketChannel> fillers = new ArrayList<>();
        try (ServerSocketChannel full = ServerSocketChannel.open()) {
            full.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            boolean stuck = false;
            for (int i = 0; i < 16 && !stuck; i++) {
                SocketChannel filler = SocketChannel.open();
                fillers.add(filler);
                filler.configureBlocking(false);
                boolean connected = filler.connect(full.getLocalAddress());
                for (int poll = 0; poll < 50 && !connected; poll++) {
                    Thread.sleep(5);
                    connected = filler.finishConnect();
                }
                stuck = !connected;
            }
            assumeTrue(stuck, "this kernel completes connections to a full backlog");
            byte[] handle = new TcpHandle((InetSocketAddress) full.getLocalAddress(), new byte[16]).encode();
            NetException e = connectFailure(tcp(0, 1, Duration.ofMillis(200), Map.of()), handle);
            assertThat(e.reason()).isEqualTo(NetException.Reason.IO_ERROR);
            assertThat(e.getMessage()).contains("timed out");
        } finally {
            for (SocketChannel filler : fillers) {
                filler.close();
            }
        }
    }

    /** Closes the raw peer sockets a test opened (those it got to open before it failed). */
    private static void closeAll(SocketChannel[] channels) throws IOException {
        for (SocketChannel channel : channels) {
            if (channel != null) {
                channel.close();
            }
        }
    }

    private NetException connectFailure(NetTransport transport, byte[] handle) {
        PendingConnect pending = transport.connect(handle, ProgressSignal.NONE);
        NetException[] failure = new NetException[1];
        pollUntil(() -> {
            try {
                assertThat(pending.poll()).as("connection that should fail").isNull();
            } catch (NetException e) {
                failure[0] = e;
            }
            return failure[0] != null;
        }, "the connection attempt to fail");
        return failure[0];
    }

    // ---------------------------------------------------------------------------------------------------------
    // Requests

    @Test
    @SuppressWarnings("restricted")
    void segmentsLargerThanOneBufferViewAreSentInChunks() {
        // Views larger than 2 GiB over small real allocations; only the small real part is ever touched.
        int bytes = 1 << 20;
        MemorySegment realSrc = patterned(arena.allocate(bytes + 16), 0, bytes + 16, 9);
        MemorySegment realDst = arena.allocate(bytes + 16);
        MemorySegment bigSrc = MemorySegment.ofAddress(realSrc.address()).reinterpret(3L << 30);
        MemorySegment bigDst = MemorySegment.ofAddress(realDst.address()).reinterpret(3L << 30);
        Link link = link();
        assertThat(awaitAll(link.send().isend(bigSrc, 16, bytes, 1, null), link.recv().irecv(bigDst, 16, bytes, 1, null)))
                .containsExactly(bytes, bytes);
        assertThat(realDst.asSlice(16, bytes).mismatch(realSrc.asSlice(16, bytes))).isEqualTo(-1L);
    }

    @Test
    @SuppressWarnings("restricted")
    void badArgumentsAreRejectedWhenPosting() {
        Link link = link();
        MemorySegment buffer = arena.allocate(64);
        assertThatThrownBy(() -> link.send().isend(buffer, 60, 8, 1, null)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> link.send().isend(buffer, -1, 8, 1, null)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> link.recv().irecv(buffer, 0, 65, 1, null)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> link.recv().irecv(buffer.asReadOnly(), 0, 8, 1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
        MemorySegment huge = MemorySegment.ofAddress(buffer.address()).reinterpret(Long.MAX_VALUE);
        assertThatThrownBy(() -> link.send().isend(huge, 0, (1L << 40) + 1, 1, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceeds");
        assertMessageGoesThrough(link, 64, 2);
    }

    @Test
    void segmentConfinedToAnotherThreadIsRejected() throws Exception {
        Link link = link();
        CompletableFuture<MemorySegment> segment = new CompletableFuture<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread owner = Thread.ofPlatform().start(() -> {
            try (Arena confined = Arena.ofConfined()) {
                segment.complete(confined.allocate(64));
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            MemorySegment confined = segment.get();
            assertThatThrownBy(() -> link.send().isend(confined, 0, 8, 1, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confined");
            assertThatThrownBy(() -> link.recv().irecv(confined, 0, 8, 1, null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confined");
        } finally {
            done.countDown();
            owner.join();
        }
    }

    @Test
    void testingARequestAgainAfterItReportedIsAnError() {
        Link link = link();
        MemorySegment buffer = arena.allocate(8);
        NetRequest recv = link.recv().irecv(buffer, 0, 8, 1, null);
        awaitAll(link.send().isend(buffer, 0, 8, 1, null), recv);
        assertThatThrownBy(recv::test).isInstanceOf(IllegalStateException.class);
    }

    /**
     * The data path allocates nothing once warm: small messages through the staging buffer, a large native one
     * straight from and into its segment, and a heap float[] one through the staging buffer.
     */
    @Test
    void steadyStateMessagesAllocateNothing() {
        assertSteadyStateAllocatesNothing(link());
    }
}
