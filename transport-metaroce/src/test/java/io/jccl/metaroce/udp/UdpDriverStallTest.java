package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stalls over real loopback sockets, with the metaroce transport's timing (5 ms RTO floor, 200 ms cap): a peer that
 * is not driven for hundreds of milliseconds fails no path, and a driver whose clock jumps (its process was
 * descheduled; what arrived meanwhile waits in its sockets, read a batch per round) restarts its timers rather than
 * firing them. The drivers are stepped by the test's thread; durations are lower bounds only.
 */
@Tag("integration")
class UdpDriverStallTest {
    private static final long MS = 1_000_000;
    private static final EndpointConfig CONFIG = EndpointConfig.defaults(Loopback.KEY).withRto(5 * MS, 200 * MS);

    /** The system clock plus an offset the test moves forward: a jump is a stall the driver only notices. */
    private static final class JumpingClock implements NanoClock {
        long offsetNs;

        @Override
        public long nanoTime() {
            return System.nanoTime() + offsetNs;
        }
    }

    private record Transfer(UdpDriver a, UdpDriver b, Endpoint ea, MemorySegment src, MemorySegment region,
                            List<CompletionStatus> done) {
        boolean finished() {
            ea.pollCompletions((c, id, kind, status, bytes) -> done.add(status));
            return !done.isEmpty();
        }

        long placedAtB() {
            return b.endpoint().counters().get(Counter.PAYLOAD_BYTES_PLACED);
        }
    }

    private static Transfer start(UdpDriver a, UdpDriver b, Arena arena, int size) {
        long peerB = Loopback.introduce(a, b);
        MemorySegment src = Loopback.randomBytes(arena, size, size);
        MemorySegment region = arena.allocate(size);
        int key = b.endpoint().registerRegion(region, true);
        Endpoint ea = a.endpoint();
        int conn = ea.connect(System.nanoTime(), peerB);
        assertThat(Loopback.run(a, b, () -> ea.isEstablished(conn))).isTrue();
        ea.postWrite(conn, key, 0, src, 0, size);
        return new Transfer(a, b, ea, src, region, new ArrayList<>());
    }

    /** Steps only {@code driver} for at least {@code ns} of real time: the other one is stalled meanwhile. */
    private static void stepAlone(UdpDriver driver, long ns) {
        long until = System.nanoTime() + ns;
        while (System.nanoTime() - until < 0) {
            if (driver.doWork() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    private static void finish(Transfer t) {
        assertThat(Loopback.run(t.a(), t.b(), t::finished)).as("%s", t.ea().counters()).isTrue();
        assertThat(t.done()).containsExactly(CompletionStatus.OK);
        assertThat(t.region().mismatch(t.src())).isEqualTo(-1);
    }

    @Test
    void aPeerStalledForHundredsOfMillisecondsFailsNoPath() {
        try (UdpDriver a = new UdpDriver(CONFIG, Loopback.config(IoMethod.AUTO), new SplittableRandom(1),
                System::nanoTime);
             UdpDriver b = new UdpDriver(CONFIG, Loopback.config(IoMethod.AUTO), new SplittableRandom(2),
                     System::nanoTime);
             Arena arena = Arena.ofConfined()) {
            Transfer t = start(a, b, arena, 64 << 20);
            assertThat(Loopback.run(a, b, () -> t.finished() || t.placedAtB() >= 4 << 20)).isTrue();
            stepAlone(a, 300 * MS);   // b is not driven: every path of a times out, again and again, together
            finish(t);
            String counters = a.endpoint().counters().toString();
            assertThat(a.endpoint().counters().get(Counter.RTO_FIRINGS)).as(counters).isPositive();
            assertThat(a.endpoint().counters().get(Counter.PATH_FAILURES_WITHHELD)).as(counters).isPositive();
            assertThat(a.endpoint().counters().get(Counter.PATHS_FAILED)).as(counters).isZero();
            assertThat(a.socketsRebound()).as(counters).isZero();
            assertThat(a.endpoint().counters().get(Counter.CONNECTIONS_CLOSED)).as(counters).isZero();
        }
    }

    @Test
    void aDriverWhoseClockJumpsRestartsItsTimersAndFailsNoPath() {
        JumpingClock clock = new JumpingClock();
        UdpDriverConfig oneAtATime = new UdpDriverConfig(InetAddress.getLoopbackAddress(), 4 << 20, 1);
        try (UdpDriver a = new UdpDriver(CONFIG, oneAtATime, new SplittableRandom(3), clock);
             UdpDriver b = new UdpDriver(CONFIG, Loopback.config(IoMethod.AUTO), new SplittableRandom(4),
                     System::nanoTime);
             Arena arena = Arena.ofConfined()) {
            Transfer t = start(a, b, arena, 64 << 20);
            assertThat(Loopback.run(a, b, () -> t.finished() || t.placedAtB() >= 4 << 20)).isTrue();
            stepAlone(b, 50 * MS);    // b answers what a had in flight; the answers wait in a's sockets
            clock.offsetNs += 300 * MS;   // a resumes 300 ms later by its clock, with every timer long expired
            finish(t);
            String counters = a.endpoint().counters().toString();
            assertThat(a.endpoint().counters().get(Counter.STALLS_DETECTED)).as(counters).isPositive();
            assertThat(a.endpoint().counters().get(Counter.RTO_DEFERRED_BY_STALL)).as(counters).isPositive();
            assertThat(a.endpoint().counters().get(Counter.PATHS_FAILED)).as(counters).isZero();
            assertThat(a.endpoint().counters().get(Counter.CONNECTIONS_CLOSED)).as(counters).isZero();
        }
    }
}
