package io.jccl.metaroce.sim;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** DCQCN's reaction point against values worked out by hand from the paper's rules. */
class DcqcnRateTest {
    private static final long LINE = 100_000_000_000L;
    private static final DcqcnConfig PAPER = DcqcnConfig.paper(LINE);

    @Test
    void theSettingsAreThePapersScaledToTheLineRate() {
        assertThat(PAPER).isEqualTo(new DcqcnConfig(50_000, 1.0 / 256, 55_000, 55_000, 10_000_000, 5,
                100_000_000, 1_000_000_000, 100_000_000));
    }

    @Test
    void cutsByHalfAlphaRecoversHalfwayToTheTargetThenAdditively() {
        DcqcnRate r = new DcqcnRate(PAPER, LINE);
        assertThat(r.limited()).isFalse();
        assertThat(r.nextTimerNs()).isEqualTo(Long.MAX_VALUE);
        r.onSent(20_000_000);   // unlimited: no byte counting
        r.onCnp(0);
        // alpha starts at 1: the rate halves; alpha = (1 - g) 1 + g = 1.
        assertThat(r.rateBitsPerSecond()).isEqualTo(50e9);
        assertThat(r.alpha()).isEqualTo(1.0);
        assertThat(r.nextTimerNs()).isEqualTo(55_000);
        r.onCnp(10_000);
        assertThat(r.rateBitsPerSecond()).isEqualTo(25e9);   // target 50e9
        r.onTimer(55_000);      // alpha period with a CNP in it: no decay
        assertThat(r.alpha()).isEqualTo(1.0);
        assertThat(r.rateBitsPerSecond()).isEqualTo(25e9);
        r.onTimer(65_000);      // the increase timer (reset by the CNP at 10 us): fast recovery
        assertThat(r.rateBitsPerSecond()).isEqualTo(37.5e9);
        r.onTimer(110_000);     // a period without CNP: alpha decays
        assertThat(r.alpha()).isEqualTo(255.0 / 256);
        r.onSent(10_000_000);   // the byte counter: fast recovery too
        assertThat(r.rateBitsPerSecond()).isEqualTo(43.75e9);
        // Four more timer events make five: still fast recovery (the target stays 50e9).
        r.onTimer(120_000 + 3 * 55_000);
        assertThat(r.rateBitsPerSecond()).isCloseTo(50e9 - 6.25e9 / 16, within(1.0));
        // The sixth timer event (byte events still 1): additive increase, the target grows by 0.1 Gbit/s.
        r.onTimer(120_000 + 4 * 55_000);
        assertThat(r.rateBitsPerSecond()).isCloseTo((50e9 - 6.25e9 / 16 + 50.1e9) / 2, within(1.0));
        assertThat(r.cuts()).isEqualTo(2);
    }

    @Test
    void hyperIncreaseBringsItBackToTheLineRateAndUnlimited() {
        DcqcnRate r = new DcqcnRate(PAPER, LINE);
        r.onCnp(0);
        long t = 0;
        int events = 0;
        while (r.limited()) {
            t = r.nextTimerNs();
            r.onTimer(t);
            r.onSent(10_000_000);
            assertThat(++events).isLessThan(10_000);
        }
        assertThat(r.rateBitsPerSecond()).isEqualTo(1e11);
        assertThat(r.nextTimerNs()).isEqualTo(Long.MAX_VALUE);
        assertThat(t).isPositive();
    }

    @Test
    void aCutNeverGoesBelowTheMinimumRate() {
        DcqcnRate r = new DcqcnRate(PAPER, LINE);
        for (int i = 0; i < 100; i++) {
            r.onCnp(i);
        }
        assertThat(r.rateBitsPerSecond()).isEqualTo(1e8);
    }

    @Test
    void badSettingsAreRefusedByName() {
        assertThatThrownBy(() -> new DcqcnConfig(50_000, 0, 55_000, 55_000, 1, 5, 1, 1, 1))
                .hasMessageContaining("gain=0.0");
        assertThatThrownBy(() -> new DcqcnConfig(-1, 0.5, 55_000, 55_000, 1, 5, 1, 1, 1))
                .hasMessageContaining("CNP interval");
        assertThatThrownBy(() -> new DcqcnConfig(0, 0.5, 55_000, 55_000, 1, 0, 1, 1, 1))
                .hasMessageContaining("fast-recovery");
        assertThatThrownBy(() -> DcqcnConfig.paper(10)).hasMessageContaining("lineRateBitsPerSecond=10");
        assertThatThrownBy(() -> GoBackNConfig.defaults().withLineRate(0, 0).withDcqcn(PAPER))
                .hasMessageContaining("DCQCN paces");
    }
}
