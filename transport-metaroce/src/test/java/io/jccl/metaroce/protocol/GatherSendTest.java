package io.jccl.metaroce.protocol;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DATA packets a driver sends in pieces (header and trailer from its batch, the payload from the caller's memory):
 * seeded, virtual time, under loss, duplication and reordering. The receiver sees nothing but ordinary packets.
 */
class GatherSendTest {
    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

    record Done(long work, WorkKind kind, CompletionStatus status, long bytes) {
    }

    /**
     * @return endpoints with the default settings (randomness seeded {@code seedA} and {@code seedB}) as nodes 0 and
     *         1 of a fabric seeded {@code fabricSeed} that offers claims and gathers sends
     */
    private static MiniFabric gatheringFabric(long seedA, long seedB, long fabricSeed) {
        MiniFabric f = new MiniFabric(fabricSeed,
                new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seedA)),
                new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seedB)));
        f.gather = true;
        return f;
    }

    @Test
    void writesWithImmediatesAndSendsFromNativeMemoryGoInPiecesAndArriveIntact() {
        for (long seed = 1; seed <= 4; seed++) {
            MiniFabric f = gatheringFabric(seed, seed + 100, seed);
            Endpoint a = (Endpoint) f.nodes[0];
            Endpoint b = (Endpoint) f.nodes[1];
            f.loss = 0.05;
            f.duplicate = 0.05;
            f.jitterNs = 20_000;   // reordering
            int ca = a.connect(0, 1);
            assertThat(f.run(() -> a.isEstablished(ca), 1_000_000_000L)).isTrue();
            int cb = b.connectionTo(0);
            List<Done> doneA = new ArrayList<>();
            List<Done> doneB = new ArrayList<>();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment src = TestData.pattern(arena.allocate(300_000), (int) seed);
                MemorySegment region = arena.allocate(300_000);
                int key = b.registerRegion(region, true);
                MemorySegment received = arena.allocate(50_000);
                b.postRecv(cb, 3, received, 0, 50_000);
                // 61 payloads of 4,096 bytes and a last one of 2,000: the immediate rides on a gathered packet too.
                a.postWriteImmediate(ca, key, 0, src, 0, 251_856, 0x5eed0000 + (int) seed);
                a.postSend(ca, 3, src, 1_000, 40_000);
                assertThat(f.run(() -> {
                    a.pollCompletions((c, id, k, s, n) -> doneA.add(new Done(id, k, s, n)));
                    b.pollCompletions((c, id, k, s, n) -> doneB.add(new Done(id, k, s, n)));
                    return doneA.size() >= 2 && doneB.size() >= 2;
                }, 20_000_000_000L)).as("seed %d: %s %s", seed, a.counters(), b.counters()).isTrue();
                assertThat(doneA).extracting(Done::status).containsOnly(CompletionStatus.OK);
                assertThat(doneB).extracting(Done::status).containsOnly(CompletionStatus.OK);
                assertThat(doneB).filteredOn(d -> d.kind() == WorkKind.IMMEDIATE).extracting(Done::work)
                        .containsExactly(0x5eed0000L + seed);
                assertThat(region.asSlice(0, 251_856).mismatch(src.asSlice(0, 251_856))).isEqualTo(-1);
                assertThat(received.asSlice(0, 40_000).mismatch(src.asSlice(1_000, 40_000))).isEqualTo(-1);
                assertThat(f.gathered).as("seed %d: packets sent in pieces", seed).isPositive();
                assertThat(b.counters().drops(DropReason.BAD_CRC)).as("seed %d: no packet of pieces fails its CRC", seed).isZero();
            }
        }
    }

    @Test
    void aPayloadOnTheHeapIsCopiedIntoTheBatch() {
        MiniFabric f = gatheringFabric(7, 8, 9);
        Endpoint a = (Endpoint) f.nodes[0];
        Endpoint b = (Endpoint) f.nodes[1];
        int ca = a.connect(0, 1);
        assertThat(f.run(() -> a.isEstablished(ca), 1_000_000_000L)).isTrue();
        try (Arena arena = Arena.ofConfined()) {
            byte[] heap = new byte[20_000];
            for (int i = 0; i < heap.length; i++) {
                heap[i] = (byte) (i * 5);
            }
            MemorySegment region = arena.allocate(20_000);
            int key = b.registerRegion(region, true);
            a.postWrite(ca, key, 0, MemorySegment.ofArray(heap), 0, heap.length);
            long[] done = new long[1];
            assertThat(f.run(() -> {
                a.pollCompletions((c, id, k, s, n) -> done[0]++);
                return done[0] == 1;
            }, 10_000_000_000L)).isTrue();
            assertThat(region.mismatch(MemorySegment.ofArray(heap))).isEqualTo(-1);
            assertThat(f.gathered).as("a heap payload has no address to gather from").isZero();
        }
    }
}
