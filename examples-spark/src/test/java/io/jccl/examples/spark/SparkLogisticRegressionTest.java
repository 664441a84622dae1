package io.jccl.examples.spark;

import io.jccl.examples.logistic.Shard;
import io.jccl.examples.spark.SparkLogisticRegression.Options;
import io.jccl.examples.spark.SparkLogisticRegression.Rendezvous;
import io.jccl.examples.spark.SparkLogisticRegression.Report;
import io.jccl.examples.support.ExampleMetrics;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The Spark example on {@code local[4]} with small data: JCCL barrier-mode training reaches MLlib's objective and
 * accuracy on the same data, with either rendezvous, and its all-reduces show in the metrics.
 */
@Tag("integration")
class SparkLogisticRegressionTest {
    @Test
    void jcclBarrierTrainingMatchesMllibOnTheSameData() throws Exception {
        Options o = Options.parse("--rows", "20000", "--test-rows", "5000", "--features", "10", "--partitions", "4",
                "--iterations", "30", "--l2", "1e-3", "--tol", "1e-9", "--seed", "5");
        try (ExampleMetrics metrics = ExampleMetrics.start(0, 0)) {
            SparkSession spark = TestSpark.session();
            Dataset<Row> data = SparkLogisticRegression.trainingData(spark, o);
            Shard test = SparkLogisticRegression.testData(o);
            Report mllib = SparkLogisticRegression.score(SparkLogisticRegression.trainWithMllib(data, o), data, test,
                    o.l2());
            Report jccl = SparkLogisticRegression.score(SparkLogisticRegression.trainWithJccl(data, o), data, test,
                    o.l2());
            Options fromDriver = Options.parse("--rows", "20000", "--test-rows", "5000", "--features", "10",
                    "--iterations", "30", "--l2", "1e-3", "--tol", "1e-9", "--seed", "5", "--rendezvous", "driver");
            Report jcclDriver = SparkLogisticRegression.score(SparkLogisticRegression.trainWithJccl(data, fromDriver),
                    data, test, o.l2());
            data.unpersist();
            System.out.println(mllib.format() + "\n" + jccl.format() + "\n" + jcclDriver.format());

            // The label noise caps any model near 0.86 here; both must be close to that, far from chance.
            assertThat(mllib.testAccuracy()).isGreaterThan(0.8);
            for (Report r : new Report[] {jccl, jcclDriver}) {
                // Both run L-BFGS to (near) the minimum of the same strictly convex objective: the values agree to
                // the tolerance the optimisers reach (~1e-7 relative here; 1e-5 allowed), so the models are the
                // same up to ~1e-3 in each weight, which can only flip held-out examples whose logit is within ~1e-2
                // of 0 - a few of 5,000. Allowing 0.002 (10 examples) still catches any real difference, such as a
                // wrong gradient scale or a missing partition (those cost more than 1% accuracy).
                assertThat(r.objective()).isCloseTo(mllib.objective(), within(1e-5 * mllib.objective()));
                assertThat(r.testAccuracy()).isCloseTo(mllib.testAccuracy(), within(0.002));
                assertThat(r.trained().iterations()).isBetween(1, 30);
            }
            // Every barrier task's all-reduces went through JCCL in this JVM (local mode): the endpoint sees them.
            assertThat(metrics.scrape()).containsPattern("jccl_collective_seconds_count\\{algorithm=\"[a-z_]+\","
                    + "collective=\"allReduce\",transport=\"local\",type=\"float64\"} [1-9][0-9]*");
        }
    }

    @Test
    void optionErrorsNameTheOption() {
        assertThatThrownBy(() -> Options.parse("--rendezvous", "executor"))
                .hasMessage("--rendezvous must be task0 or driver, got 'executor'");
        assertThatThrownBy(() -> Options.parse("--rows", "10", "--partitions", "20"))
                .hasMessageContaining("--partitions must be in [1, rows]");
        assertThatThrownBy(() -> Options.parse("--iterations", "many")).hasMessage("--iterations: 'many' is not a "
                + "whole number");
        assertThatThrownBy(() -> Options.parse("--rows")).hasMessage("--rows needs a value");
        assertThat(Options.parse().master()).isEqualTo("local[4]");
    }
}
