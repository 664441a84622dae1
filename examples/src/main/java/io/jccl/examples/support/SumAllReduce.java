package io.jccl.examples.support;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * Adds up a {@code double[]} across the ranks of a communicator, in place, and keeps the time spent doing it; with
 * no communicator it stands for a single process and leaves the values as they are.
 *
 * <p>Every rank receives the same bits: JCCL's all-reduce algorithms either compute each element once and copy it
 * (ring, tree) or have partners combine the same two operands (recursive doubling). The examples rely on that:
 * every rank takes the same optimisation steps from the same sums, so the models stay identical without ever being
 * broadcast.
 */
public final class SumAllReduce {
    private final Communicator comm;
    private long nanos;
    private long calls;

    private SumAllReduce(Communicator comm) {
        this.comm = comm;
    }

    /**
     * @param comm the ranks to sum over, or null for a single process
     * @return the summer
     */
    public static SumAllReduce over(Communicator comm) {
        return new SumAllReduce(comm);
    }

    /** @return this rank (0 for a single process) */
    public int rank() {
        return comm == null ? 0 : comm.rank();
    }

    /** @return the number of ranks (1 for a single process) */
    public int size() {
        return comm == null ? 1 : comm.size();
    }

    /**
     * Replaces {@code values[0 .. count)} on every rank with their sum over the ranks. Blocks until done.
     *
     * @param values the values
     * @param count  how many, from the start
     * @throws io.jccl.JcclException when the all-reduce fails (a peer died, a timeout)
     * @throws IndexOutOfBoundsException when {@code count} exceeds {@code values.length}
     */
    public void sumInPlace(double[] values, int count) {
        java.util.Objects.checkFromIndexSize(0, count, values.length);
        calls++;
        if (comm == null || comm.size() == 1) {
            return;
        }
        long start = System.nanoTime();
        Buffer valuesBuffer = Buffer.of(values);
        comm.allReduce(valuesBuffer, valuesBuffer, count, DataType.FLOAT64, ReduceOp.SUM).await();
        nanos += System.nanoTime() - start;
    }

    /** @return the time spent in all-reduces so far, in nanoseconds */
    public long nanosSpent() {
        return nanos;
    }

    /** @return the number of sums so far */
    public long calls() {
        return calls;
    }
}
