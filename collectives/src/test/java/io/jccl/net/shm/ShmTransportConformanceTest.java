package io.jccl.net.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.ProgressSignal;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the transport conformance suite against the shm transport, every rank's transport in this JVM with a segment
 * of its own (the suite builds transports directly, so the provider's same-host, other-JVM rule does not apply), and
 * adds what only shm has: options, handles, the provider's rule, the large-message paths, registered memory and the
 * data path's allocation. This class runs with the default options ({@code JCCL_SHM_LARGE=auto}: large messages by
 * cross-memory attach where the kernel allows it and the calibration finds it fast enough, else the pipelined copy);
 * {@link ShmCrossMemoryConformanceTest} runs it all again with cross-memory attach, {@link ShmRingConformanceTest}
 * with the pipelined copy through the ring.
 *
 * <p>A large send completes when its receiver has copied it, which the receiver does inside its own
 * {@code test()}. The suite drives both ends from one thread and sometimes polls only the sends, so {@link #idle()}
 * steps the posted receives of the calling thread, as the receiving rank's executor would.
 */
class ShmTransportConformanceTest extends NetTransportConformanceTest {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);
    private final List<ShmTransport> created = new CopyOnWriteArrayList<>();

    /** @return options every transport of this class gets (besides a test's own) */
    Map<String, String> baseOptions() {
        return Map.of(ShmOptions.REGISTERED_BYTES, String.valueOf(64 << 20));
    }

    @Override
    protected NetTransport createTransport(int rank, int size) {
        return shm(rank, size, Map.of());
    }

    ShmTransport shm(int rank, int size, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>(baseOptions());
        options.putAll(extra);
        ShmTransport t = (ShmTransport) new ShmTransportProvider().create(loopbackContext(rank, size, CONNECT_TIMEOUT,
                options));
        created.add(t);
        return track(t);
    }

    @Override
    protected void idle() {
        for (ShmTransport t : created) {
            t.stepReceivesOfThisThread();
        }
        Thread.yield();
    }

    @Test
    void providerIsFoundByServiceLoaderAndConnectsOnlyOtherJvmsOfTheSameHost() {
        NetTransportProvider shm = loadProvider("shm");
        assertThat(shm).isInstanceOf(ShmTransportProvider.class);
        assertThat(shm.priority()).isEqualTo(50);
        assertConnectsOnlyOtherJvmsOfTheSameHost(shm);
    }

    @Test
    void propertiesDescribeACallerDrivenTransport() {
        assertCallerDriven("shm");
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "-1", "0", "65535", "98304", "536870912", "", "1 MiB"})
    void invalidRingSizeIsRejectedNamingKeyAndValue(String value) {
        assertOptionRejected(() -> shm(0, 1, Map.of(ShmOptions.RING_BYTES, value)), ShmOptions.RING_BYTES, value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "x", "1048577", "99999999999"})
    void invalidEagerLimitIsRejectedNamingKeyAndValue(String value) {
        assertOptionRejected(() -> shm(0, 1, Map.of(ShmOptions.EAGER_BYTES, value)), ShmOptions.EAGER_BYTES, value);
    }

    @Test
    void invalidLargeModeAndRegisteredSizeAreRejectedNamingKeyAndValue() {
        assertOptionRejected(() -> shm(0, 1, Map.of(ShmOptions.LARGE, "xpmem")), ShmOptions.LARGE, "xpmem");
        assertOptionRejected(() -> shm(0, 1, Map.of(ShmOptions.REGISTERED_BYTES, "-4096")),
                ShmOptions.REGISTERED_BYTES, "-4096");
    }

    @Test
    void handlesAreValidated() {
        byte[] valid = aListenersHandle();
        assertThat(ShmHandle.decode(valid)).extracting(ShmHandle::pid, ShmHandle::rank)
                .containsExactly(ProcessHandle.current().pid(), 1);
        assertSpoiledHandleRefused(valid, h -> h[4] = 9, ShmHandle::decode, "version");
        assertSpoiledHandleRefused(valid, h -> h[5] = 0, ShmHandle::decode, "listener id");
        assertSpoiledHandleRefused(valid, h -> java.util.Arrays.fill(h, 8, 16, (byte) 0), ShmHandle::decode,
                "process id");
    }

    @Test
    void handleWithAnotherTokenOrSizeIsRefusedAsAProtocolError() {
        NetTransport[] t = transports(2);
        ShmHandle valid = ShmHandle.decode(listener(t[1]).handle());
        byte[] token = valid.token().bytes();
        token[0] ^= 1;
        byte[] wrongToken = new ShmHandle(valid.listenerId(), valid.pid(), valid.fd(), valid.segmentBytes(), token,
                valid.rank()).encode();
        assertThatThrownBy(() -> t[0].connect(wrongToken, ProgressSignal.NONE)).isInstanceOf(NetException.class)
                .hasMessageContaining("token")
                .satisfies(e -> assertThat(((NetException) e).reason()).isEqualTo(NetException.Reason.PROTOCOL_ERROR));
        byte[] wrongSize = new ShmHandle(valid.listenerId(), valid.pid(), valid.fd(), valid.segmentBytes() + 4096,
                valid.token(), valid.rank()).encode();
        assertThatThrownBy(() -> t[0].connect(wrongSize, ProgressSignal.NONE)).isInstanceOf(NetException.class)
                .hasMessageContaining("bytes")
                .satisfies(e -> assertThat(((NetException) e).reason()).isEqualTo(NetException.Reason.PROTOCOL_ERROR));
    }

    @Test
    void connectingToAClosedListenerFailsWithPeerClosed() {
        NetTransport[] t = transports(2);
        var listener = t[1].listen(ProgressSignal.NONE);
        byte[] handle = listener.handle();
        listener.close();
        var pending = t[0].connect(handle, ProgressSignal.NONE);
        NetException[] failure = new NetException[1];
        pollUntil(() -> {
            try {
                assertThat(pending.poll()).isNull();
            } catch (NetException e) {
                failure[0] = e;
            }
            return failure[0] != null;
        }, "a connection to a closed listener to fail");
        assertThat(failure[0].reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
    }

    @Test
    void messagesLargerThanTheRingStreamThroughIt() {
        ShmTransport a = shm(0, 2, Map.of(ShmOptions.RING_BYTES, String.valueOf(64 << 10),
                ShmOptions.LARGE, "ring"));
        ShmTransport b = shm(1, 2, Map.of(ShmOptions.RING_BYTES, String.valueOf(64 << 10),
                ShmOptions.LARGE, "ring"));
        Link link = connect(a, b);
        for (BufferKind kind : List.of(BufferKind.NATIVE, BufferKind.FLOAT_ARRAY)) {
            long bytes = (3L << 20) + 5;   // 48 rings and a bit, chunks wrapping around the ring's end
            MemorySegment src = patterned(kind.allocate(arena, bytes), 0, bytes, 8);
            MemorySegment dst = kind.allocate(arena, bytes);
            NetRequest send = link.send().isend(src, 0, bytes, 1, null);
            NetRequest recv = link.recv().irecv(dst, 0, bytes, 1, null);
            assertThat(awaitAll(send, recv)).containsExactly(bytes, bytes);
            assertPattern(dst, 0, bytes, 8);
        }
    }

    /** Which path each size and kind of memory takes, under this class's options. */
    @Test
    void largeMessagesTakeTheConfiguredPath() {
        Link link = link();
        ShmSendConnection send = (ShmSendConnection) link.send();
        ShmRecvConnection recv = (ShmRecvConnection) link.recv();
        assertThat(send.mode()).isEqualTo(recv.mode()).isEqualTo(expectedMode());
    }

    /** @return the large-message mode connections of this class use */
    int expectedMode() {
        return CrossMemory.check().usable() ? Layout.MODE_CMA : Layout.MODE_RING;
    }

    /**
     * A send asked to be read where it lies goes as a cross-memory descriptor where the connection may use them; a
     * plain send of the same message goes through the ring unless {@code JCCL_SHM_LARGE=cma}; heap memory always goes
     * through the ring; every byte arrives either way. The connection offers single copy up to the configured size.
     */
    @Test
    void singleCopySendsAreReadWhereTheyLieWhereTheConnectionMay() {
        Link link = link();
        ShmSendConnection sender = (ShmSendConnection) link.send();
        ShmOptions options = ShmOptions.parse(baseOptions());
        boolean cma = sender.mode() == Layout.MODE_CMA;
        assertThat(sender.singleCopyMaxOpBytes()).isEqualTo(cma ? options.singleCopyMaxBytes() : 0);
        long bytes = (256 << 10) + 12;
        int tag = 1;
        for (BufferKind kind : List.of(BufferKind.NATIVE, BufferKind.FLOAT_ARRAY)) {
            for (boolean single : new boolean[] {false, true}) {
                MemorySegment src = patterned(kind.allocate(arena, bytes), 0, bytes, tag);
                MemorySegment dst = kind.allocate(arena, bytes);
                NetRequest send = single ? sender.isendSingleCopy(src, 0, bytes, tag, null)
                        : sender.isend(src, 0, bytes, tag, null);
                boolean read = cma && kind == BufferKind.NATIVE
                        && (single || options.large() == ShmOptions.Large.CMA);
                assertThat(((ShmRequest) send).kind).as("record kind of a %s send from %s memory",
                        single ? "single-copy" : "plain", kind).isEqualTo(read ? Records.CMA : Records.START);
                NetRequest recv = link.recv().irecv(dst, 0, bytes, tag, null);
                assertThat(awaitAll(send, recv)).containsExactly(bytes, bytes);
                assertPattern(dst, 0, bytes, tag);
                tag++;
            }
        }
    }

    @Test
    void registeredMemoryIsSentByReferenceAndFreedSafely() {
        NetTransport[] t = transports(2);
        Link link = connect(t[0], t[1]);
        long bytes = 3 << 20;
        MemorySegment src = t[0].allocateMemory(bytes);
        assertThat(src).isNotNull();
        assertThat(src.byteSize()).isEqualTo(bytes);
        assertThat(src.address() % 4096).isZero();
        assertAllBytes(src, 0, bytes, (byte) 0);
        patterned(src, 0, bytes, 42);
        MemorySegment dst = arena.allocate(bytes);
        NetRequest send = link.send().isend(src, 7, bytes - 7, 5, null);
        assertThat(((ShmRequest) send).kind).as("record kind of a send from registered memory")
                .isEqualTo(Records.REG);
        NetRequest recv = link.recv().irecv(dst, 0, bytes, 5, null);
        assertThat(awaitAll(send, recv)).containsExactly(bytes - 7, bytes - 7);
        assertThat(dst.asSlice(0, bytes - 7).mismatch(src.asSlice(7))).isEqualTo(-1L);

        assertThat(t[1].freeMemory(src)).as("another transport's memory").isFalse();
        assertThat(t[0].freeMemory(src)).isTrue();
        assertThat(t[0].freeMemory(src)).as("freed twice").isFalse();
        assertThatThrownBy(() -> src.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> t[0].allocateMemory(65L << 20)).isInstanceOf(NetException.class)
                .hasMessageContaining(ShmOptions.REGISTERED_BYTES);
        MemorySegment again = t[0].allocateMemory(64L << 20);
        assertThat(again.byteSize()).as("the whole heap once the block was freed").isEqualTo(64L << 20);
        t[0].close();
        assertThatThrownBy(() -> again.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0))
                .as("memory of a closed transport").isInstanceOf(IllegalStateException.class);
    }

    @Override
    protected boolean sleeping(NetTransport transport) {
        return waiters((ShmTransport) transport) == 1;
    }

    private static int waiters(ShmTransport t) {
        return t.ownSegment().memory.get(java.lang.foreign.ValueLayout.JAVA_INT, Layout.H_WAITERS);
    }

    /**
     * Small, large native, registered and heap float[] messages: nothing is allocated per message once warm. The
     * warm-up is long enough for the JIT to compile the system call stubs (before that, a downcall allocates).
     */
    @Test
    void steadyStateMessagesAllocateNothing() {
        NetTransport[] t = transports(2);
        Link link = connect(t[0], t[1]);
        MemorySegment small = arena.allocate(256);
        MemorySegment bigSrc = arena.allocate(64 << 10);
        MemorySegment bigDst = arena.allocate(64 << 10);
        MemorySegment regSrc = t[0].allocateMemory(64 << 10);
        MemorySegment heapSrc = MemorySegment.ofArray(new float[10_000]);
        MemorySegment heapDst = MemorySegment.ofArray(new float[10_000]);
        MemorySegment[] sends = {small, bigSrc, regSrc, heapSrc};
        MemorySegment[] recvs = {small, bigDst, bigDst, heapDst};
        assertSteadyStateAllocatesNothing(link, sends, new long[] {40, 64 << 10, 64 << 10, heapSrc.byteSize()}, recvs,
                12_000);
    }
}
