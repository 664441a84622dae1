package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two endpoints on real loopback UDP sockets, stepped by one thread (the invoker mode), with
 * {@link IoMethod#CHANNEL} I/O; {@link NativeUdpDriverTest} runs the same tests with native I/O.
 */
@Tag("integration")
class UdpDriverTest {
    /** @return the I/O method the drivers of these tests use */
    IoMethod io() {
        return IoMethod.CHANNEL;
    }

    UdpDriver driver(long seed) {
        UdpDriver d = Loopback.driver(seed, io());
        assertThat(d.ioMethod()).isEqualTo(io());
        return d;
    }

    record Done(long work, CompletionStatus status, long bytes) {
    }

    @Test
    void writesAndSendsArriveExactlyOverLoopback() {
        try (UdpDriver a = driver(1); UdpDriver b = driver(2); Arena arena = Arena.ofConfined()) {
            long peerB = Loopback.introduce(a, b);
            Endpoint ea = a.endpoint();
            Endpoint eb = b.endpoint();
            int size = 16 << 20;
            MemorySegment src = Loopback.randomBytes(arena, size, 3);
            MemorySegment region = arena.allocate(size + 128);
            int key = eb.registerRegion(region, true);
            int conn = Loopback.connect(a, b, peerB);
            int back = eb.connectionTo(1);
            MemorySegment[] recv = new MemorySegment[3];
            for (int m = 0; m < 3; m++) {
                recv[m] = arena.allocate(1 << 20);
                eb.postRecv(back, 5, recv[m], 0, 1 << 20);
            }
            List<Done> doneA = new ArrayList<>();
            List<Done> doneB = new ArrayList<>();
            long write = ea.postWrite(conn, key, 64, src, 0, size);
            for (int m = 0; m < 3; m++) {
                ea.postSend(conn, 5, src, m * 4096L, (1 << 20) - m);
            }
            boolean finished = Loopback.run(a, b, () -> {
                ea.pollCompletions((c, id, kind, status, bytes) -> doneA.add(new Done(id, status, bytes)));
                eb.pollCompletions((c, id, kind, status, bytes) -> doneB.add(new Done(id, status, bytes)));
                return doneA.size() == 4 && doneB.size() == 3;
            });
            assertThat(finished).as("a=%s b=%s%n%s%n%s", doneA, doneB, ea.counters(), eb.counters()).isTrue();
            assertThat(doneA).allMatch(d -> d.status() == CompletionStatus.OK).anyMatch(d -> d.work() == write);
            assertThat(doneB).extracting(Done::bytes).containsExactly((long) (1 << 20), (1L << 20) - 1, (1L << 20) - 2);
            assertThat(region.asSlice(64, size).mismatch(src)).isEqualTo(-1);
            for (int m = 0; m < 3; m++) {
                long len = (1L << 20) - m;
                assertThat(recv[m].asSlice(0, len).mismatch(src.asSlice(m * 4096L, len))).isEqualTo(-1);
            }
            assertThat(a.datagramsSent()).isGreaterThan(size / 4096);
            assertThat(a.ioErrors() + b.ioErrors()).isZero();
        }
    }

    @Test
    void anUnknownPeerThatSendsAHandshakeBecomesAPeerAndIsAnsweredOnEachPath() {
        try (UdpDriver a = driver(4); UdpDriver b = driver(5); Arena arena = Arena.ofConfined()) {
            long peerB = a.addPeer(b.localAddresses());   // b is not told about a: it learns a's path addresses
            int conn = a.endpoint().connect(System.nanoTime(), peerB);
            assertThat(Loopback.run(a, b, () -> a.endpoint().isEstablished(conn))).isTrue();
            int back = b.endpoint().connectionTo(1);
            assertThat(back).isNotNegative();
            // Traffic both ways on all 8 paths: b answers each path where a's path sent from.
            MemorySegment src = arena.allocate(1 << 20);
            src.fill((byte) 0x5A);
            MemorySegment toB = arena.allocate(1 << 20);
            MemorySegment toA = arena.allocate(1 << 20);
            int keyB = b.endpoint().registerRegion(toB, true);
            int keyA = a.endpoint().registerRegion(toA, true);
            a.endpoint().postWrite(conn, keyB, 0, src, 0, src.byteSize());
            b.endpoint().postWrite(back, keyA, 0, src, 0, src.byteSize());
            int[] done = new int[2];
            assertThat(Loopback.run(a, b, () -> {
                a.endpoint().pollCompletions((c, id, kind, status, bytes) -> done[0]++);
                b.endpoint().pollCompletions((c, id, kind, status, bytes) -> done[1]++);
                return done[0] == 1 && done[1] == 1;
            })).isTrue();
            assertThat(toB.mismatch(src)).isEqualTo(-1);
            assertThat(toA.mismatch(src)).isEqualTo(-1);
        }
    }

    @Test
    void badArgumentsAreRefusedWithTheirName() {
        try (UdpDriver a = driver(6)) {
            assertThatThrownBy(() -> a.addPeer(List.of(new InetSocketAddress("127.0.0.1", 1))))
                    .hasMessageContaining("1 path addresses for 8 paths");
            List<InetSocketAddress> unresolved = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                unresolved.add(InetSocketAddress.createUnresolved("nowhere.invalid", 9));
            }
            assertThatThrownBy(() -> a.addPeer(unresolved)).hasMessageContaining("not a resolved socket address");
            assertThat(a.localAddresses()).hasSize(8).doesNotHaveDuplicates();
        }
        assertThatThrownBy(() -> new UdpDriverConfig(InetAddress.getLoopbackAddress(), 1000, 64))
                .hasMessageContaining("socketBufferBytes=1000");
        assertThatThrownBy(() -> new UdpDriverConfig(InetAddress.getLoopbackAddress(), 1 << 20, 0))
                .hasMessageContaining("receiveBatch=0");
        assertThatThrownBy(() -> Loopback.config(io()).withSendBatch(0)).hasMessageContaining("sendBatch=0");
        assertThatThrownBy(() -> Loopback.config(null)).hasMessageContaining("io");
    }

    /**
     * On a host where a round's flush takes tens of microseconds (the kernel copying a large batch), the pacer's
     * next payloads come due during it; the round sends them before its next read instead of leaving them a whole
     * round behind. The clock advances 25 µs per reading, a flush's worth: a paced write of 20 payloads leaves in one
     * round (the 16-payload burst, then the 4 the flush let accrue). Without the second pass 16 leave.
     */
    @Test
    void whatThePacerLetComeDueDuringALongFlushLeavesInTheSameRound() {
        SteppingClock clock = new SteppingClock();
        UdpDriverConfig config = Loopback.config(io());
        try (UdpDriver a = new UdpDriver(EndpointConfig.defaults(Loopback.KEY), config, new SplittableRandom(7), clock);
             UdpDriver b = new UdpDriver(EndpointConfig.defaults(Loopback.KEY), config, new SplittableRandom(8), clock);
             Arena arena = Arena.ofConfined()) {
            long peerB = Loopback.introduce(a, b);
            Endpoint ea = a.endpoint();
            Endpoint eb = b.endpoint();
            int payload = EndpointConfig.defaults(Loopback.KEY).payloadBytes();
            int conn = ea.connect(clock.nanoTime(), peerB);
            assertThat(Loopback.run(a, b, () -> ea.isEstablished(conn))).isTrue();
            MemorySegment src = arena.allocate(1 << 20);
            src.fill((byte) 0x3C);
            MemorySegment region = arena.allocate(1 << 20);
            int key = eb.registerRegion(region, true);
            // A first WRITE, acknowledged: the receiver's ACKs grant the sender its rate (the pacer is on).
            Loopback.writeAndAwait(a, b, conn, key, src);
            clock.stepNs = 1_000_000;   // idle for a while: the bucket holds its burst, no more
            a.doWork();
            b.doWork();
            clock.stepNs = 25_000;
            long before = a.datagramsSent();
            ea.postWrite(conn, key, 0, src, 0, 20L * payload);
            a.doWork();
            assertThat(a.datagramsSent() - before).as("datagrams of the 20-payload WRITE sent in one round")
                    .isEqualTo(20);
            clock.stepNs = 0;
            int[] done = new int[1];
            assertThat(Loopback.run(a, b, () -> {
                ea.pollCompletions((c, id, kind, status, bytes) -> done[0]++);
                return done[0] == 1;
            })).isTrue();
            assertThat(region.asSlice(0, 20L * payload).mismatch(src.asSlice(0, 20L * payload))).isEqualTo(-1);
        }
    }

    /** A clock that advances {@link #stepNs} each time it is read (0: real time). */
    static final class SteppingClock implements org.agrona.concurrent.NanoClock {
        long stepNs;
        private long nowNs = System.nanoTime();

        @Override
        public long nanoTime() {
            nowNs = stepNs == 0 ? Math.max(nowNs, System.nanoTime()) : nowNs + stepNs;
            return nowNs;
        }
    }
}
