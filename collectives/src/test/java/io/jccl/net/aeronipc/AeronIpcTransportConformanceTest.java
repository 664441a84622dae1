package io.jccl.net.aeronipc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jccl.net.NetException;
import io.jccl.net.NetProperties;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.net.TransportContext;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the transport conformance suite against the aeron-ipc transport, both ends in this JVM (the suite builds
 * transports directly, so the provider's same-host, other-JVM rule does not apply), on a media driver of its own
 * in a temporary directory; and adds what only aeron-ipc has: options, the provider's rule, the data path's allocation.
 */
class AeronIpcTransportConformanceTest extends NetTransportConformanceTest {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private static Path dir;

    @BeforeAll
    static void driverDirectory() throws IOException {
        dir = Files.createTempDirectory("jccl-aeron-ipc-conformance").resolve("aeron");
    }

    @AfterAll
    static void stopDriver() {
        AeronIpcDriver.shutdownIfUnused(dir);
    }

    @Override
    protected NetTransport createTransport(int rank, int size) {
        return shm(rank, size, Map.of());
    }

    private NetTransport shm(int rank, int size, Map<String, String> extra) {
        Map<String, String> options = new java.util.HashMap<>(extra);
        options.putIfAbsent(AeronIpcOptions.DIR, dir.toString());
        options.putIfAbsent(AeronIpcOptions.TERM_BYTES, String.valueOf(4 << 20));
        return track(new AeronIpcTransportProvider().create(new TransportContext(
                new PeerIdentity(rank, "host", "jvm-" + rank), size, InetAddress.getLoopbackAddress(), CONNECT_TIMEOUT,
                options)));
    }

    /**
     * Many messages of half a term each way, posted as collectives post them (the receive first, then the send):
     * the logs wrap around their terms many times. A receive posted at a term's end once stalled every later one.
     */
    @Test
    void messagesFlowBothWaysAcrossManyTermBoundaries() {
        NetTransport a = shm(0, 2, Map.of(AeronIpcOptions.TERM_BYTES, String.valueOf(1 << 20)));
        NetTransport b = shm(1, 2, Map.of(AeronIpcOptions.TERM_BYTES, String.valueOf(1 << 20)));
        Link ab = connect(a, b);
        Link ba = connect(b, a);
        int bytes = 512 << 10;
        for (int i = 0; i < 40; i++) {
            MemorySegment srcA = patterned(arena.allocate(bytes), 0, bytes, i);
            MemorySegment srcB = patterned(arena.allocate(bytes), 0, bytes, i + 1000);
            MemorySegment dstA = arena.allocate(bytes);
            MemorySegment dstB = arena.allocate(bytes);
            NetRequest recvAtB = ab.recv().irecv(dstB, 0, bytes, i, null);
            NetRequest recvAtA = ba.recv().irecv(dstA, 0, bytes, i, null);
            NetRequest sendA = ab.send().isend(srcA, 0, bytes, i, null);
            NetRequest sendB = ba.send().isend(srcB, 0, bytes, i, null);
            assertThat(awaitAll(sendA, sendB, recvAtA, recvAtB)).as("round %d", i)
                    .containsExactly(bytes, bytes, bytes, bytes);
            assertPattern(dstB, 0, bytes, i);
            assertPattern(dstA, 0, bytes, i + 1000);
        }
    }

    @Test
    void providerIsFoundByServiceLoaderAndConnectsOnlyOtherJvmsOfTheSameHost() {
        NetTransportProvider shm = ServiceLoader.load(NetTransportProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("aeron-ipc")).findFirst().orElseThrow();
        assertThat(shm.priority()).isEqualTo(4);
        PeerIdentity a = new PeerIdentity(0, "h1", "j1");
        assertThat(shm.canConnect(a, new PeerIdentity(1, "h1", "j2"))).isTrue();
        assertThat(shm.canConnect(new PeerIdentity(1, "h1", "j2"), a)).isTrue();
        assertThat(shm.canConnect(a, new PeerIdentity(1, "h1", "j1"))).as("same JVM").isFalse();
        assertThat(shm.canConnect(a, new PeerIdentity(1, "h2", "j2"))).as("other host").isFalse();
    }

    @Test
    void propertiesDescribeACallerDrivenTransport() {
        NetProperties p = properties();
        assertThat(p.name()).isEqualTo("aeron-ipc");
        assertThat(p.signalsCompletion()).isFalse();
        assertThat(p.maxInflightRequests()).isEqualTo(64);
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "-1", "0", "1048575", "3145728", "2147483648", "", "16 MiB", "65536"})
    void invalidTermLengthIsRejectedNamingKeyAndValue(String value) {
        assertThatThrownBy(() -> shm(0, 1, Map.of(AeronIpcOptions.TERM_BYTES, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(AeronIpcOptions.TERM_BYTES).hasMessageContaining("'" + value + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "/"})
    void invalidDirectoryIsRejectedNamingKeyAndValue(String value) {
        assertThatThrownBy(() -> shm(0, 1, Map.of(AeronIpcOptions.DIR, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(AeronIpcOptions.DIR).hasMessageContaining("'" + value + "'");
    }

    @Test
    void invalidDriverIdleIsRejectedNamingKeyAndValue() {
        assertThatThrownBy(() -> shm(0, 1, Map.of(AeronIpcOptions.DRIVER_IDLE, "sleepy")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(AeronIpcOptions.DRIVER_IDLE).hasMessageContaining("'sleepy'");
    }

    @Test
    void handleOfAnotherDriverDirectoryIsRefusedNamingTheOption() {
        NetTransport[] t = transports(2);
        AeronIpcHandle valid = AeronIpcHandle.decode(listener(t[1]).handle());
        byte[] other = new AeronIpcHandle("/elsewhere/aeron", valid.streamId(), valid.pid(), valid.token()).encode();
        assertThatThrownBy(() -> t[0].connect(other, io.jccl.net.ProgressSignal.NONE))
                .isInstanceOf(NetException.class).hasMessageContaining(AeronIpcOptions.DIR);
    }

    @Test
    void messagesLargerThanTheTermLengthStreamThroughTheWindow() {
        Link link = link();
        long bytes = 20L << 20;   // five times the 4 MiB term length of this test class
        MemorySegment src = patterned(arena.allocate(bytes), 0, bytes, 8);
        MemorySegment dst = arena.allocate(bytes);
        NetRequest send = link.send().isend(src, 0, bytes, 1, null);
        NetRequest recv = link.recv().irecv(dst, 0, bytes, 1, null);
        assertThat(awaitAll(send, recv)).containsExactly(bytes, bytes);
        assertThat(src.mismatch(dst)).isEqualTo(-1L);
    }

    @Test
    void receiverClosingMakesSendsFailWithPeerClosed() {
        Link link = link();
        link.recv().close();
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
        assertThat(failure[0].reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
    }

    @Test
    void handlesAreValidated() {
        NetTransport[] t = transports(2);
        byte[] valid = listener(t[1]).handle();
        AeronIpcHandle decoded = AeronIpcHandle.decode(valid);
        assertThat(decoded.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(decoded.directory()).isEqualTo(dir.toString());
        byte[] badVersion = valid.clone();
        badVersion[4] = 9;
        assertThatThrownBy(() -> AeronIpcHandle.decode(badVersion)).isInstanceOf(NetException.class)
                .hasMessageContaining("version");
        byte[] longer = java.util.Arrays.copyOf(valid, valid.length + 1);
        assertThatThrownBy(() -> AeronIpcHandle.decode(longer)).isInstanceOf(NetException.class)
                .hasMessageContaining("bytes");
        byte[] zeroPid = valid.clone();
        java.util.Arrays.fill(zeroPid, 16, 24, (byte) 0);
        assertThatThrownBy(() -> AeronIpcHandle.decode(zeroPid)).isInstanceOf(NetException.class)
                .hasMessageContaining("process id");
    }

    /** Small, large native and heap float[] messages: nothing is allocated per message once warm. */
    @Test
    void steadyStateMessagesAllocateNothing() {
        Link link = link();
        MemorySegment small = arena.allocate(256);
        MemorySegment bigSrc = arena.allocate(512 << 10);
        MemorySegment bigDst = arena.allocate(512 << 10);
        MemorySegment heapSrc = MemorySegment.ofArray(new float[10_000]);
        MemorySegment heapDst = MemorySegment.ofArray(new float[10_000]);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        exchange(link, small, bigSrc, bigDst, heapSrc, heapDst, 1500);
        long before = threads.getCurrentThreadAllocatedBytes();
        int rounds = 1000;
        exchange(link, small, bigSrc, bigDst, heapSrc, heapDst, rounds);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated over %d rounds of three messages", rounds).isLessThan(rounds * 8L);
    }

    private static void exchange(Link link, MemorySegment small, MemorySegment bigSrc, MemorySegment bigDst,
                                 MemorySegment heapSrc, MemorySegment heapDst, int rounds) {
        SendConnection send = link.send();
        RecvConnection recv = link.recv();
        NetRequest[] all = new NetRequest[6];
        boolean[] done = new boolean[all.length];
        for (int round = 0; round < rounds; round++) {
            all[0] = recv.irecv(small, 0, small.byteSize(), round, null);
            all[1] = recv.irecv(bigDst, 0, bigDst.byteSize(), round, null);
            all[2] = recv.irecv(heapDst, 0, heapDst.byteSize(), round, null);
            all[3] = send.isend(small, 0, 100, round, null);
            all[4] = send.isend(bigSrc, 0, bigSrc.byteSize(), round, null);
            all[5] = send.isend(heapSrc, 0, heapSrc.byteSize(), round, null);
            java.util.Arrays.fill(done, false);
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
}
