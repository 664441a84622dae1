package io.jccl.examples.spark;

import io.jccl.Buffer;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link JcclSpark} in barrier stages on {@code local[4]}: tasks join as their partitions and all-reduce; a task that
 * cannot join, or fails after joining, fails the stage without leaving the other tasks hanging, and the context runs
 * the next barrier stage normally.
 *
 * <p>In local mode the tasks are threads of this JVM, so they report how they ended in {@link #OUTCOMES}. Time limits
 * here only turn a hang into a failure; each is far above the expected time and below the JCCL timeout that would
 * otherwise have ended the wait, so passing shows that the timeout was not what ended it.
 */
@Tag("integration")
class JcclSparkTest {
    /** How each task of a failure test ended, by test and partition: exception class and message. */
    static final Map<String, String> OUTCOMES = new ConcurrentHashMap<>();
    private static JavaSparkContext sc;

    @BeforeAll
    static void startSpark() {
        sc = JavaSparkContext.fromSparkContext(TestSpark.session().sparkContext());
    }

    private static JavaRDD<Integer> partitions(int n) {
        return sc.parallelize(IntStream.range(0, n).boxed().toList(), n);
    }

    private static CommConfig initTimeout(Duration timeout) {
        return CommConfig.builder().initTimeout(timeout).build();
    }

    /** Every task joins through {@link JcclSpark#communicator} and all-reduces rank + 1: the result is n(n+1)/2. */
    private static List<String> allReduceStage(int n) {
        return BarrierRdd.<Integer, String>mapPartitions(partitions(n), (ctx, rows) -> {
            Communicator comm = JcclSpark.communicator(ctx, initTimeout(Duration.ofSeconds(60)));
            double[] v = {comm.rank() + 1};
            Buffer b = Buffer.of(v);
            comm.allReduce(b, b, 1, DataType.FLOAT64, ReduceOp.SUM).await();
            return List.of(ctx.partitionId() + ":" + comm.rank() + "/" + comm.size() + "=" + v[0]).iterator();
        }).collect();
    }

    @Test
    void everyTaskJoinsAsRankPartitionIdAndAllReduces() {
        assertThat(allReduceStage(4)).containsExactly("0:0/4=10.0", "1:1/4=10.0", "2:2/4=10.0", "3:3/4=10.0");
        assertThat(allReduceStage(2)).containsExactly("0:0/2=3.0", "1:1/2=3.0");
    }

    @Test
    void aTaskWithAWrongIdFailsTheStageAndTheOtherStopsWaiting() throws Exception {
        String test = "wrong-id";
        long start = System.nanoTime();
        // Init timeout 120 s: the failure must come from the refusal, the release from Spark's kill.
        Throwable failure = catchThrowable(() -> BarrierRdd.<Integer, String>mapPartitions(partitions(2),
                (ctx, rows) -> {
                    UniqueId shared = JcclSpark.shareId(ctx);
                    // Task 1: the right place, a wrong secret.
                    UniqueId id = ctx.partitionId() == 1
                            ? UniqueId.of(shared.address(), new byte[UniqueId.SECRET_BYTES]) : shared;
                    recordingFailure(test + ctx.partitionId(),
                            () -> JcclSpark.join(ctx, id, initTimeout(Duration.ofSeconds(120))));
                    return List.of("joined").iterator();
                }).collect());
        assertThat(failure).as("the stage must fail").isNotNull();
        assertThat(failure.getMessage()).contains("barrier task 1 of 2", "could not join the JCCL communicator of 2 tasks",
                "REMOTE_ERROR", "authentication failed", "is the unique id right?");
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(60));
        // Task 0 was waiting for rank 1 at the rendezvous; Spark's kill ends its wait, not the 120 s init timeout.
        assertThat(awaitOutcome(test + 0)).startsWith("TaskKilledException").contains("barrier task 0 of 2",
                "was killed while joining");
        assertThat(allReduceStage(4)).as("the next barrier stage").hasSize(4);
    }

    @Test
    void tasksThatDoNotAllArriveFailWithATimeoutNamingTheTask() {
        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> BarrierRdd.<Integer, String>mapPartitions(partitions(2),
                (ctx, rows) -> {
                    UniqueId shared = JcclSpark.shareId(ctx);
                    // Task 1 goes to a rendezvous of its own: each side waits for a rank that never comes.
                    UniqueId id = ctx.partitionId() == 1 ? UniqueId.create() : shared;
                    JcclSpark.join(ctx, id, initTimeout(Duration.ofSeconds(3)));
                    return List.of("joined").iterator();
                }).collect());
        assertThat(failure).as("the stage must fail").isNotNull();
        assertThat(failure.getMessage()).contains("could not join the JCCL communicator of 2 tasks", "TIMEOUT");
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(60));
        assertThat(allReduceStage(2)).as("the next barrier stage").hasSize(2);
    }

    @Test
    void aTaskThatFailsAfterJoiningReleasesTheOthersFromTheirCollective() throws Exception {
        String test = "mid-training";
        Throwable failure = catchThrowable(() -> BarrierRdd.<Integer, String>mapPartitions(partitions(2),
                (ctx, rows) -> {
                    // The default operation timeout (5 min) would end task 0's wait; the abort must come first.
                    Communicator comm = JcclSpark.communicator(ctx, initTimeout(Duration.ofSeconds(60)));
                    double[] v = {1};
                    Buffer b = Buffer.of(v);
                    comm.allReduce(b, b, 1, DataType.FLOAT64, ReduceOp.SUM).await();
                    if (ctx.partitionId() == 1) {
                        throw new IllegalStateException("injected failure after the first all-reduce");
                    }
                    recordingFailure(test + ctx.partitionId(),   // rank 1 never comes
                            () -> comm.allReduce(b, b, 1, DataType.FLOAT64, ReduceOp.SUM).await());
                    return List.of("done").iterator();
                }).collect());
        assertThat(failure).as("the stage must fail").isNotNull();
        // Spark names whichever task failed first: the injected one, or task 0 released by rank 1's abort.
        assertThat(failure.getMessage()).containsAnyOf("injected failure after the first all-reduce",
                "rank 1 aborted its communicator");
        // The failed task's communicator was aborted, so task 0's pending all-reduce failed at once, naming rank 1.
        assertThat(awaitOutcome(test + 0)).startsWith("JcclException").contains("REMOTE_ERROR", "rank 1");
        assertThat(allReduceStage(2)).as("the next barrier stage").hasSize(2);
    }

    /** Waits up to 60 s (far above the expected fraction of a second) for a task's outcome. */
    /** Runs {@code step}; what it throws is recorded under {@code key} ({@link #awaitOutcome}) and thrown on. */
    private static void recordingFailure(String key, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            OUTCOMES.put(key, e.getClass().getSimpleName() + ": " + e.getMessage());
            throw e;
        }
    }

    private static String awaitOutcome(String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!OUTCOMES.containsKey(key)) {
            assertThat(System.nanoTime()).as("waiting for the outcome of %s; have %s", key, OUTCOMES)
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        return OUTCOMES.get(key);
    }
}
