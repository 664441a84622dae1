package io.jccl.cli.bench.loss.tun;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The drop decisions: reproducible from the seed, independent per direction, at the configured rate. */
class PacketLossTest {
    private static boolean[] draws(PacketLoss loss, int count) {
        boolean[] drops = new boolean[count];
        for (int i = 0; i < count; i++) {
            drops[i] = loss.drop();
        }
        return drops;
    }

    @Test
    void theSameSeedDropsTheSamePacketsInEachDirection() {
        PacketLoss[] first = PacketLoss.forBothDirections(0.2, 99);
        PacketLoss[] second = PacketLoss.forBothDirections(0.2, 99);
        assertThat(draws(first[0], 10_000)).isEqualTo(draws(second[0], 10_000));
        assertThat(draws(first[1], 10_000)).isEqualTo(draws(second[1], 10_000));
    }

    @Test
    void directionsAndSeedsDrawDifferently() {
        PacketLoss[] a = PacketLoss.forBothDirections(0.2, 99);
        assertThat(draws(a[0], 1000)).isNotEqualTo(draws(a[1], 1000));
        assertThat(draws(PacketLoss.forBothDirections(0.2, 99)[0], 1000))
                .isNotEqualTo(draws(PacketLoss.forBothDirections(0.2, 100)[0], 1000));
    }

    @Test
    void theShareDroppedIsTheRate() {
        int count = 1_000_000;
        for (double rate : new double[]{0.001, 0.01, 0.05, 0.3}) {
            PacketLoss loss = PacketLoss.forBothDirections(rate, 5)[0];
            int dropped = 0;
            for (int i = 0; i < count; i++) {
                dropped += loss.drop() ? 1 : 0;
            }
            double sd = Math.sqrt(count * rate * (1 - rate));
            assertThat((double) dropped).as("rate " + rate).isBetween(count * rate - 6 * sd, count * rate + 6 * sd);
        }
        assertThat(draws(PacketLoss.forBothDirections(0, 5)[0], 100_000)).doesNotContain(true);
        assertThat(draws(PacketLoss.forBothDirections(1, 5)[0], 100_000)).doesNotContain(false);
    }
}
