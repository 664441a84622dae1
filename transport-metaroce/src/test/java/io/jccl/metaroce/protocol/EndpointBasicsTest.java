package io.jccl.metaroce.protocol;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class EndpointBasicsTest {
    private static final byte[] KEY = new byte[32];

    record Done(int conn, long work, WorkKind kind, CompletionStatus status, long bytes) {
    }

    @ParameterizedTest(name = "loss={0} dup={1} corrupt={2} seed={3}")
    @CsvSource({"0,0,0,1", "0.01,0,0,2", "0.05,0.01,0.01,3", "0.1,0,0,4", "0.3,0.05,0.02,5"})
    void writesAndSendsArriveExactly(double loss, double dup, double corrupt, long seed) {
        Endpoint a = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed));
        Endpoint b = new Endpoint(EndpointConfig.defaults(KEY), new SplittableRandom(seed + 100));
        MiniFabric f = new MiniFabric(seed, a, b);
        f.loss = loss;
        f.duplicate = dup;
        f.corrupt = corrupt;
        f.jitterNs = 2_000;
        try (Arena arena = Arena.ofConfined()) {
            int size = 1 << 20;
            MemorySegment src = arena.allocate(size);
            SplittableRandom r = new SplittableRandom(seed);
            for (int i = 0; i < size; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
            }
            MemorySegment region = arena.allocate(size + 64);
            int key = b.registerRegion(region, true);
            int ca = a.connect(0, 1);
            List<Done> doneA = new ArrayList<>();
            List<Done> doneB = new ArrayList<>();
            long w = a.postWrite(ca, key, 32, src, 0, size);
            MemorySegment[] recv = new MemorySegment[3];
            boolean established = f.run(() -> b.connectionTo(0) >= 0, 1_000_000_000L);
            assertThat(established).as("acceptor side exists: a=%s b=%s dropped=%d", a.counters(), b.counters(), f.dropped).isTrue();
            int cb = b.connectionTo(0);
            for (int m = 0; m < 3; m++) {
                recv[m] = arena.allocate(100_000);
                b.postRecv(cb, 7, recv[m], 0, 100_000);
            }
            for (int m = 0; m < 3; m++) {
                a.postSend(ca, 7, src, m * 1000, 90_000 + m);
            }
            boolean ok = f.run(() -> {
                a.pollCompletions((c, id, k, s, n) -> doneA.add(new Done(c, id, k, s, n)));
                b.pollCompletions((c, id, k, s, n) -> doneB.add(new Done(c, id, k, s, n)));
                return doneA.size() == 4 && doneB.size() == 3;
            }, 30_000_000_000L);
            assertThat(ok).as("all work completed; a=%s b=%s%n%s%n%s", doneA, doneB, a.counters(), b.counters()).isTrue();
            assertThat(doneA).allMatch(d -> d.status == CompletionStatus.OK);
            assertThat(doneB).allMatch(d -> d.status == CompletionStatus.OK);
            assertThat(doneA.stream().anyMatch(d -> d.work == w)).isTrue();
            assertThat(region.asSlice(32, size).mismatch(src)).as("a=%s%nb=%s", a.counters(), b.counters()).isEqualTo(-1);
            for (int m = 0; m < 3; m++) {
                assertThat(recv[m].asSlice(0, 90_000 + m).mismatch(src.asSlice(m * 1000, 90_000 + m))).isEqualTo(-1);
            }
            assertThat(doneB.stream().map(Done::bytes).toList()).containsExactly(90_000L, 90_001L, 90_002L);
        }
    }
}
