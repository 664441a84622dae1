package io.jccl.examples.logistic;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LogisticLossTest {
    private final SyntheticDataset data = new SyntheticDataset(3, 5);

    @Test
    void gradientMatchesCentralDifferencesOfTheLoss() {
        Shard shard = data.shard(0, 200, 1);
        double[] model = {0.3, -0.2, 0.5, 0.1, -0.4, 0.2};
        double[] gradient = new double[6];
        LogisticLoss.accumulateAll(shard, model, gradient);
        double h = 1e-6;
        for (int j = 0; j < model.length; j++) {
            double[] up = model.clone();
            double[] down = model.clone();
            up[j] += h;
            down[j] -= h;
            double numeric = (LogisticLoss.evaluate(shard, up)[0] - LogisticLoss.evaluate(shard, down)[0]) / (2 * h);
            // Central differences err by O(h^2) times the third derivative, plus rounding of ~1e-16 * loss / h.
            assertThat(gradient[j]).as("component %d", j).isCloseTo(numeric, within(1e-5));
        }
    }

    @Test
    void lossAndSigmoidStayFiniteAtExtremeLogits() {
        assertThat(LogisticLoss.loss(800, 1)).isEqualTo(0.0);
        assertThat(LogisticLoss.loss(800, 0)).isEqualTo(800.0);
        assertThat(LogisticLoss.loss(-800, 0)).isEqualTo(0.0);
        assertThat(LogisticLoss.loss(-800, 1)).isEqualTo(800.0);
        assertThat(LogisticLoss.loss(0, 1)).isCloseTo(Math.log(2), within(1e-15));
        assertThat(LogisticLoss.sigmoid(-800)).isEqualTo(0.0);
        assertThat(LogisticLoss.sigmoid(800)).isEqualTo(1.0);
    }

    @Test
    void aRoundRobinShardHoldsExactlyTheExamplesOfTheWholeDataset() {
        Shard whole = data.shard(0, 100, 1);
        for (int rank = 0; rank < 3; rank++) {
            Shard part = data.shard(rank, 100, 3);
            assertThat(part.rows()).isEqualTo(rank == 0 ? 34 : 33);
            for (int row = 0; row < part.rows(); row++) {
                int i = rank + 3 * row;
                assertThat(part.y()[row]).isEqualTo(whole.y()[i]);
                for (int j = 0; j < 5; j++) {
                    assertThat(part.x()[row * 5 + j]).isEqualTo(whole.x()[i * 5 + j]);
                }
            }
        }
    }

    @Test
    void theTrueModelIsFarBetterThanChance() {
        Shard shard = data.shard(0, 20_000, 1);
        double[] truth = new double[6];
        System.arraycopy(data.trueWeights(), 0, truth, 0, 5);
        truth[5] = data.trueIntercept();
        double accuracy = LogisticLoss.evaluate(shard, truth)[1] / shard.rows();
        // The logit's standard deviation is 4: about 0.86-0.89 of labels agree with the true logit's sign.
        assertThat(accuracy).isBetween(0.82, 0.92);
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new SyntheticDataset(1, 0)).hasMessageContaining("features must be at least 1");
        assertThatThrownBy(() -> data.example(-1, new double[5], 0)).hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> data.shard(0, 10, 0)).hasMessageContaining("stride 0");
        assertThatThrownBy(() -> LogisticLoss.evaluate(data.shard(0, 10, 1), new double[5]))
                .hasMessageContaining("model has 5 values; 5 features need 6");
        assertThatThrownBy(() -> new Shard(5, new double[9], new double[2])).hasMessageContaining("needs 10");
    }
}
