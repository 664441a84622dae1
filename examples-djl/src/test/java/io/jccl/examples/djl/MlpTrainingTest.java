package io.jccl.examples.djl;

import io.jccl.Communicator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The training loop on one rank in this JVM: its report, and the meters it registers for --metrics-port. */
@EnabledIf("io.jccl.examples.djl.DjlTestSupport#pytorchNativesPresent")
class MlpTrainingTest {
    private static final MlpTraining.Settings SMALL = new MlpTraining.Settings(2, 512, 8, 3, 16, 1, 64, 0.1f, 7,
            JcclGradientSync.Strategy.FLAT);

    @Test
    void oneRankTrainsReportsAndRecordsMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<Communicator> comms = Communicator.local(1);
        MlpTraining.Report report;
        try {
            report = MlpTraining.train(comms.get(0), SMALL, MlpTraining.QUIET, registry);
        } finally {
            comms.forEach(Communicator::close);
        }
        int steps = 2 * (512 / 64);
        assertThat(report.stepLosses()).hasSize(steps);
        assertThat(report.stepNanos()).hasSize(steps);
        assertThat(java.util.Arrays.stream(report.stepNanos()).min().orElseThrow()).isPositive();
        assertThat(report.epochLosses()).hasSize(2);
        assertThat(report.parameterCount()).isEqualTo(8 * 16 + 16 + 16 * 3 + 3);
        assertThat(report.gradientBytes()).isEqualTo(report.parameterCount() * Float.BYTES);
        // One rank: the broadcast changes nothing, and training does.
        assertThat(report.checksumAfterBroadcast()).isEqualTo(report.checksumBeforeBroadcast());
        assertThat(report.checksumFinal()).isNotEqualTo(report.checksumBeforeBroadcast());

        assertThat(registry.get("jccl.djl.step").timer().count()).isEqualTo(steps);
        assertThat(registry.get("jccl.djl.gradient.sync").tag("strategy", "flat").timer().count()).isEqualTo(steps);
        assertThat(registry.get("jccl.djl.loss").gauge().value()).isEqualTo(report.finalLoss());
        assertThat(registry.get("jccl.djl.gradient.bytes").gauge().value()).isZero();
    }

    @Test
    void settingsAreChecked() {
        assertThatThrownBy(() -> new MlpTraining.Settings(1, 100, 8, 3, 16, 1, 128, 0.1f, 7,
                JcclGradientSync.Strategy.FLAT)).hasMessageContaining("less than one global batch");
        assertThatThrownBy(() -> new MlpTraining.Settings(1, 512, 8, 3, 16, 1, 64, Float.NaN, 7,
                JcclGradientSync.Strategy.FLAT)).hasMessageContaining("learningRate");
        assertThatThrownBy(() -> SMALL.shardBatch(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("global batch 64 does not split evenly over 3 ranks");
        assertThat(SMALL.shardBatch(4)).isEqualTo(16);
    }
}
