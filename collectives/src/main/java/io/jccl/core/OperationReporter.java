package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.metrics.OperationListener;
import io.jccl.metrics.OperationListeners;
import io.jccl.plan.OpKind;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;

/**
 * Tells the operation listeners (the JVM-wide ones, then the communicator's own) that a plan's operations moved
 * their data: kind, type, algorithm, transport, size and duration. Called by the executor when a plan finishes.
 */
final class OperationReporter {
    private final Communicator comm;
    private final int rank;
    private final int size;
    private final String[] transportNames;
    private final NanoClock clock;
    /** This communicator's own operation listeners (the JVM-wide ones are in {@link OperationListeners}). */
    private volatile OperationListener[] listeners = new OperationListener[0];
    /** The transport tag reported to listeners: computed on first use, on the executor thread. */
    private String transportTag;

    /**
     * @param transportNames the transport to each peer, by rank (null where none), for {@link #transportTag}
     */
    OperationReporter(Communicator comm, int rank, int size, String[] transportNames, NanoClock clock) {
        this.comm = comm;
        this.rank = rank;
        this.size = size;
        this.transportNames = transportNames;
        this.clock = clock;
    }

    synchronized void addListener(OperationListener listener) {
        OperationListener[] now = listeners;
        OperationListener[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = listener;
        listeners = next;
    }

    synchronized void removeListener(OperationListener listener) {
        listeners = OperationListeners.without(listeners, listener);
    }

    /** A plan of {@code members}, run with {@code algorithm}, finished: its operations' listeners hear of it. */
    void planDone(OpRequest[] members, String algorithm, long planStartNs) {
        OperationListener[] all = OperationListeners.global();
        OperationListener[] mine = listeners;
        if (all.length > 0 || mine.length > 0) {   // nobody listening: not even the clock is read
            long durationNs = clock.nanoTime() - planStartNs;
            for (OpRequest m : members) {
                report(m, all, mine, algorithm, durationNs);
            }
        }
    }

    /** Tells the listeners ({@code all}: the JVM-wide ones, then {@code mine}) that {@code op} moved its data. */
    private void report(OpRequest op, OperationListener[] all, OperationListener[] mine, String algorithm,
                        long durationNs) {
        String transport = transportTag;
        if (transport == null) {
            transport = transportTag = transportTag(transportNames);
        }
        long bytes = opBytes(op);
        for (OperationListener l : all) {
            notify(l, op, algorithm, transport, bytes, durationNs);
        }
        for (OperationListener l : mine) {
            notify(l, op, algorithm, transport, bytes, durationNs);
        }
    }

    private void notify(OperationListener l, OpRequest op, String algorithm, String transport, long bytes,
                        long durationNs) {
        try {
            l.operationCompleted(comm, op.kind, op.dataType, algorithm, transport, bytes, durationNs);
        } catch (RuntimeException e) {
            CommExecutor.LOG.warn("rank {}: operation listener {} failed", rank, l, e);
        }
    }

    /** The distinct transport names to peers, sorted and joined by {@code +}; {@code self} when there are none. */
    static String transportTag(String[] transportNames) {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        for (String n : transportNames) {
            if (n != null) {
                names.add(n);
            }
        }
        return names.isEmpty() ? "self" : String.join("+", names);
    }

    /** An operation's size as listeners see it: count × element size, × ranks for the gathering collectives. */
    private long opBytes(OpRequest op) {
        long bytes = op.count * PlanLauncher.elementBytes(op);
        if (op.kind == OpKind.ALL_GATHER || op.kind == OpKind.REDUCE_SCATTER || op.kind == OpKind.ALL_TO_ALL) {
            bytes *= size;
        }
        return bytes;
    }
}
