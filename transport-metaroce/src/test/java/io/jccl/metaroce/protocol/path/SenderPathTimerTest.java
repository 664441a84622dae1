package io.jccl.metaroce.protocol.path;

import io.jccl.metaroce.protocol.EndpointConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A path's retransmission timer: RFC 6298's estimator, floor, backoff and cap, and where its samples come from. */
class SenderPathTimerTest {
    private static final EndpointConfig CONFIG = EndpointConfig.defaults(new byte[32]).withRto(50_000, 50_000_000);
    private static final SenderPath.AckVisitor IGNORE = new SenderPath.AckVisitor() {
        @Override
        public void acknowledged(int messageRef, int chunkIndex, int messageEpoch) {
        }

        @Override
        public void lost(int messageRef, int chunkIndex, int messageEpoch) {
        }
    };

    @Test
    void theTimeoutFollowsSmoothedRttAndVarianceAboveTheFloor() {
        SenderPath p = new SenderPath(0, 4);
        assertThat(p.rtoNs(CONFIG)).as("4 floors before a sample").isEqualTo(200_000);
        p.onRttSample(100_000, CONFIG.rtoMaxNs());
        // First sample: SRTT = R, RTTVAR = R/2, so SRTT + 4 RTTVAR = 3R.
        assertThat(p.srttNs()).isEqualTo(100_000);
        assertThat(p.rtoNs(CONFIG)).isEqualTo(300_000);
        p.onRttSample(200_000, CONFIG.rtoMaxNs());
        // RTTVAR = 3/4 * 50 us + 1/4 * |100 - 200| us = 62.5 us; SRTT = 7/8 * 100 + 1/8 * 200 = 112.5 us.
        assertThat(p.srttNs()).isEqualTo(112_500);
        assertThat(p.rtoNs(CONFIG)).isEqualTo(112_500 + 4 * 62_500);
        for (int i = 0; i < 200; i++) {
            p.onRttSample(10_000, CONFIG.rtoMaxNs());   // steady 10 us round trips: the floor takes over
        }
        assertThat(p.srttNs()).isBetween(10_000L, 10_100L);
        assertThat(p.rtoNs(CONFIG)).isEqualTo(CONFIG.rtoFloorNs());
    }

    @Test
    void timeoutsBackOffByHalfUpToTheCapAndNeverFailThePathByThemselves() {
        SenderPath p = new SenderPath(0, 4);
        p.onRttSample(100_000, CONFIG.rtoMaxNs());
        long base = p.rtoNs(CONFIG);
        p.send(0, 0, 0, 0, 100);
        assertThat(p.onRto(1_000_000, IGNORE)).isEqualTo(1);
        assertThat(p.rtoNs(CONFIG)).isEqualTo((long) (base * 1.5));
        assertThat(p.baseRtoNs(CONFIG)).isEqualTo(base);
        for (int i = 2; i <= 40; i++) {
            p.send(i, 0, i, 0, 100);
            assertThat(p.onRto(2_000_000L * i, IGNORE)).isEqualTo(i);
        }
        assertThat(p.state()).isEqualTo(PathState.SUSPECT);
        assertThat(p.rtoNs(CONFIG)).isEqualTo(CONFIG.rtoMaxNs());
        // An acknowledgement ends the run: no backoff, active again. PSNs 0-40 went out before; this is PSN 41.
        p.send(100_000_000, 0, 99, 0, 100);
        assertThat(p.onAck(100_100_000, 100_000_000, 42, 0, 0, 0, 0, IGNORE)).isEqualTo(1);
        assertThat(p.state()).isEqualTo(PathState.ACTIVE);
        assertThat(p.consecutiveRtos()).isZero();
        assertThat(p.rtoNs(CONFIG)).isEqualTo(base);
    }

    @Test
    void aSampleComesOnlyFromTheEchoedPacketWhenThisAckNewlyAcknowledgesIt() {
        SenderPath p = new SenderPath(0, 4);
        p.send(1_000, 0, 0, 0, 100);   // PSN 0
        p.send(2_000, 0, 1, 0, 100);   // PSN 1
        p.send(3_000, 0, 2, 0, 100);   // PSN 2
        // Acknowledges PSN 0 (cumulative 1) but echoes PSN 1's time: PSN 1 is not acknowledged by it.
        assertThat(p.onAck(10_000, 2_000, 1, 0, 0, 0, 0, IGNORE)).isEqualTo(1);
        assertThat(p.echoAcknowledged()).isFalse();
        // Acknowledges PSNs 1 and 2, echoing PSN 2's time: a sample of 7 us.
        assertThat(p.onAck(10_000, 3_000, 3, 0, 0, 0, 0, IGNORE)).isEqualTo(2);
        assertThat(p.echoAcknowledged()).isTrue();
        // A late duplicate of an ACK acknowledges nothing new: no sample, whatever it echoes.
        assertThat(p.onAck(20_000, 3_000, 3, 0, 0, 0, 0, IGNORE)).isZero();
        assertThat(p.echoAcknowledged()).isFalse();
    }

    @Test
    void aSampleLongerThanTheLongestTimeoutCountsAsThatTimeout() {
        SenderPath p = new SenderPath(0, 4);
        p.onRttSample(100_000, CONFIG.rtoMaxNs());
        p.onRttSample(10_000_000_000L, CONFIG.rtoMaxNs());   // a 10 s "round trip": a stall, not the network
        assertThat(p.srttNs()).isEqualTo((7 * 100_000 + CONFIG.rtoMaxNs()) / 8);
        for (int i = 0; i < 40; i++) {
            p.onRttSample(100_000, CONFIG.rtoMaxNs());
        }
        assertThat(p.rtoNs(CONFIG)).as("forgotten within a few dozen samples").isLessThan(1_000_000);
    }

    @Test
    void aStallRestartsTheTimerFromItsEnd() {
        SenderPath p = new SenderPath(0, 4);
        p.onRttSample(100_000, CONFIG.rtoMaxNs());
        p.send(0, 0, 0, 0, 100);
        assertThat(p.rtoDeadlineNs(CONFIG)).isEqualTo(300_000);
        p.restartTimersAfterStall(50_000_000);
        assertThat(p.rtoDeadlineNs(CONFIG)).isEqualTo(50_300_000);
        assertThat(p.state()).isEqualTo(PathState.ACTIVE);
    }
}
