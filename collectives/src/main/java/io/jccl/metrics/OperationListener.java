package io.jccl.metrics;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.plan.OpKind;

/**
 * Told of every operation a communicator completed, on the thread that drives it — the communicator's own thread, a
 * caller waiting for an operation, or, for a small collective run at once, the thread that issued it, inside the call
 * — right after the operation's data movement finished and before its future completes. The hook the metrics hang on: the data path
 * calls it with what it already has (no allocation, no lock), and an implementation must not allocate, block or
 * throw in steady state either — it runs inside every operation's latency.
 *
 * <p>Register one for every communicator of the JVM with {@link OperationListeners#register(OperationListener)},
 * or for one communicator with {@link OperationListeners#register(Communicator, OperationListener)}.
 */
@FunctionalInterface
public interface OperationListener {
    /**
     * @param communicator the communicator that ran it
     * @param kind         the collective ({@link OpKind#P2P} for a send or receive)
     * @param type         the element type, or null for operations without one (barrier)
     * @param algorithm    the plan's algorithm name ({@code ring}, {@code tree}, {@code recursive_doubling}, {@code chain},
     *                     {@code pairwise}, {@code direct}, {@code dissemination}, {@code p2p}, ...)
     * @param transport    the communicator's transports to its peers, distinct names joined by {@code +} in sorted
     *                     order ({@code local}, {@code shm}, {@code tcp}, {@code metaroce}, {@code metaroce+shm}),
     *                     {@code self} for a communicator of one rank
     * @param bytes        the operation's size: count × element size, times the number of ranks for all-gather,
     *                     reduce-scatter and all-to-all (the size nccl-tests reports)
     * @param durationNs   from the executor starting the operation (taking it off its queue, or the issuing thread
     *                     running it at once) until its data movement finished
     */
    void operationCompleted(Communicator communicator, OpKind kind, DataType type, String algorithm,
                            String transport, long bytes, long durationNs);
}
