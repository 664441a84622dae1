package io.jccl.cli.bench.loss;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LossReportTest {
    @Test
    void lossRatesReadAsShortPercentages() {
        assertThat(LossReport.percent(0)).isEqualTo("0");
        assertThat(LossReport.percent(0.001)).isEqualTo("0.1%");
        assertThat(LossReport.percent(0.01)).isEqualTo("1%");
        assertThat(LossReport.percent(0.125)).isEqualTo("12.5%");
        assertThat(LossReport.percent(0.1)).isEqualTo("10%");
        assertThat(LossReport.percent(1e-7)).isEqualTo("1.00e-05%");
    }

    @Test
    void theMedianRunStandsForRepeatsUnlessOneFailed() {
        LossTransfer.Outcome slow = ok(1e8);
        LossTransfer.Outcome mid = ok(2e8);
        LossTransfer.Outcome fast = ok(3e8);
        assertThat(LossTransfer.representative(List.of(fast, slow, mid))).isSameAs(mid);
        assertThat(LossTransfer.representative(List.of(fast, slow))).isSameAs(slow);
        assertThat(LossTransfer.representative(List.of(fast))).isSameAs(fast);
        LossTransfer.Outcome timeout = new LossTransfer.Outcome(LossTransfer.Status.TIMEOUT, 1e6, 120, 1 << 20,
                LinkCounters.UNKNOWN, 125, "timeout");
        assertThat(LossTransfer.representative(List.of(fast, timeout, mid))).isSameAs(timeout);
    }

    private static LossTransfer.Outcome ok(double goodput) {
        return new LossTransfer.Outcome(LossTransfer.Status.OK, goodput, 1, 1, LinkCounters.UNKNOWN, 2, null);
    }

    @Test
    void linkCountersSubtractAndUnknownStaysUnknown() {
        assertThat(new LinkCounters(10, 3, 1).since(new LinkCounters(4, 1, 0))).isEqualTo(new LinkCounters(6, 2, 1));
        assertThat(new LinkCounters(10, 3, 1).since(LinkCounters.UNKNOWN)).isEqualTo(LinkCounters.UNKNOWN);
    }
}
