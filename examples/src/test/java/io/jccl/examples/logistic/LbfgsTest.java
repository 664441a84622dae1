package io.jccl.examples.logistic;

import io.jccl.Communicator;
import io.jccl.examples.support.SumAllReduce;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class LbfgsTest {
    @Test
    void findsTheMinimumOfRosenbrocksValley() {
        // f = (1 - a)^2 + 100 (b - a^2)^2: a curved valley that defeats gradient descent; minimum 0 at (1, 1).
        Lbfgs.Result r = Lbfgs.minimize((x, g) -> {
            double a = x[0];
            double b = x[1];
            g[0] = -2 * (1 - a) - 400 * a * (b - a * a);
            g[1] = 200 * (b - a * a);
            return (1 - a) * (1 - a) + 100 * (b - a * a) * (b - a * a);
        }, new double[] {-1.2, 1}, 500, 0, 5);
        assertThat(r.x()[0]).isCloseTo(1, within(1e-4));
        assertThat(r.x()[1]).isCloseTo(1, within(1e-4));
        assertThat(r.value()).isLessThan(1e-8);
    }

    @Test
    void stopsAtTheIterationLimitOrOnceTheImprovementIsBelowTheTolerance() {
        Lbfgs.Objective bowl = (x, g) -> {
            double v = 0;
            for (int i = 0; i < x.length; i++) {
                g[i] = 2 * (i + 1) * (x[i] - i);
                v += (i + 1) * (x[i] - i) * (x[i] - i);
            }
            return v;
        };
        Lbfgs.Result limited = Lbfgs.minimize(bowl, new double[5], 2, 0, 10);
        assertThat(limited.iterations()).isEqualTo(2);
        assertThat(limited.converged()).isFalse();
        Lbfgs.Result done = Lbfgs.minimize(bowl, new double[5], 1000, 1e-9, 10);
        assertThat(done.converged()).isTrue();
        assertThat(done.iterations()).isLessThan(100);
        // Tolerance 0 still stops, once no step lowers the value, and without spending the whole limit on it.
        Lbfgs.Result exact = Lbfgs.minimize(bowl, new double[5], 1000, 0, 10);
        assertThat(exact.converged()).isTrue();
        assertThat(exact.iterations()).isLessThan(200);
        assertThat(exact.evaluations()).isLessThan(400);
        assertThat(exact.value()).isLessThan(1e-20);
        assertThatThrownBy(() -> Lbfgs.minimize(bowl, new double[5], -1, 0, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Lbfgs.minimize(bowl, new double[5], 1, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ranksInLockstepReachTheSingleProcessModel() throws Exception {
        SyntheticDataset data = new SyntheticDataset(11, 8);
        int n = 6001;
        double l2 = 1e-3;
        Lbfgs.Result single = Lbfgs.minimize(new LogisticObjective(data.shard(0, n, 1), SumAllReduce.over(null), l2,
                () -> { }), new double[9], 30, 0, 10);
        List<Communicator> comms = Communicator.local(3);
        try {
            List<CompletableFuture<Lbfgs.Result>> ranks = new ArrayList<>();
            for (Communicator c : comms) {
                ranks.add(CompletableFuture.supplyAsync(() -> Lbfgs.minimize(new LogisticObjective(
                        data.shard(c.rank(), n, 3), SumAllReduce.over(c), l2, () -> { }), new double[9], 30, 0, 10),
                        Executors.newVirtualThreadPerTaskExecutor()));
            }
            Lbfgs.Result rank0 = ranks.getFirst().get(60, TimeUnit.SECONDS);
            for (CompletableFuture<Lbfgs.Result> r : ranks) {
                Lbfgs.Result result = r.get(60, TimeUnit.SECONDS);
                assertThat(result.x()).isEqualTo(rank0.x());
                assertThat(result.evaluations()).isEqualTo(rank0.evaluations());
            }
            // The sums are added in another order than in one process, so the line search may see values that
            // differ in the last bits; at a minimum of a strictly convex function the models still agree closely.
            assertThat(rank0.value()).isCloseTo(single.value(), within(1e-9));
            for (int j = 0; j < 9; j++) {
                assertThat(rank0.x()[j]).as("model[%d]", j).isCloseTo(single.x()[j], within(1e-4));
            }
        } finally {
            comms.forEach(Communicator::close);
        }
    }
}
