package io.jccl.examples.spark;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.UniqueId;
import io.jccl.examples.logistic.Lbfgs;
import io.jccl.examples.logistic.LogisticLoss;
import io.jccl.examples.logistic.LogisticObjective;
import io.jccl.examples.logistic.Shard;
import io.jccl.examples.logistic.SyntheticDataset;
import io.jccl.examples.support.ExampleArgs;
import io.jccl.examples.support.ExampleMetrics;
import io.jccl.examples.support.SumAllReduce;
import org.apache.spark.TaskKilledException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Logistic regression on Spark two ways, on the same cached data, with the same optimiser (L-BFGS, 10 correction
 * pairs), objective, iteration limit and tolerance:
 *
 * <ul>
 * <li><b>JCCL barrier mode</b>: one barrier stage ({@link BarrierRdd}); every task joins a JCCL communicator
 *     ({@link JcclSpark}) and runs L-BFGS over its partition, all-reducing the loss and gradient at every
 *     evaluation ({@link LogisticObjective}). The tasks stay in lockstep and end with the same model; task 0
 *     returns it.</li>
 * <li><b>MLlib</b>: {@code LogisticRegression} with {@code regParam = l2}, {@code elasticNetParam = 0},
 *     {@code standardization = false}: a Spark job ({@code treeAggregate}) per evaluation.</li>
 * </ul>
 *
 * Both models are scored with the same code: the regularised objective over the training data and the accuracy
 * on held-out examples of the same distribution.
 *
 * <pre>
 * examples-spark/run --master local[4] --rows 200000 --features 32 --iterations 50
 * </pre>
 */
public final class SparkLogisticRegression {
    private static final String NAME = "SparkLogisticRegression";
    /** L-BFGS correction pairs, MLlib's default. */
    static final int LBFGS_MEMORY = 10;
    /** The training data's schema: what MLlib's estimators read. */
    public static final StructType SCHEMA = new StructType()
            .add("label", DataTypes.DoubleType, false)
            .add("features", SQLDataTypes.VectorType(), false);

    private SparkLogisticRegression() {
    }

