package io.jccl.metaroce.protocol;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * WRITEs into a region a sink stands for (a receiver that combines each packet where the datagram holds it):
 * seeded, virtual time, under loss, duplication and reordering, every byte reaches the sink exactly once, before the
 * immediate reports the WRITE complete; late duplicates and WRITEs beyond the region never reach it.
 */
class SinkRegionTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

    /** Sums what it is given into a counter per byte, so a byte given twice shows. */
    private static final class CountingSink {
        final byte[] copy;
        final int[] times;
        final List<long[]> pieces = new ArrayList<>();

        CountingSink(int size) {
            copy = new byte[size];
            times = new int[size];
        }

        void accept(MemorySegment from, long fromOffset, long regionOffset, long bytes) {
            pieces.add(new long[] {regionOffset, bytes});
            for (long i = 0; i < bytes; i++) {
                copy[(int) (regionOffset + i)] = from.get(ValueLayout.JAVA_BYTE, fromOffset + i);
                times[(int) (regionOffset + i)]++;
            }
        }
    }

    @Test
    void everyByteReachesTheSinkOnceUnderLossDuplicationAndReordering() {
        for (long seed = 1; seed <= 6; seed++) {
            Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed));
            Endpoint b = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed + 100));
            MiniFabric f = new MiniFabric(seed, a, b);
            f.gather = seed % 2 == 0;
            f.loss = 0.05;
            f.duplicate = 0.1;
            f.jitterNs = 20_000;   // reordering
            int ca = a.connect(0, 1);
            assertThat(f.run(() -> a.isEstablished(ca), 1_000_000_000L)).isTrue();
            int size = 300_000;
            CountingSink sink = new CountingSink(size);
            int key = b.registerSinkRegion(size, sink::accept);
            List<Long> immediates = new ArrayList<>();
            int[] sinkBytesAtImmediate = new int[1];
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment src = TestData.pattern(arena.allocate(size), (int) seed);
                int length = 251_856;   // 61 payloads of 4,096 bytes and a last one of 2,000
                a.postWriteImmediate(ca, key, 1_000, src, 0, length, 0x51c0000 + (int) seed);
                long[] sent = new long[1];
                assertThat(f.run(() -> {
                    a.pollCompletions((c, id, k, s, n) -> sent[0]++);
                    b.pollCompletions((c, id, k, s, n) -> {
                        if (k == WorkKind.IMMEDIATE) {
                            immediates.add(id);
                            sinkBytesAtImmediate[0] = sink.pieces.stream().mapToInt(p -> (int) p[1]).sum();
                        }
                    });
                    return sent[0] == 1 && !immediates.isEmpty();
                }, 20_000_000_000L)).as("seed %d: %s %s", seed, a.counters(), b.counters()).isTrue();
                assertThat(immediates).containsExactly(0x51c0000L + seed);
                assertThat(sinkBytesAtImmediate[0]).as("seed %d: bytes the sink had when the WRITE completed", seed)
                        .isEqualTo(length);
                for (int i = 0; i < size; i++) {
                    int expected = i >= 1_000 && i < 1_000 + length ? 1 : 0;
                    if (sink.times[i] != expected) {
                        throw new AssertionError("seed " + seed + ": byte " + i + " reached the sink " + sink.times[i]
                                + " times");
                    }
                }
                assertThat(MemorySegment.ofArray(sink.copy).asSlice(1_000, length).mismatch(src.asSlice(0, length)))
                        .isEqualTo(-1);
                assertThat(b.counters().get(Counter.DUPLICATE_PACKETS_RECEIVED)).as("seed %d: duplicates came", seed)
                        .isPositive();
                // Late copies of the completed WRITE, and more WRITEs, reach nothing once the region is withdrawn.
                b.deregisterRegion(key);
                int pieces = sink.pieces.size();
                a.postWrite(ca, key, 0, src, 0, 10_000);
                long[] failed = new long[1];
                f.run(() -> {
                    a.pollCompletions((c, id, k, s, n) -> failed[0]++);
                    return failed[0] == 1;
                }, 2_000_000_000L);
                assertThat(sink.pieces).as("seed %d: pieces after the region was withdrawn", seed).hasSize(pieces);
            }
        }
    }

    @Test
    void aWriteBeyondTheSinksRegionIsDroppedUnplaced() {
        Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(3));
        Endpoint b = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(4));
        MiniFabric f = new MiniFabric(5, a, b);
        int ca = a.connect(0, 1);
        assertThat(f.run(() -> a.isEstablished(ca), 1_000_000_000L)).isTrue();
        CountingSink sink = new CountingSink(10_000);
        int key = b.registerSinkRegion(10_000, sink::accept);
        try (Arena arena = Arena.ofConfined()) {
            a.postWrite(ca, key, 8_000, arena.allocate(4_000), 0, 4_000);
            f.run(() -> b.counters().drops(DropReason.REGION_BOUNDS) > 0, 1_000_000_000L);
            assertThat(b.counters().drops(DropReason.REGION_BOUNDS)).isPositive();
            assertThat(sink.pieces).isEmpty();
        }
    }
}
