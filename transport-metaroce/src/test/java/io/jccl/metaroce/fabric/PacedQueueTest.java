package io.jccl.metaroce.fabric;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/** The rate-limit queue and the flap schedule, on their own, in chosen time. */
class PacedQueueTest {
    private static ByteBuffer datagram(int length, int fill) {
        ByteBuffer b = ByteBuffer.allocateDirect(65536);
        for (int i = 0; i < length; i++) {
            b.put(i, (byte) (fill + i));
        }
        return b;
    }

    @Test
    void marksAboveTheThresholdDropsAtTheTailAndKeepsOrderAcrossTheRingsEnd() {
        PacedQueue q = new PacedQueue(new RateLimit(1_000_000, 10_000, 3_000));   // 1 byte per microsecond
        int[] verdicts = new int[6];
        for (int i = 0; i < 6; i++) {
            verdicts[i] = q.offer(datagram(2000, i), 2000);
        }
        // 0, 2000 queued: clear; 4000, 6000, 8000 queued: marked; 10000 + 2000 > 10000: dropped
        assertThat(verdicts).containsExactly(PacedQueue.QUEUED, PacedQueue.QUEUED, PacedQueue.QUEUED_MARKED,
                PacedQueue.QUEUED_MARKED, PacedQueue.QUEUED_MARKED, PacedQueue.DROPPED);
        ByteBuffer out = ByteBuffer.allocateDirect(65536);
        long now = 1_000_000_000L;
        int sent = 0;
        int next = 0;
        for (int round = 0; round < 200 && !q.isEmpty(); round++) {
            while (q.ready(now)) {
                int tos = q.headTos();
                int length = q.poll(out, now);
                assertThat(length).isEqualTo(2000);
                assertThat(out.get(0)).isEqualTo((byte) next);
                assertThat(tos).isEqualTo(next < 2 ? PacedQueue.ECT0 : PacedQueue.CE);
                next++;
                sent++;
                // keeps the ring turning: what leaves makes room for one more at its far end
                if (next + 4 < 40) {
                    assertThat(q.offer(datagram(2000, next + 4), 2000)).isNotEqualTo(PacedQueue.DROPPED);
                }
            }
            now += 1_000_000;   // 1 ms: a 2000-byte datagram leaves every other round at 1 MB/s
        }
        assertThat(q.isEmpty()).isTrue();
        assertThat(sent).isEqualTo(40);
    }

    @Test
    void theRingsGrowToWhatTheLimitNeedsAndKeepOrder() {
        PacedQueue q = new PacedQueue(RateLimit.of(1_000_000_000, 1 << 20));
        int before = q.capacityBytes();
        for (int i = 0; i < 250; i++) {
            assertThat(q.offer(datagram(4000, i), 4000)).isEqualTo(PacedQueue.QUEUED);
        }
        assertThat(q.offer(datagram(65_000, 0), 65_000)).isEqualTo(PacedQueue.DROPPED);   // past the limit
        assertThat(q.capacityBytes()).isGreaterThan(before);
        ByteBuffer out = ByteBuffer.allocateDirect(65536);
        long now = 0;
        for (int i = 0; i < 250; i++) {
            while (!q.ready(now)) {
                now += 1_000;
            }
            assertThat(q.poll(out, now)).isEqualTo(4000);
            assertThat(out.get(0)).isEqualTo((byte) i);
            assertThat(out.get(3999)).isEqualTo((byte) (i + 3999));
        }
        assertThat(q.isEmpty()).isTrue();
    }

    @Test
    void theBucketPacesToTheRate() {
        PacedQueue q = new PacedQueue(RateLimit.of(1_000_000, 1 << 20));   // 1 byte per microsecond
        for (int i = 0; i < 100; i++) {
            assertThat(q.offer(datagram(1000, i), 1000)).isEqualTo(PacedQueue.QUEUED);
        }
        ByteBuffer out = ByteBuffer.allocateDirect(65536);
        long start = 5_000_000_000L;
        int sentBy50ms = 0;
        for (long now = start; now <= start + 50_000_000L; now += 10_000) {
            while (q.ready(now)) {
                q.poll(out, now);
                sentBy50ms++;
            }
        }
        // 50 ms at 1 MB/s is 50 datagrams of 1000 bytes, plus the first (sent at once)
        assertThat(sentBy50ms).isEqualTo(51);
    }

    @Test
    void aFlapIsDownThenUpForItsCyclesOnItsPathOnly() {
        Flaps f = new Flaps();
        f.add(2, 8, 1_000, 30, 10, 2);   // from t=1000: down 10, up 30, twice
        assertThat(f.isDown(2, 999)).isFalse();
        assertThat(f.isDown(2, 1_000)).isTrue();
        assertThat(f.isDown(2, 1_009)).isTrue();
        assertThat(f.isDown(2, 1_010)).isFalse();
        assertThat(f.isDown(2, 1_040)).isTrue();
        assertThat(f.isDown(3, 1_040)).isFalse();
        assertThat(f.isDown(2, 1_080)).isFalse();   // two cycles done
        f.add(1, 8, 0, 5, 5, 0);
        assertThat(f.isDown(1, 1_000_000_000L)).isTrue();
        f.stop();
        assertThat(f.isDown(1, 1_000_000_000L)).isFalse();
    }
}
