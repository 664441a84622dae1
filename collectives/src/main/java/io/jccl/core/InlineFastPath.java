package io.jccl.core;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link CommExecutor}'s fast path for small collectives: the issuing thread runs the operation itself when
 * nothing else is pending, and hands it over to the executor unfinished when it takes longer than its budget.
 */
final class InlineFastPath {
    private final CommExecutor executor;
    private final CommImpl comm;
    private final OpQueue<OpRequest> queue;
    private final ExecutorSignal signal;
    /** The request of the operations run at once by the thread that issues them ({@link #run}). */
    private final OpRequest inline = OpRequest.inline();
    /** Inline operations handed over unfinished (their futures are the only thing the fast path allocates). */
    private final AtomicLong inlineHandOvers = new AtomicLong();
    /** The queue's claims when the last inline operation started, and how many were handed over since it moved. */
    private long handOverEpoch = -1;
    private long handOversInEpoch;

    InlineFastPath(CommExecutor executor, CommImpl comm, OpQueue<OpRequest> queue, ExecutorSignal signal) {
        this.executor = executor;
        this.comm = comm;
        this.queue = queue;
        this.signal = signal;
    }

    /**
     * The fast path of a small collective: when nothing is queued or running and no thread drives, the issuing
     * thread starts the operation itself and drives it for about {@code budgetNs} at most ({@link
     * CommImpl#INLINE_SPIN_NS}, or the configured spin when shorter) —
     * the data goes out at once, with no queue, no hand-over between threads and, when it completes within the
     * budget, nothing allocated: the shared {@link OpFuture#COMPLETED} is returned. Otherwise it hands the
     * operation over unfinished: it gets a future, which the executor thread or a waiting caller completes, as any
     * other. Issue order holds: the operation starts only when every earlier one has completed, and later ones queue
     * behind it (nobody else drives meanwhile, and the queue is looked at with the driver flag held).
     *
     * @param budgetNs how long to drive at most, counted from the 64th pass (0: what is possible at once)
     * @return the operation's future; null when the fast path does not apply (queue it)
     */
    OpFuture run(OpKind kind, long count, DataType type, ReduceOp op, int root, MemorySegment send,
                 MemorySegment recv, boolean inPlace, long budgetNs) {
        CommExecutor ex = executor;
        if (!ex.tryDrive()) {   // a stepped executor never lets its issuer drive
            return null;
        }
        boolean handedOver = false;
        try {
            long claims = queue.claims();
            if (ex.state != CommExecutor.IDLE || ex.current != null || ex.failure != null || ex.abortRequested
                    || ex.closeRequested || queue.taken() != claims) {
                return null;
            }
            if (claims != handOverEpoch) {
                handOverEpoch = claims;
                handOversInEpoch = 0;
            } else if (handOversInEpoch == CommExecutor.MAX_HAND_OVERS_PER_EPOCH) {
                return null;   // no order key left between two queued operations: queue this one
            }
            OpRequest r = inline;
            r.resetCollective(kind, count, type, op, root, send, recv, inPlace);
            ex.startOperation(r);
            long startNs = 0;
            int passes = 0;
            while (r.inlineOutcome == OpRequest.RUNNING) {
                int work = ex.step();
                if ((++passes & 63) != 0) {
                    if (work == 0) {
                        Thread.onSpinWait();
                    }
                    continue;
                }
                long now = System.nanoTime();   // not before 64 passes: a small operation is done by then
                if (startNs == 0) {
                    startNs = now;
                } else if (now - startNs >= budgetNs) {
                    break;
                }
            }
            if (r.inlineOutcome == OpRequest.DONE) {
                r.clearInline();
                return OpFuture.COMPLETED;
            }
            OpFuture f = comm.newFuture(CommImpl.dataBytes(count, type));
            if (r.inlineOutcome == OpRequest.FAILED) {
                r.clearInline();
                f.fail(r.inlineError);
                return f;
            }
            f.position(CommExecutor.handOverOrder(claims, ++handOversInEpoch));
            r.future = f;   // published to the next driver by the release of the driver flag below
            handedOver = true;
            inlineHandOvers.incrementAndGet();
            return f;
        } finally {
            ex.stopDriving();
            if (handedOver) {
                // This thread carries it on unless its caller comes to wait: woken now, since progress signals no
                // longer end its watching parks (it would find the operation only at its next look, up to
                // ExecutorThread.MAX_WATCH_NS later, and an issuer that does not wait at once would lose that much).
                signal.wake();
            }
        }
    }

    /** @return inline operations handed over unfinished so far (tests) */
    long handOvers() {
        return inlineHandOvers.get();
    }
}
