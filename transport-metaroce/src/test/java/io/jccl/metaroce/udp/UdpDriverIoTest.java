package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Endpoint;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The driver's choice of I/O method, and what native I/O adds end to end: ECN marks reach the endpoint, traffic is
 * sent ECT(0), large WRITEs go as GSO messages and arrive through GRO, exactly.
 */
@Tag("integration")
class UdpDriverIoTest {
    /** WRITEs {@code bytes} from a to b (after a handshake) and checks them; returns nothing, asserts. */
    private static void writeExactly(UdpDriver a, UdpDriver b, long bytes, Runnable step) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = Loopback.randomBytes(arena, bytes, bytes);
            MemorySegment dst = arena.allocate(bytes);
            Endpoint ea = a.endpoint();
            int key = b.endpoint().registerRegion(dst, true);
            int conn = ea.connectionTo(1) >= 0 ? ea.connectionTo(1) : ea.connect(System.nanoTime(), 1);
            int[] done = new int[1];
            List<CompletionStatus> statuses = new ArrayList<>();
            boolean finished = run(a, b, step, () -> {
                if (ea.isEstablished(conn) && done[0] == 0) {
                    ea.postWrite(conn, key, 0, src, 0, bytes);
                    done[0] = -1;
                }
                ea.pollCompletions((c, id, kind, status, n) -> {
                    statuses.add(status);
                    done[0] = 1;
                });
                return done[0] == 1;
            });
            assertThat(finished).as("a %s%nb %s", ea.counters(), b.endpoint().counters()).isTrue();
            assertThat(statuses).as("a %s%nb %s", ea.counters(), b.endpoint().counters())
                    .containsExactly(CompletionStatus.OK);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
        }
    }

    /**
     * Skips where native I/O is unavailable, else WRITEs {@code bytes} from a driver with {@code aConfig} to one with
     * {@code bConfig} ({@link #writeExactly}) and runs {@code checks} on the two.
     */
    private static void writeBetween(UdpDriverConfig aConfig, UdpDriverConfig bConfig, long bytes,
                                     BiConsumer<UdpDriver, UdpDriver> checks) {
        Loopback.assumeNative();
        try (UdpDriver a = Loopback.driver(1, aConfig); UdpDriver b = Loopback.driver(2, bConfig)) {
            Loopback.introduce(a, b);
            writeExactly(a, b, bytes, () -> { });
            checks.accept(a, b);
        }
    }

    private static boolean run(UdpDriver a, UdpDriver b, Runnable step, java.util.function.BooleanSupplier done) {
        return Loopback.run(a, b, () -> {
            step.run();
            return done.getAsBoolean();
        });
    }

    @Test
    void channelCanBeForcedAndNativeWhereUnavailableFailsSayingWhy() throws UnknownHostException {
        try (UdpDriver d = Loopback.driver(1, IoMethod.CHANNEL)) {
            assertThat(d.ioMethod()).isEqualTo(IoMethod.CHANNEL);
            assertThat(d.gsoActive()).isFalse();
            assertThat(d.groActive()).isFalse();
        }
        UdpDriverConfig ipv6 = UdpDriverConfig.defaults(InetAddress.getByName("::1")).withIo(IoMethod.NATIVE);
        assertThatThrownBy(() -> Loopback.driver(2, ipv6)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("io=NATIVE is not available").hasMessageContaining("0:0:0:0:0:0:0:1 is not IPv4");
    }

    @Test
    void autoPicksNativeForIpv4AndFallsBackToChannelForIpv6() throws UnknownHostException {
        try (UdpDriver d = Loopback.driver(1, IoMethod.AUTO)) {
            assertThat(d.ioMethod()).isEqualTo(NativeDatagramIo.unavailableReason() == null ? IoMethod.NATIVE
                    : IoMethod.CHANNEL);
        }
        UdpDriver d;
        try {
            d = Loopback.driver(2, UdpDriverConfig.defaults(InetAddress.getByName("::1")));
        } catch (UncheckedIOException e) {
            assumeTrue(false, "no IPv6 loopback here: " + e.getMessage());
            return;
        }
        try (UdpDriver ipv6 = d; UdpDriver other = Loopback.driver(3, UdpDriverConfig.defaults(
                InetAddress.getByName("::1")))) {
            assertThat(ipv6.ioMethod()).isEqualTo(IoMethod.CHANNEL);
            Loopback.introduce(ipv6, other);
            writeExactly(ipv6, other, 1 << 20, () -> { });
        }
    }

    @Test
    void nativeTrafficIsSentEct0AndLargeWritesGoAsGsoAndArriveThroughGro() {
        UdpDriverConfig io = Loopback.config(IoMethod.NATIVE);
        writeBetween(io, io, 8 << 20, (a, b) -> {
            assertThat(b.ecnCapableReceived()).as("every datagram ECT(0)").isEqualTo(b.datagramsReceived())
                    .isPositive();
            assertThat(a.ecnCapableReceived()).isEqualTo(a.datagramsReceived()).isPositive();
            assertThat(a.ecnMarkedReceived() + b.ecnMarkedReceived()).isZero();
            assertThat(a.sendCalls()).as("sendmmsg batches").isLessThan(a.datagramsSent());
            if (a.gsoActive()) {
                assertThat(a.gsoSegmentsSent()).isPositive();
                if (b.groActive()) {
                    assertThat(b.groSegmentsReceived()).as("loopback hands GSO messages on whole").isPositive();
                }
            } else {
                assertThat(a.gsoSegmentsSent()).isZero();
            }
            assertThat(a.ioErrors() + b.ioErrors()).isZero();
        });
    }

    @Test
    void withGsoAndGroOffDatagramsStillGoInBatches() {
        UdpDriverConfig plain = Loopback.config(IoMethod.NATIVE).withGso(false).withGro(false).withSendBatch(16);
        writeBetween(plain, plain, 4 << 20, (a, b) -> {
            assertThat(a.gsoSegmentsSent() + b.groSegmentsReceived()).isZero();
            assertThat(a.sendCalls()).isLessThan(a.datagramsSent());
        });
    }

    @Test
    void aChannelSenderIsHeardByANativeReceiverAndSendsEct0() {
        writeBetween(Loopback.config(IoMethod.CHANNEL), Loopback.config(IoMethod.NATIVE), 2 << 20, (a, b) -> {
            assertThat(b.ecnCapableReceived()).as("the JDK sets IP_TOS = ECT(0)").isEqualTo(b.datagramsReceived());
            assertThat(a.ecnCapableReceived() + a.ecnMarkedReceived()).as("a channel cannot read ECN").isZero();
        });
    }

    /**
     * Between a's and b's path sockets, one socket per path that forwards both ways and sends everything with the
     * CE mark, as a congested switch would. It follows a's re-routes (anything not from b's path socket is a).
     */
    private static final class MarkingForwarder implements AutoCloseable {
        private final DatagramChannel[] sockets;
        private final InetSocketAddress[] aSide;
        private final List<InetSocketAddress> bSide;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(65536);
        long forwarded;

        MarkingForwarder(List<InetSocketAddress> aSide, List<InetSocketAddress> bSide) throws IOException {
            this.aSide = aSide.toArray(new InetSocketAddress[0]);
            this.bSide = bSide;
            sockets = new DatagramChannel[this.aSide.length];
            for (int p = 0; p < sockets.length; p++) {
                sockets[p] = DatagramChannel.open(StandardProtocolFamily.INET);
                sockets[p].configureBlocking(false);
                sockets[p].setOption(StandardSocketOptions.IP_TOS, DatagramIo.ECN_CE);
                sockets[p].setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
                sockets[p].bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            }
        }

        List<InetSocketAddress> addresses() {
            return UdpSockets.localAddresses(sockets);
        }

        void step() {
            try {
                for (int p = 0; p < sockets.length; p++) {
                    for (int n = 0; n < 64; n++) {
                        buffer.clear();
                        InetSocketAddress from = (InetSocketAddress) sockets[p].receive(buffer);
                        if (from == null) {
                            break;
                        }
                        buffer.flip();
                        if (from.equals(bSide.get(p))) {
                            sockets[p].send(buffer, aSide[p]);
                        } else {
                            aSide[p] = from;
                            sockets[p].send(buffer, bSide.get(p));
                        }
                        forwarded++;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() throws IOException {
            for (DatagramChannel s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void aCeMarkReachesTheEndpointAsEcnMarked() throws IOException {
        Loopback.assumeNative();
        try (UdpDriver a = Loopback.driver(1, IoMethod.NATIVE); UdpDriver b = Loopback.driver(2, IoMethod.NATIVE);
             MarkingForwarder marking = new MarkingForwarder(a.localAddresses(), b.localAddresses())) {
            a.addPeer(marking.addresses());
            b.addPeer(marking.addresses());
            writeExactly(a, b, 1 << 20, marking::step);
            assertThat(marking.forwarded).isPositive();
            assertThat(b.ecnMarkedReceived()).as("every datagram came through the marking forwarder")
                    .isEqualTo(b.datagramsReceived()).isPositive();
            assertThat(b.endpoint().counters().get(Counter.ECN_MARKS_RECEIVED)).as("DATA packets seen marked")
                    .isPositive();
            assertThat(a.endpoint().counters().get(Counter.ECN_WINDOW_CUTS)).as("the sender backed off")
                    .isPositive();
        }
    }
}
