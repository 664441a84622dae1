package io.jccl.metaroce.protocol;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Path failure, re-route, probing and readmission, on the minimal fabric. */
class PathFailureTest {
    private static final byte[] KEY = new byte[32];

    private static boolean transfer(MiniFabric f, Endpoint a, Endpoint b, MemorySegment src, MemorySegment region,
                                    long limitNs) {
        int key = b.registerRegion(region, true);
        int ca = a.connect(f.now, 1);
        a.postWrite(ca, key, 0, src, 0, src.byteSize());
        AtomicInteger done = new AtomicInteger();
        return f.run(() -> {
            a.pollCompletions((c, id, k, s, n) -> {
                assertThat(s).isEqualTo(CompletionStatus.OK);
                done.incrementAndGet();
            });
            return done.get() == 1;
        }, limitNs);
    }

    private static MemorySegment data(Arena arena, int size, long seed) {
        MemorySegment s = arena.allocate(size);
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
        return s;
    }

    @Test
    void aBlackHoledPathFailsIsReroutedAndTheTransferCompletes() {
        Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(11));
        Endpoint b = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(12));
        MiniFabric f = new MiniFabric(13, a, b);
        f.delayNs = 50_000;   // a 100 us round trip, so the transfer outlasts two retransmission timeouts
        f.blackHolePath = 3;
        f.blackHoleFromNs = 100_000;
        f.blackHoleUntilNs = Long.MAX_VALUE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = data(arena, 32 << 20, 1);
            MemorySegment region = arena.allocate(src.byteSize());
            assertThat(transfer(f, a, b, src, region, 60_000_000_000L)).as("%s", a.counters()).isTrue();
            assertThat(region.mismatch(src)).isEqualTo(-1);
            assertThat(a.counters().get(Counter.PATHS_FAILED)).isGreaterThanOrEqualTo(1);
            assertThat(a.counters().get(Counter.PATHS_REROUTED)).isGreaterThanOrEqualTo(1);
            assertThat(a.counters().get(Counter.PATHS_READMITTED)).isGreaterThanOrEqualTo(1);
            assertThat(f.reroutes).isGreaterThanOrEqualTo(1);
            // Nothing is lost on the other paths, so no ACK reports a hole: the black-holed path's packets go again
            // by timeouts and retests (counted as such), never as SACK holes.
            assertThat(a.counters().get(Counter.SACK_HOLES)).as("%s", a.counters()).isZero();
        }
    }

    @Test
    void everyPathDownForSeveralTimeoutsThenRestoredTheTransferCompletesWithoutFailingAPath() {
        Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(21));
        Endpoint b = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(22));
        MiniFabric f = new MiniFabric(23, a, b);
        f.allPathsDown = true;
        f.allDownUntilNs = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = data(arena, 8 << 20, 2);
            MemorySegment region = arena.allocate(src.byteSize());
            // Down from 200 us for 5 maximum-size RTO floors' worth of time and then some.
            f.run(() -> f.now > 200_000, 1_000_000_000L);
            int key = b.registerRegion(region, true);
            int ca = a.connect(f.now, 1);
            f.run(() -> a.isEstablished(ca), 1_000_000_000L);
            a.postWrite(ca, key, 0, src, 0, src.byteSize());
            f.run(() -> f.now > 400_000, 1_000_000_000L);
            f.allDownUntilNs = f.now + 5 * 1_000_000L;   // 5 ms: many RTOs at a 200 us floor
            AtomicInteger done = new AtomicInteger();
            boolean ok = f.run(() -> {
                a.pollCompletions((c, id, k, s, n) -> done.incrementAndGet());
                return done.get() == 1;
            }, 60_000_000_000L);
            assertThat(ok).as("%s", a.counters()).isTrue();
            assertThat(region.mismatch(src)).isEqualTo(-1);
            assertThat(a.counters().get(Counter.RTO_FIRINGS)).isGreaterThanOrEqualTo(5);
            // Every path timed out together with no answer anywhere: no evidence against any one path.
            assertThat(a.counters().get(Counter.PATHS_FAILED)).as("%s", a.counters()).isZero();
            assertThat(a.counters().get(Counter.PATH_FAILURES_WITHHELD)).as("%s", a.counters()).isPositive();
            assertThat(a.counters().get(Counter.SACK_HOLES)).as("%s", a.counters()).isZero();
        }
    }
}
