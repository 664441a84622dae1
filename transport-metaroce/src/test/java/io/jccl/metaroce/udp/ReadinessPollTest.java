package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Endpoint;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One {@code ppoll} over several drivers' sockets says which to read ({@link ReadinessPoll}); drivers stepped only
 * through it miss nothing.
 */
@Tag("integration")
class ReadinessPollTest {
    /** Only detects a hang: the kernel hands a loopback datagram over within microseconds. */
    private static final long LIMIT_NS = 60_000_000_000L;

    @BeforeAll
    static void nativeIoIsAvailable() {
        assumeTrue(NativeDatagramIo.unavailableReason() == null, () -> "native I/O: "
                + NativeDatagramIo.unavailableReason());
    }

    @Test
    void aClosedPollAnswersThatItDoesNotKnowSoEverySocketIsRead() throws Exception {
        try (UdpDriver a = Loopback.driver(1, IoMethod.NATIVE)) {
            ReadinessPoll poll = ReadinessPoll.open(List.of(a));
            assertThat(poll.poll()).isZero();
            assertThat(poll.ready(a, 0)).isFalse();
            poll.close();
            poll.close();   // idempotent
            assertThat(poll.poll()).isEqualTo(-1);
            assertThat(poll.ready(a, 0)).isTrue();
        }
    }

    @Test
    void onlyTheSocketADatagramWentToIsReadAcrossDrivers() throws Exception {
        try (UdpDriver a = Loopback.driver(1, IoMethod.NATIVE); UdpDriver b = Loopback.driver(2, IoMethod.NATIVE);
             NativeDatagramIo tx = new NativeDatagramIo(Loopback.config(IoMethod.NATIVE), new IoCounters())) {
            ReadinessPoll poll = ReadinessPoll.open(List.of(a, b));
            assertThat(poll).isNotNull();
            assertThat(poll.poll()).as("nothing sent yet").isZero();
            for (int p = 0; p < 8; p++) {
                assertThat(poll.ready(a, p) || poll.ready(b, p)).isFalse();
            }
            tx.send(new AddressKeys().keyOf(b.localAddresses().get(3)), new UnsafeBuffer(new byte[64]), 0, 64);
            tx.flush();
            long deadline = System.nanoTime() + LIMIT_NS;
            int n;
            while ((n = poll.poll()) == 0) {
                assertThat(System.nanoTime()).as("the datagram never became readable").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(n).isEqualTo(1);
            for (int p = 0; p < 8; p++) {
                assertThat(poll.ready(a, p)).as("a's socket %d", p).isFalse();
                assertThat(poll.ready(b, p)).as("b's socket %d", p).isEqualTo(p == 3);
            }
            a.doWork(poll);
            b.doWork(poll);
            assertThat(a.datagramsReceived()).isZero();
            assertThat(b.datagramsReceived()).as("read (and dropped by the endpoint: not MetaRoCE)").isEqualTo(1);
            assertThat(poll.poll()).as("read: nothing left").isZero();
        }
    }

    @Test
    void driversSteppedThroughOnePollMoveATransferExactly() {
        try (UdpDriver a = Loopback.driver(3, IoMethod.NATIVE); UdpDriver b = Loopback.driver(4, IoMethod.NATIVE);
             Arena arena = Arena.ofConfined()) {
            ReadinessPoll poll = ReadinessPoll.open(List.of(a, b));
            long peerB = Loopback.introduce(a, b);
            Endpoint ea = a.endpoint();
            Endpoint eb = b.endpoint();
            int size = 8 << 20;
            MemorySegment src = Loopback.randomBytes(arena, size, 5);
            MemorySegment region = arena.allocate(size);
            int key = eb.registerRegion(region, true);
            int conn = ea.connect(System.nanoTime(), peerB);
            int[] done = new int[2];
            long deadline = System.nanoTime() + LIMIT_NS;
            boolean posted = false;
            while (done[0] < 2 || done[1] < 1) {
                assertThat(System.nanoTime()).as("a=%s%nb=%s", ea.counters(), eb.counters()).isLessThan(deadline);
                if (!posted && ea.isEstablished(conn) && eb.connectionTo(1) >= 0) {
                    MemorySegment small = arena.allocate(100);
                    eb.postRecv(eb.connectionTo(1), 7, small, 0, 100);
                    ea.postWrite(conn, key, 0, src, 0, size);
                    ea.postSend(conn, 7, src, 0, 100);
                    posted = true;
                }
                poll.poll();
                int work = a.doWork(poll) + b.doWork(poll);
                ea.pollCompletions((c, id, kind, status, bytes) -> {
                    assertThat(status).isEqualTo(CompletionStatus.OK);
                    done[0]++;
                });
                eb.pollCompletions((c, id, kind, status, bytes) -> {
                    assertThat(bytes).isEqualTo(100);
                    done[1]++;
                });
                if (work == 0) {
                    Thread.onSpinWait();
                }
            }
            assertThat(region.mismatch(src)).isEqualTo(-1);
        }
    }

    @Test
    void channelDriversHaveNoPoll() {
        try (UdpDriver a = Loopback.driver(6, IoMethod.CHANNEL)) {
            assertThat(ReadinessPoll.open(List.of(a))).isNull();
        }
    }
}
