package io.jccl.metaroce.protocol;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The sender's pacer, driven in duty cycles as a software driver runs it (virtual time, seeded). */
class PacingTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
    private static final int PAYLOAD_BYTES = 4096;
    /** The pacer's burst: what an idle sender may start with. */
    private static final int BURST_PAYLOADS = 16;

    /**
     * A driver looks at its connections once per duty cycle, 20 µs here. A pacer that let out at most its burst per
     * look would hold the sender to 16 payloads per cycle (3.3 GB/s), a quarter of the 12.5 GB/s the receiver
     * grants; the sender is owed what accrued while it waited for the next look.
     */
    @Test
    void aSenderLookingOncePerDutyCycleKeepsTheRateItWasGranted() {
        long cycleNs = 20_000;
        long bytes = 8L << 20;
        EndpointConfig config = EndpointConfig.defaults(KEY).withPayloadBytes(PAYLOAD_BYTES);
        Endpoint a = new Endpoint(config, new SplittableRandom(1));
        Endpoint b = new Endpoint(config, new SplittableRandom(2));
        MiniFabric f = new MiniFabric(3, a, b);
        f.delayNs = 2_000;
        f.cycleNs = cycleNs;
        int ca = a.connect(0, 1);
        assertThat(f.run(() -> a.isEstablished(ca), 1_000_000_000L)).isTrue();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(bytes);
            MemorySegment dst = arena.allocate(bytes);
            src.fill((byte) 0x5a);
            int key = b.registerRegion(dst, true);
            // A first WRITE teaches the receiver's share-out this sender and the sender its round trip.
            long[] done = new long[1];
            a.postWrite(ca, key, 0, src, 0, bytes);
            assertThat(f.run(() -> drained(a, done) >= 1, 10_000_000_000L)).isTrue();
            long start = f.now;
            a.postWrite(ca, key, 0, src, 0, bytes);
            assertThat(f.run(() -> drained(a, done) >= 2, 10_000_000_000L)).isTrue();
            long elapsedNs = f.now - start;
            long burstBoundNs = bytes / ((long) BURST_PAYLOADS * PAYLOAD_BYTES) * cycleNs;
            assertThat(elapsedNs).as("virtual ns for %d bytes; at one burst per cycle it would take %d; %s", bytes,
                    burstBoundNs, a.counters()).isLessThan(burstBoundNs / 2);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
        }
    }

    private static long drained(Endpoint e, long[] done) {
        e.pollCompletions((c, id, k, s, n) -> {
            assertThat(s).isEqualTo(CompletionStatus.OK);
            done[0]++;
        });
        return done[0];
    }
}