    /**
     * What to run.
     *
     * @param master        Spark master, e.g. {@code local[4]}
     * @param rows          training examples
     * @param testRows      held-out examples for the accuracy
     * @param features      features per example
     * @param partitions    partitions of the training data = barrier tasks = JCCL ranks (at most the task slots)
     * @param iterations    L-BFGS iteration limit of both methods
     * @param l2            L2 regularisation of the weights (MLlib's regParam)
     * @param tolerance     relative objective improvement below which both stop (MLlib's tol)
     * @param seed          the dataset
     * @param runs          how many times to train each way
     * @param metricsPort   {@link ExampleMetrics#OFF}, 0 (a free port) or the driver's Prometheus port
     * @param metricsLinger how long to keep serving metrics after the runs
     * @param initTimeout   how long the barrier tasks may take to join their communicator
     * @param rendezvous    who creates the JCCL id: {@link Rendezvous#TASK0} (shared with
     *                      {@code BarrierTaskContext.allGather}) or {@link Rendezvous#DRIVER} (sent with the task)
     */
    public record Options(String master, int rows, int testRows, int features, int partitions, int iterations,
                          double l2, double tolerance, long seed, int runs, int metricsPort, Duration metricsLinger,
                          Duration initTimeout, Rendezvous rendezvous) implements Serializable {
        /**
         * @throws IllegalArgumentException naming the first value out of range
         */
        public Options {
            check(master != null && !master.isBlank(), "--master must not be empty");
            check(rows >= 1 && testRows >= 1 && features >= 1, "--rows, --test-rows and --features must be at least 1");
            check(partitions >= 1 && partitions <= rows, "--partitions must be in [1, rows], got " + partitions);
            check(iterations >= 1 && runs >= 1, "--iterations and --runs must be at least 1");
            check(l2 >= 0 && Double.isFinite(l2), "--l2 must not be negative, got " + l2);
            check(tolerance >= 0 && Double.isFinite(tolerance), "--tol must not be negative, got " + tolerance);
            check(metricsPort >= ExampleMetrics.OFF && metricsPort <= 65535, "--metrics-port must be a port");
            check(metricsLinger != null && !metricsLinger.isNegative(), "--metrics-linger must not be negative");
            check(initTimeout != null && initTimeout.isPositive(), "--init-timeout must be positive");
            check(rendezvous != null, "--rendezvous must be task0 or driver");
        }

        /** The defaults: local[4], 200,000 x 32 in 4 partitions, 20,000 test rows, 50 iterations, l2 1e-4, tol 1e-6. */
        public static Options defaults() {
            return new Options("local[4]", 200_000, 20_000, 32, 4, 50, 1e-4, 1e-6, 42, 1, ExampleMetrics.OFF,
                    Duration.ZERO, Duration.ofSeconds(60), Rendezvous.TASK0);
        }

        /**
         * @param argv the program's options (see {@link #usage()})
         * @return the options
         * @throws IllegalArgumentException naming the option that is wrong
         */
        public static Options parse(String... argv) {
            ExampleArgs args = ExampleArgs.parse(argv);
            Options d = defaults();
            Options o = new Options(
                    args.stringValue("--master", d.master),
                    args.intValue("--rows", d.rows, 1, Integer.MAX_VALUE),
                    args.intValue("--test-rows", d.testRows, 1, 10_000_000),
                    args.intValue("--features", d.features, 1, 1 << 16),
                    args.intValue("--partitions", d.partitions, 1, 100_000),
                    args.intValue("--iterations", d.iterations, 1, 1_000_000),
                    args.doubleValue("--l2", d.l2, 0, 1e6),
                    args.doubleValue("--tol", d.tolerance, 0, 1),
                    args.longValue("--seed", d.seed, Long.MIN_VALUE, Long.MAX_VALUE),
                    args.intValue("--runs", d.runs, 1, 1000),
                    args.intValue("--metrics-port", d.metricsPort, ExampleMetrics.OFF, 65535),
                    Duration.ofSeconds(args.longValue("--metrics-linger", 0, 0, 86_400)),
                    Duration.ofSeconds(args.longValue("--init-timeout", d.initTimeout.toSeconds(), 1, 86_400)),
                    Rendezvous.parse(args.stringValue("--rendezvous", "task0")));
            args.finish();
            return o;
        }

        /** @return the options, one per line */
        public static String usage() {
            return """
                    usage: examples-spark/run [options]
                      --master M            Spark master (local[4])
                      --rows N              training examples (200000)
                      --test-rows N         held-out examples for the accuracy (20000)
                      --features N          features per example (32)
                      --partitions N        partitions = barrier tasks = JCCL ranks, at most the task slots (4)
                      --iterations N        L-BFGS iteration limit, both methods (50)
                      --l2 X                L2 regularisation, MLlib's regParam (1e-4)
                      --tol X               relative improvement to stop at, MLlib's tol (1e-6)
                      --seed N              the dataset (42)
                      --runs N              train each way N times, alternating which goes first (1)
                      --init-timeout S      how long barrier tasks may take to join JCCL (60)
                      --rendezvous task0|driver
                                            who creates the JCCL id: barrier task 0, shared with allGather
                                            (Spark polls it once a second), or the driver, sent with the task
                                            (task0)
                      --metrics-port P      serve Prometheus metrics on 127.0.0.1:P (0: any free port)
                      --metrics-linger S    keep serving them S seconds after the runs (0)
                    """;
        }

        private static void check(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }

    /** Who creates the JCCL id of the barrier tasks' communicator. */
    public enum Rendezvous {
        /** Barrier task 0, which shares it through {@code BarrierTaskContext.allGather} ({@link JcclSpark}). */
        TASK0,
        /**
         * The driver, which sends it with the task; the rendezvous runs in the driver, which the executors must
         * reach. Saves the allGather round, which Spark 4.2 completes only at its next once-a-second poll.
         */
        DRIVER;

        /**
         * @param text {@code task0} or {@code driver}
         * @return the value
         * @throws IllegalArgumentException for anything else
         */
        public static Rendezvous parse(String text) {
            return switch (text) {
                case "task0" -> TASK0;
                case "driver" -> DRIVER;
                default -> throw new IllegalArgumentException("--rendezvous must be task0 or driver, got '" + text
                        + "'");
            };
        }
    }

    /**
     * A trained model and what training cost.
     *
     * @param method           {@code JCCL barrier} or {@code MLlib}
     * @param model            weights, then the intercept
     * @param iterations       L-BFGS iterations
     * @param evaluations      objective evaluations (line-search trials included): all-reduces for JCCL, Spark jobs
     *                         for MLlib
     * @param wallSeconds      from submitting the job to having the model on the driver
     * @param joinSeconds      JCCL: task 0's communicator creation (id sharing, if any, and join); MLlib: 0
     * @param allReduceSeconds JCCL: task 0's time in all-reduces; MLlib: 0
     */
    public record Trained(String method, double[] model, int iterations, long evaluations, double wallSeconds,
                          double joinSeconds, double allReduceSeconds) {
    }

    /**
     * A trained model, scored.
     *
     * @param trained      the model
     * @param objective    the regularised training objective (what both minimise)
     * @param testAccuracy the fraction of held-out examples classified right
     */
    public record Report(Trained trained, double objective, double testAccuracy) {
        /** @return one line, e.g. {@code JCCL barrier  12 iterations ... wall 1.234 s} */
        public String format() {
            Trained t = trained;
            String line = String.format(Locale.ROOT, "%-14s%3d iterations %3d evaluations  objective %.6f  "
                            + "test accuracy %.4f  wall %.3f s", t.method(), t.iterations(), t.evaluations(), objective,
                    testAccuracy, t.wallSeconds());
            return t.joinSeconds() == 0 && t.allReduceSeconds() == 0 ? line : line + String.format(Locale.ROOT,
                    "  (join %.3f s, all-reduce %.3f s)", t.joinSeconds(), t.allReduceSeconds());
        }
    }

    /** What a barrier task sends back; only task 0's is kept. */
    private record TaskOutcome(int rank, double[] model, int iterations, int evaluations, long joinNanos,
                               long allReduceNanos) implements Serializable {
    }

    /**
     * A session for the example and its tests: no UI or console progress bar; on a {@code local} master the driver
     * binds 127.0.0.1.
     *
     * @param master     the Spark master
     * @param partitions used for SQL shuffles too
     * @return the session
     */
    public static SparkSession session(String master, int partitions) {
        SparkSession.Builder b = SparkSession.builder().master(master).appName("jccl-spark-logistic-regression")
                .config("spark.ui.enabled", false)
                .config("spark.ui.showConsoleProgress", false)
                .config("spark.sql.shuffle.partitions", partitions);
        if (master.startsWith("local")) {
            b.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1");
        }
        return b.getOrCreate();
    }

    /**
     * Generates the training data on the executors, example {@code i} from {@code (seed, i)}
     * ({@link SyntheticDataset}), in contiguous blocks of indices per partition, and caches it.
     *
     * @param spark the session
     * @param o     rows, features, partitions and seed
     * @return the cached, already materialised data ({@link #SCHEMA})
     */
    public static Dataset<Row> trainingData(SparkSession spark, Options o) {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        int partitions = o.partitions();
        long rows = o.rows();
        long seed = o.seed();
        int features = o.features();
        // One element per partition (its index); each partition generates its block of examples.
        JavaRDD<Row> generated = sc.parallelize(IntStream.range(0, partitions).boxed().toList(), partitions)
                .mapPartitions(indices -> {
                    SyntheticDataset data = new SyntheticDataset(seed, features);
                    List<Row> out = new ArrayList<>();
                    while (indices.hasNext()) {
                        int p = indices.next();
                        long first = rows * p / partitions;
                        long end = rows * (p + 1) / partitions;
                        for (long i = first; i < end; i++) {
                            double[] x = new double[features];
                            int y = data.example(i, x, 0);
                            out.add(RowFactory.create((double) y, Vectors.dense(x)));
                        }
                    }
                    return out.iterator();
                });
        Dataset<Row> data = spark.createDataFrame(generated, SCHEMA).cache();
        long count = data.count();
        if (count != rows) {
            throw new IllegalStateException("generated " + count + " rows instead of " + rows);
        }
        return data;
    }

    /**
     * @param o rows, test rows, features and seed
     * @return the held-out examples: indices {@code rows .. rows + testRows} of the same dataset, on the driver
     */
    public static Shard testData(Options o) {
        return new SyntheticDataset(o.seed(), o.features()).shard(o.rows(), (long) o.rows() + o.testRows(), 1);
    }

    /**
     * Trains in one barrier stage with JCCL all-reduce.
     *
     * @param data the training data ({@link #SCHEMA}); its partitions become the barrier tasks
     * @param o    iterations, l2, tolerance and init timeout
     * @return task 0's model
     * @throws IllegalArgumentException when there are more partitions than task slots
     * @throws org.apache.spark.SparkException (unchecked here) when the stage fails
     */
    public static Trained trainWithJccl(Dataset<Row> data, Options o) {
        JavaRDD<Row> rows = data.javaRDD();
        int slots = data.sparkSession().sparkContext().defaultParallelism();
        if (rows.getNumPartitions() > slots) {
            // Spark would otherwise retry the barrier stage for minutes before failing.
            throw new IllegalArgumentException("a barrier stage of " + rows.getNumPartitions()
                    + " tasks needs that many task slots; the cluster has " + slots);
        }
        int features = o.features();
        int iterations = o.iterations();
        double tolerance = o.tolerance();
        double l2 = o.l2();
        // CommConfig is not serialisable; its options are.
        Map<String, String> jcclOptions = new HashMap<>(CommConfig.builder().initTimeout(o.initTimeout()).build()
                .options());
        long start = System.nanoTime();
        // A driver-made id serves one communicator, so a new one per training; null: task 0 makes and shares it.
        String driverId = o.rendezvous() == Rendezvous.DRIVER ? UniqueId.create().encode() : null;
        List<TaskOutcome> outcomes = BarrierRdd.<Row, TaskOutcome>mapPartitions(rows, (ctx, partition) -> {
            Shard shard = toShard(partition, features);
            CommConfig.Builder config = CommConfig.builder();
            jcclOptions.forEach(config::option);
            long joinStart = System.nanoTime();
            Communicator comm = driverId == null ? JcclSpark.communicator(ctx, config.build())
                    : JcclSpark.join(ctx, UniqueId.parse(driverId), config.build());
            long joinNanos = System.nanoTime() - joinStart;
            SumAllReduce sum = SumAllReduce.over(comm);
            LogisticObjective objective = new LogisticObjective(shard, sum, l2, () -> {
                if (ctx.isInterrupted()) {
                    throw new TaskKilledException("the stage was cancelled during training");
                }
            });
            Lbfgs.Result r = Lbfgs.minimize(objective, new double[features + 1], iterations, tolerance, LBFGS_MEMORY);
            if (ctx.partitionId() != 0) {
                return Collections.emptyIterator();
            }
            return List.of(new TaskOutcome(comm.rank(), r.x(), r.iterations(), r.evaluations(), joinNanos,
                    sum.nanosSpent())).iterator();
        }).collect();
        double wall = (System.nanoTime() - start) / 1e9;
        TaskOutcome t = outcomes.getFirst();
        return new Trained(o.rendezvous() == Rendezvous.DRIVER ? "JCCL (driver)" : "JCCL barrier", t.model(), t.iterations(), t.evaluations(), wall, t.joinNanos() / 1e9,
                t.allReduceNanos() / 1e9);
    }

    /**
     * Trains with MLlib's {@code LogisticRegression} on the same objective.
     *
     * @param data the training data ({@link #SCHEMA})
     * @param o    iterations, l2 and tolerance
     * @return the model
     */
    public static Trained trainWithMllib(Dataset<Row> data, Options o) {
        LogisticRegression lr = new LogisticRegression().setFamily("binomial").setFitIntercept(true)
                .setStandardization(false).setElasticNetParam(0).setRegParam(o.l2()).setMaxIter(o.iterations())
                .setTol(o.tolerance());
        long start = System.nanoTime();
        LogisticRegressionModel m = lr.fit(data);
        double wall = (System.nanoTime() - start) / 1e9;
        double[] model = Arrays.copyOf(m.coefficients().toArray(), o.features() + 1);
        model[o.features()] = m.intercept();
        int iterations = m.summary().totalIterations();
        // MLlib's objective history has one value per iteration, plus the start.
        return new Trained("MLlib", model, iterations, m.summary().objectiveHistory().length, wall, 0, 0);
    }

    /**
     * Scores a model: the regularised objective over the training data (one Spark job) and the held-out accuracy.
     *
     * @param t    the model
     * @param data the training data
     * @param test the held-out examples
     * @param l2   the regularisation both minimised
     * @return the report
     */
    public static Report score(Trained t, Dataset<Row> data, Shard test, double l2) {
        double[] model = t.model();
        int features = model.length - 1;
        double[] sums = data.javaRDD().mapPartitions(partition -> {
            Shard shard = toShard(partition, features);
            return List.of(new double[] {LogisticLoss.evaluate(shard, model)[0], shard.rows()}).iterator();
        }).reduce((a, b) -> new double[] {a[0] + b[0], a[1] + b[1]});
        double penalty = 0;
        for (int j = 0; j < features; j++) {
            penalty += model[j] * model[j];
        }
        double objective = sums[0] / sums[1] + 0.5 * l2 * penalty;
        double accuracy = LogisticLoss.evaluate(test, model)[1] / test.rows();
        return new Report(t, objective, accuracy);
    }

    /** Copies a partition's rows into a dense shard. */
    static Shard toShard(Iterator<Row> rows, int features) {
        double[] x = new double[1024 * features];
        double[] y = new double[1024];
        int n = 0;
        while (rows.hasNext()) {
            Row row = rows.next();
            if (n == y.length) {
                y = Arrays.copyOf(y, 2 * n);
                x = Arrays.copyOf(x, 2 * n * features);
            }
            Vector v = (Vector) row.get(1);
            if (v.size() != features) {
                throw new IllegalArgumentException("a row has " + v.size() + " features, expected " + features);
            }
            y[n] = row.getDouble(0);
            for (int j = 0; j < features; j++) {
                x[n * features + j] = v.apply(j);
            }
            n++;
        }
        return new Shard(features, Arrays.copyOf(x, n * features), Arrays.copyOf(y, n));
    }

    /**
     * Generates the data, then trains and scores both ways {@code --runs} times, alternating which goes first, and
     * prints one line per model. Exit status 2 for a usage error.
     *
     * @param args options, see {@link Options#usage()}
     */
    public static void main(String[] args) throws Exception {
        Options o = ExampleArgs.parseOrExit(NAME, args, Options.usage(), Options::parse);
        if (o == null) {
            return;   // --help
        }
        // In local mode the tasks' communicators live in this JVM, so one endpoint sees all their all-reduces.
        try (ExampleMetrics metrics = ExampleMetrics.start(o.metricsPort(), 0);
             SparkSession spark = session(o.master(), o.partitions())) {
            int slots = spark.sparkContext().defaultParallelism();
            if (o.partitions() > slots) {
                System.err.println(NAME + ": --partitions " + o.partitions() + " needs as many task slots for the "
                        + "barrier stage; " + o.master() + " has " + slots);
                System.exit(2);
            }
            if (metrics.enabled()) {
                System.out.println("metrics: http://127.0.0.1:" + metrics.port() + "/metrics");
            }
            System.out.printf(Locale.ROOT, "%s: %s, %d training rows x %d features in %d partitions, %d test rows; "
                            + "L-BFGS (m=%d), at most %d iterations, l2 %s, tol %s%n", NAME, o.master(), o.rows(),
                    o.features(), o.partitions(), o.testRows(), LBFGS_MEMORY, o.iterations(), o.l2(), o.tolerance());
            long start = System.nanoTime();
            Dataset<Row> data = trainingData(spark, o);
            Shard test = testData(o);
            System.out.printf(Locale.ROOT, "data generated and cached in %.2f s%n", (System.nanoTime() - start) / 1e9);
            for (int run = 1; run <= o.runs(); run++) {
                boolean jcclFirst = run % 2 == 1;
                for (int k = 0; k < 2; k++) {
                    boolean jccl = (k == 0) == jcclFirst;
                    Trained t = jccl ? trainWithJccl(data, o) : trainWithMllib(data, o);
                    Report r = score(t, data, test, o.l2());
                    metrics.progress(jccl ? "spark-jccl" : "spark-mllib").epochsDone(t.iterations(), r.objective(),
                            r.testAccuracy());
                    System.out.println("run " + run + "  " + r.format());
                }
            }
            metrics.linger(o.metricsLinger());
        }
    }
}
