package io.jccl.cli.sim;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The dip and recovery read from a throughput timeline, against timelines written by hand. */
class FailureDipTest {
    @Test
    void aDipThatRecoversToTheRemainingPlanesShare() {
        // 10 us buckets, 4 planes: 400 before, failure at 100 us, two buckets at 100, then 300 (= 3/4 of 400).
        double[] gbps = {400, 400, 400, 400, 400, 400, 400, 400, 400, 400, 250, 100, 100, 300, 300};
        FailureDip dip = FailureDip.of(gbps, 10_000_000, 100_000_000, 0.75);
        assertThat(dip.beforeGbps()).isEqualTo(400);
        assertThat(dip.dipGbps()).isEqualTo(100);
        assertThat(dip.recoveredAfterUs()).isEqualTo(30);   // bucket 13 starts 30 us after the failure
    }

    @Test
    void throughputThatNeverComesBackIsNotARecovery() {
        double[] gbps = {400, 400, 400, 0, 0, 0};
        FailureDip dip = FailureDip.of(gbps, 10_000_000, 30_000_000, 0.75);
        assertThat(dip.dipGbps()).isZero();
        assertThat(dip.recoveredAfterUs()).isEqualTo(-1);
    }
}
