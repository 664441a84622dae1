package io.jccl.cli.bench.loss;

import org.junit.jupiter.api.Test;

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
    void linkCountersSubtractAndUnknownStaysUnknown() {
        assertThat(new LinkCounters(10, 3, 1).since(new LinkCounters(4, 1, 0))).isEqualTo(new LinkCounters(6, 2, 1));
        assertThat(new LinkCounters(10, 3, 1).since(LinkCounters.UNKNOWN)).isEqualTo(LinkCounters.UNKNOWN);
    }
}
