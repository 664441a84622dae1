package io.jccl.net.aeronipc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;
import io.jccl.net.NetTransportProvider;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the transport conformance suite against the aeron-ipc transport, both ends in this JVM (the suite builds
 * transports directly, so the provider's same-host, other-JVM rule does not apply), on a media driver of its own
 * in a temporary directory; and adds what only aeron-ipc has: options, the provider's rule, the data path's allocation.
 */
@Tag("integration")
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
        return track(new AeronIpcTransportProvider().create(loopbackContext(rank, size, CONNECT_TIMEOUT, options)));
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
        NetTransportProvider ipc = loadProvider("aeron-ipc");
        assertThat(ipc.priority()).isEqualTo(4);
        assertConnectsOnlyOtherJvmsOfTheSameHost(ipc);
    }

    @Test
    void propertiesDescribeACallerDrivenTransport() {
        assertCallerDriven("aeron-ipc");
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "-1", "0", "1048575", "3145728", "2147483648", "", "16 MiB", "65536"})
    void invalidTermLengthIsRejectedNamingKeyAndValue(String value) {
        assertOptionRejected(() -> shm(0, 1, Map.of(AeronIpcOptions.TERM_BYTES, value)), AeronIpcOptions.TERM_BYTES, value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "/"})
    void invalidDirectoryIsRejectedNamingKeyAndValue(String value) {
        assertOptionRejected(() -> shm(0, 1, Map.of(AeronIpcOptions.DIR, value)), AeronIpcOptions.DIR, value);
    }

    @Test
    void invalidDriverIdleIsRejectedNamingKeyAndValue() {
        assertOptionRejected(() -> shm(0, 1, Map.of(AeronIpcOptions.DRIVER_IDLE, "sleepy")),
                AeronIpcOptions.DRIVER_IDLE, "sleepy");
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
        assertMessageGoesThrough(link(), 20 << 20, 1);   // five times the 4 MiB term length of this test class
    }

    @Test
    void receiverClosingMakesSendsFailWithPeerClosed() {
        assertSendsFailWithPeerClosedOnceTheReceiverCloses();
    }

    @Test
    void handlesAreValidated() {
        byte[] valid = aListenersHandle();
        assertThat(AeronIpcHandle.decode(valid)).extracting(AeronIpcHandle::pid, AeronIpcHandle::directory)
                .containsExactly(ProcessHandle.current().pid(), dir.toString());
        assertHandleVersionAndLengthChecked(valid, AeronIpcHandle::decode);
        assertSpoiledHandleRefused(valid, h -> java.util.Arrays.fill(h, 16, 24, (byte) 0), AeronIpcHandle::decode,
                "process id");
    }

    /** Small, large native and heap float[] messages: nothing is allocated per message once warm. */
    @Test
    void steadyStateMessagesAllocateNothing() {
        assertSteadyStateAllocatesNothing(link());
    }
}
