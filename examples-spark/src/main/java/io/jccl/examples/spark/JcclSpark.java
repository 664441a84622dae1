package io.jccl.examples.spark;

import io.jccl.Buffer;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.TaskKilledException;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A JCCL communicator for the tasks of a Spark barrier stage ({@code rdd.barrier().mapPartitions(...)}, see
 * {@link BarrierRdd}): task 0 creates the {@link UniqueId}, {@link BarrierTaskContext#allGather} hands it to every
 * task, and each task joins as rank {@code partitionId} of {@code numTasks}.
 *
 * <pre>{@code
 * BarrierRdd.mapPartitions(rdd, (ctx, rows) -> {
 *     Communicator comm = JcclSpark.communicator(ctx);     // collective over the stage's tasks
 *     Buffer g = Buffer.of(grad);                          // double[]: FLOAT64
 *     comm.allReduce(g, g, grad.length, DataType.FLOAT64, ReduceOp.SUM).await();   // in place
 *     ...
 * });
 * }</pre>
 *
 * <h2>Failure: no hung stage</h2>
 * <ul>
 * <li>A task that cannot join (a wrong id, a rendezvous that is unreachable, the other tasks not all arriving within
 *     the init timeout, {@link CommConfig.Builder#initTimeout}) fails with a {@link JcclException} that names the
 *     task, the stage and JCCL's reason; Spark then fails the barrier stage.</li>
 * <li>When the stage fails, Spark marks its other tasks killed without interrupting them. A task waiting to join
 *     notices within {@value #KILL_POLL_MILLIS} ms and ends with {@link TaskKilledException}; the join itself is
 *     abandoned on a daemon thread, which ends by the init timeout and closes whatever it got.</li>
 * <li>The communicator belongs to the task: when the task fails (any exception), it is {@linkplain
 *     Communicator#abort() aborted}, so the other tasks' pending collectives fail at once with {@code REMOTE_ERROR}
 *     naming this rank instead of waiting for the operation timeout; when the task succeeds it is closed. So do not
 *     close it in a try-with-resources block: {@code close()} is a polite goodbye, which peers still waiting in a
 *     collective do not take for a failure.</li>
 * <li>Loops that run many collectives should check {@link BarrierTaskContext#isInterrupted()} now and then (and
 *     throw {@link TaskKilledException}), so that a cancelled job stops at the next step.</li>
 * </ul>
 *
 * <h2>Security</h2>
 * The encoded id, secret included, travels through Spark's RPC to the driver and back to every task. Enable Spark's
 * RPC authentication and encryption ({@code spark.authenticate}, {@code spark.network.crypto.enabled}) where other
 * users share the cluster network.
 */
public final class JcclSpark {
    /** How often a task waiting to join checks whether Spark has killed it, in milliseconds. */
    public static final long KILL_POLL_MILLIS = 100;

    private JcclSpark() {
    }

    /**
     * {@link #communicator(BarrierTaskContext, CommConfig)} with {@link CommConfig#DEFAULT} (settings from the
     * executor's {@code JCCL_*} environment; init timeout 120 s unless {@code JCCL_INIT_TIMEOUT_MS} says otherwise).
     *
     * @param ctx this task's context, {@link BarrierTaskContext#get()}
     * @return the communicator; rank = partition id, size = number of tasks in the stage
     */
    public static Communicator communicator(BarrierTaskContext ctx) {
        return communicator(ctx, CommConfig.DEFAULT);
    }

    /**
     * Creates a communicator over all tasks of this barrier stage. Collective: every task of the stage must call it
     * (it uses one {@link BarrierTaskContext#allGather} round and then joins).
     *
     * @param ctx    this task's context, {@link BarrierTaskContext#get()}
     * @param config JCCL settings; {@link CommConfig.Builder#initTimeout} bounds the join
     * @return the communicator; rank = partition id, size = number of tasks in the stage
     * @throws JcclException       naming the task when it cannot join (the task then fails)
     * @throws TaskKilledException when Spark killed the task while it was joining
     */
    public static Communicator communicator(BarrierTaskContext ctx, CommConfig config) {
        return join(ctx, shareId(ctx), config);
    }

    /**
     * Task 0 creates a {@link UniqueId} (its rendezvous runs in task 0's executor) and every task receives it through
     * one {@link BarrierTaskContext#allGather} round. Collective over the stage's tasks. Use it with
     * {@link #join} to do something between the two, e.g. to join with a derived configuration.
     *
     * @param ctx this task's context
     * @return the id every task of the stage received
     * @throws JcclException INVALID_ARGUMENT when task 0 shared something that is not an id
     */
    public static UniqueId shareId(BarrierTaskContext ctx) {
        Objects.requireNonNull(ctx, "ctx");
        // If task 0 fails to create it, it fails before the allGather and Spark fails the others' allGather.
        String mine = ctx.partitionId() == 0 ? UniqueId.create().encode() : "";
        // Spark returns the messages ordered by partition id.
        String encoded = ctx.allGather(mine)[0];
        try {
            return UniqueId.parse(encoded);
        } catch (IllegalArgumentException e) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, describe(ctx) + ": task 0 shared no JCCL id ("
                    + e.getMessage() + ")");
        }
    }

    /**
     * Joins the communicator of {@code id} as rank {@code partitionId} of the stage's task count, watching for Spark
     * killing the task meanwhile, and ties the communicator to the task (aborted when it fails, closed when it
     * completes). Collective over the stage's tasks.
     *
     * @param ctx    this task's context
     * @param id     the id every task uses, usually from {@link #shareId}
     * @param config JCCL settings; {@link CommConfig.Builder#initTimeout} bounds the join
     * @return the communicator
     * @throws JcclException       naming the task, the stage and JCCL's reason when it cannot join
     * @throws TaskKilledException when Spark killed the task while it was joining
     */
    public static Communicator join(BarrierTaskContext ctx, UniqueId id, CommConfig config) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(config, "config");
        int rank = ctx.partitionId();
        int size = ctx.getTaskInfos().length;
        CompletableFuture<Communicator> joined = new CompletableFuture<>();
        // Communicator.init blocks up to the init timeout and does not watch Spark; a thread of its own lets this
        // task thread poll for a kill meanwhile.
        Thread joiner = Thread.ofPlatform().daemon().name("jccl-spark-join-stage" + ctx.stageId() + "-task" + rank)
                .start(() -> {
                    try {
                        Communicator comm = Communicator.init(id, rank, size, config);
                        if (!joined.complete(comm)) {
                            comm.abort();   // the task stopped waiting: leave at once
                        }
                    } catch (Throwable t) {
                        joined.completeExceptionally(t);
                    }
                });
        Communicator comm = awaitJoin(ctx, joined, joiner, id, size);
        AtomicBoolean aborted = new AtomicBoolean();
        ctx.addTaskFailureListener((TaskFailureListener) (context, error) -> {
            aborted.set(true);
            comm.abort();
        });
        ctx.addTaskCompletionListener((TaskCompletionListener) context -> {
            if (!aborted.get()) {
                comm.close();
            }
        });
        return comm;
    }

    private static Communicator awaitJoin(BarrierTaskContext ctx, CompletableFuture<Communicator> joined,
                                          Thread joiner, UniqueId id, int size) {
        while (true) {
            try {
                return joined.get(KILL_POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (ctx.isInterrupted()) {
                    giveUp(joined, joiner);
                    throw new TaskKilledException(describe(ctx) + " was killed while joining its JCCL communicator");
                }
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                ErrorCode code = cause instanceof JcclException j ? j.code() : ErrorCode.SYSTEM_ERROR;
                String reason = cause instanceof JcclException j ? j.getMessage() : cause.toString();
                throw new JcclException(code, describe(ctx) + " could not join the JCCL communicator of " + size
                        + " tasks (rendezvous " + id + "): " + reason, cause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                giveUp(joined, joiner);
                throw new TaskKilledException(describe(ctx) + " was interrupted while joining its JCCL communicator");
            }
        }
    }

    /** Stops waiting: a communicator that arrives later is aborted by the joiner thread, one already here now. */
    private static void giveUp(CompletableFuture<Communicator> joined, Thread joiner) {
        if (!joined.cancel(false) && joined.state() == Future.State.SUCCESS) {
            joined.resultNow().abort();
        }
        joiner.interrupt();
    }

    /** @return e.g. {@code barrier task 1 of 4 (stage 3.0, attempt 0)} */
    static String describe(BarrierTaskContext ctx) {
        return "barrier task " + ctx.partitionId() + " of " + ctx.getTaskInfos().length + " (stage " + ctx.stageId()
                + "." + ctx.stageAttemptNumber() + ", attempt " + ctx.attemptNumber() + ")";
    }
}
