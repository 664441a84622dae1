package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.Engine;
import io.jccl.metaroce.protocol.TransmitSink;
import org.agrona.DirectBuffer;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * A deterministic discrete-event simulator that drives protocol {@link Engine}s over a simulated {@link Fabric}.
 *
 * <p>Time is virtual (nanoseconds, starting at 0); nothing reads a clock. Events sit in an {@link EventQueue}
 * ordered by time, then by the order they were scheduled, so a run is a pure function of its inputs and the seed:
 * the same seed gives the same event sequence, which {@link #traceHash()} summarizes.
 *
 * <p>Nodes are engines identified by a long node id, which is also how they name each other (the {@code source}
 * of {@link Engine#onDatagram} and the {@code destination} of {@link TransmitSink#transmit}). The driving rule for a
 * node: hand it each datagram the fabric delivers ({@code onDatagram}) and call {@code onTimeout(now)} when its
 * {@code nextTimeoutNs()} comes; after each such interaction (and after {@link #wake}) call its
 * {@link NodeListener}, drain {@code pollTransmit(now, sink)} into the fabric, and re-read {@code nextTimeoutNs()}:
 * when it changed, a new timer event is scheduled under a new per-node generation, so the old one, still queued,
 * is discarded when it comes up (without moving the clock or counting as an event).
 *
 * <p>A node can be <b>stalled</b> for a window of virtual time ({@link #stall}), as a descheduled process or a
 * garbage-collection pause would be: it is not driven at all (deliveries to it and its timers wait), then at the end
 * of the window it is driven with its clock jumped: first its overdue timers, as a driver does that finds them due
 * before it has drained its sockets, then everything that arrived meanwhile, in arrival order.
 *
 * <p>Nothing is allocated per event or per packet once queues and pools have grown to their working size.
 * A simulator is not thread-safe; one thread runs it.
 */
public final class Simulator {
    static final int K_ROUTE = 0;
    static final int K_PORT = 1;
    static final int K_DELIVER = 2;
    static final int K_TIMER = 3;
    static final int K_ACTION = 4;
    static final int K_WAKE = 5;
    static final int K_FLUSH = 6;
    static final int K_STALL_END = 7;
    /** Event arguments are 30-bit fields. */
    static final int ARG_MASK = (1 << 30) - 1;

    /** Default for {@link #livelockEvents}: a million events at one virtual nanosecond. */
    public static final long DEFAULT_LIVELOCK_EVENTS = 1_000_000;

    private final long seed;
    private final EventQueue queue = new EventQueue(4096);
    private final Fabric fabric;

    private int nodeCount;
    private Engine[] engines = new Engine[0];
    private NodeListener[] listeners = new NodeListener[0];
    private NodeSink[] sinks = new NodeSink[0];
    private long[] scheduledTimeoutNs = new long[0];
    private int[] timerGeneration = new int[0];

    /** Per node: stall windows as {from, until} pairs, sorted and disjoint; the first not yet over; how many. */
    private long[][] stallWindows = new long[0][];
    private int[] stallCursor = new int[0];
    private int[] stallCount = new int[0];
    private boolean anyStall;

    private Runnable[] actions = new Runnable[16];
    private int[] freeActions = new int[16];
    private int freeActionCount;
    private int actionCount;

    private long nowNs;
    private long events;
    private long traceHash = 0x6A09E667F3BCC909L;
    private long livelockEvents = DEFAULT_LIVELOCK_EVENTS;

    /**
     * @param fabric the fabric's shape and impairments
     * @param seed   the seed of every random choice the fabric makes
     */
    public Simulator(FabricConfig fabric, long seed) {
        this.seed = seed;
        this.fabric = new Fabric(Objects.requireNonNull(fabric, "fabric"), seed, queue);
    }

    /** @return the seed */
    public long seed() {
        return seed;
    }

    /** @return the fabric (to add impairments, black holes, observers, and read counters) */
    public Fabric fabric() {
        return fabric;
    }

    /** @return the virtual time */
    public long nowNs() {
        return nowNs;
    }

    /** @return events processed so far, over all runs */
    public long events() {
        return events;
    }

    /** @return events waiting */
    public int pendingEvents() {
        return queue.size();
    }

    /**
     * @return a hash of every event processed so far (time, kind and arguments, in order): equal for equal runs
     */
    public long traceHash() {
        return traceHash;
    }

    /**
     * Sets how many events in a row at one virtual instant count as a livelock ({@link StopReason#LIVELOCK}).
     */
    public void livelockEvents(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("livelock limit " + n + " must be >= 1");
        }
        livelockEvents = n;
    }

    /**
     * Adds a node.
     *
     * @param nodeId   its id, unique
     * @param engine   its protocol engine
     * @param listener called after every interaction with it (e.g. to poll completions and post work)
     */
    public void addNode(long nodeId, Engine engine, NodeListener listener) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(listener, "listener");
        int idx = fabric.addNode(nodeId);
        if (idx >= ARG_MASK) {
            throw new IllegalStateException("too many nodes");
        }
        nodeCount = idx + 1;
        engines = Arrays.copyOf(engines, nodeCount);
        listeners = Arrays.copyOf(listeners, nodeCount);
        sinks = Arrays.copyOf(sinks, nodeCount);
        scheduledTimeoutNs = Arrays.copyOf(scheduledTimeoutNs, nodeCount);
        timerGeneration = Arrays.copyOf(timerGeneration, nodeCount);
        stallWindows = Arrays.copyOf(stallWindows, nodeCount);
        stallCursor = Arrays.copyOf(stallCursor, nodeCount);
        stallCount = Arrays.copyOf(stallCount, nodeCount);
        stallWindows[idx] = new long[0];
        engines[idx] = engine;
        listeners[idx] = listener;
        sinks[idx] = new NodeSink(idx);
        scheduledTimeoutNs[idx] = Long.MAX_VALUE;
    }

    /** Adds a node without a listener. */
    public void addNode(long nodeId, Engine engine) {
        addNode(nodeId, engine, NodeListener.NONE);
    }

    /**
     * Schedules an interaction with a node at the current instant (after the events already queued for it): its
     * listener runs, its packets are collected and its timer re-read. Call it after posting work to its engine from
     * outside the node's listener.
     */
    public void wake(long nodeId) {
        int idx = fabric.indexOrMinus(nodeId);
        if (idx < 0) {
            throw new IllegalArgumentException("no node " + nodeId);
        }
        queue.push(nowNs, event(K_WAKE, idx, 0));
    }

    /**
     * Stalls a node from {@code fromNs} for {@code durationNs}: during the window it is not driven (what the fabric
     * delivers to it and its timers wait, it sends nothing), then it is driven at the window's end with its clock
     * jumped there: its overdue timers first, then what arrived, in arrival order. Models a host that descheduled the
     * driver's process, a long garbage-collection pause, or a caller that stopped polling.
     *
     * @param nodeId     the node
     * @param fromNs     when the stall starts, not before now
     * @param durationNs how long it lasts, more than 0
     * @throws IllegalArgumentException when the node is unknown, the window is empty, starts in the past or overlaps
     *                                  another stall of the node
     */
    public void stall(long nodeId, long fromNs, long durationNs) {
        int idx = fabric.indexOrMinus(nodeId);
        if (idx < 0) {
            throw new IllegalArgumentException("stall: no node " + nodeId);
        }
        if (durationNs <= 0 || fromNs < nowNs || fromNs > Long.MAX_VALUE - durationNs) {
            throw new IllegalArgumentException("stall of node " + nodeId + ": the window from " + fromNs + " ns for "
                    + durationNs + " ns must start no earlier than now (" + nowNs + " ns) and last more than 0 ns");
        }
        long untilNs = fromNs + durationNs;
        long[] w = stallWindows[idx];
        int n = stallCount[idx];
        int at = n;
        for (int i = n - 1; i >= stallCursor[idx] && w[2 * i] > fromNs; i--) {
            at = i;
        }
        if ((at > 0 && w[2 * at - 1] > fromNs) || (at < n && w[2 * at] < untilNs)) {
            int other = at > 0 && w[2 * at - 1] > fromNs ? at - 1 : at;
            throw new IllegalArgumentException("stall of node " + nodeId + " [" + fromNs + ", " + untilNs
                    + ") ns overlaps its stall [" + w[2 * other] + ", " + w[2 * other + 1] + ") ns");
        }
        if (2 * n == w.length) {
            w = Arrays.copyOf(w, Math.max(4, 2 * w.length));
            stallWindows[idx] = w;
        }
        System.arraycopy(w, 2 * at, w, 2 * at + 2, 2 * (n - at));
        w[2 * at] = fromNs;
        w[2 * at + 1] = untilNs;
        stallCount[idx] = n + 1;
        anyStall = true;
        queue.push(untilNs, event(K_STALL_END, idx, 0));
    }

    /** @return when the stall of {@code node} that covers {@code t} ends, or {@code t} when none does */
    private long stalledUntil(int node, long t) {
        if (!anyStall) {
            return t;
        }
        long[] w = stallWindows[node];
        int c = stallCursor[node];
        int n = stallCount[node];
        while (c < n && w[2 * c + 1] <= t) {
            c++;
        }
        stallCursor[node] = c;
        return c < n && w[2 * c] <= t ? w[2 * c + 1] : t;
    }

    /**
     * Runs {@code action} at virtual time {@code atNs} (not earlier than now). An action that posts work to a node
     * should {@link #wake} it.
     */
    public void schedule(long atNs, Runnable action) {
        Objects.requireNonNull(action, "action");
        int slot;
        if (freeActionCount > 0) {
            slot = freeActions[--freeActionCount];
        } else {
            if (actionCount == actions.length) {
                actions = Arrays.copyOf(actions, actionCount * 2);
                freeActions = Arrays.copyOf(freeActions, actionCount * 2);
            }
            slot = actionCount++;
        }
        actions[slot] = action;
        queue.push(Math.max(atNs, nowNs), event(K_ACTION, slot, 0));
    }

    /**
     * Processes events until {@code done} holds, no event is left, {@code maxEvents} were processed, or the next
     * event lies after {@code untilNs} (then the clock is set to {@code untilNs}, so a later run goes on from there).
     *
     * @param done      the stop condition, checked before every event; null to run until nothing is left
     * @param maxEvents most events to process in this run
     * @param untilNs   virtual-time limit
     * @return why it stopped
     */
    public RunResult run(BooleanSupplier done, long maxEvents, long untilNs) {
        long processed = 0;
        long sameInstant = 0;
        EventQueue q = queue;
        while (true) {
            if (done != null && done.getAsBoolean()) {
                return new RunResult(StopReason.DONE, nowNs, processed);
            }
            if (q.isEmpty()) {
                return new RunResult(done == null ? StopReason.IDLE : StopReason.STUCK, nowNs, processed);
            }
            if (processed >= maxEvents) {
                return new RunResult(StopReason.EVENT_BUDGET, nowNs, processed);
            }
            long p = q.peekPayload();
            if ((int) (p >>> 60) == K_TIMER
                    && ((int) p & ARG_MASK) != (timerGeneration[(int) (p >>> 30) & ARG_MASK] & ARG_MASK)) {
                q.pop(); // a superseded timer: discarded without moving the clock or counting as an event
                continue;
            }
            long t = q.peekTimeNs();
            if (t > untilNs) {
                nowNs = Math.max(nowNs, untilNs);
                return new RunResult(StopReason.TIME_LIMIT, nowNs, processed);
            }
            q.pop();
            if (t == nowNs) {
                if (++sameInstant > livelockEvents) {
                    return new RunResult(StopReason.LIVELOCK, nowNs, processed);
                }
            } else {
                sameInstant = 0;
                nowNs = t;
            }
            processed++;
            events++;
            long h = (traceHash ^ t) * 0x9E3779B97F4A7C15L;
            h = (h ^ p) * 0xC2B2AE3D27D4EB4FL;
            traceHash = h ^ (h >>> 29);
            dispatch(t, p);
        }
    }

    /**
     * Runs until {@code done} holds or nothing is left, within generous limits.
     *
     * @return why it stopped
     */
    public RunResult runUntil(BooleanSupplier done, long untilNs) {
        return run(done, Long.MAX_VALUE, untilNs);
    }

    private void dispatch(long t, long p) {
        int kind = (int) (p >>> 60);
        int a = (int) (p >>> 30) & ARG_MASK;
        int b = (int) p & ARG_MASK;
        switch (kind) {
            case K_ROUTE -> fabric.arriveAtRoute(a, t);
            case K_PORT -> fabric.arriveAtPort(a, t);
            case K_DELIVER -> {
                long until = stalledUntil(fabric.pool.destinationNode[a], t);
                if (until > t) {
                    queue.push(until, p);   // waits, in arrival order, until the node runs again
                } else {
                    deliver(a, t);
                }
            }
            case K_TIMER -> {
                long until = stalledUntil(a, t);
                if (until > t) {
                    queue.push(until, p);
                } else {
                    scheduledTimeoutNs[a] = Long.MAX_VALUE; // run() let only the current generation through
                    engines[a].onTimeout(t);
                    interact(a, t);
                }
            }
            case K_STALL_END -> {
                if (stalledUntil(a, t) == t) {   // unless another stall starts right here
                    // Timers first, then the datagrams that waited (queued at this instant after this event).
                    timerGeneration[a] = (timerGeneration[a] + 1) & ARG_MASK;
                    scheduledTimeoutNs[a] = Long.MAX_VALUE;
                    if (engines[a].nextTimeoutNs() <= t) {
                        engines[a].onTimeout(t);
                    }
                    interact(a, t);
                }
            }
            case K_ACTION -> {
                Runnable r = actions[a];
                actions[a] = null;
                freeActions[freeActionCount++] = a;
                r.run();
            }
            case K_WAKE -> {
                long until = stalledUntil(a, t);
                if (until > t) {
                    queue.push(until, p);
                } else {
                    interact(a, t);
                }
            }
            case K_FLUSH -> fabric.flushHeld(a, b, t);
            default -> throw new IllegalStateException("unknown event kind " + kind);
        }
    }

    private void deliver(int h, long t) {
        PacketPool pl = fabric.pool;
        fabric.countDelivery(h, t);
        int dst = pl.destinationNode[h];
        try {
            engines[dst].onDatagram(t, fabric.nodeId(pl.sourceNode[h]), pl.pathIndex[h], pl.buffer(h), pl.offset(h),
                    pl.length[h], (pl.flags[h] & PacketPool.FLAG_ECN) != 0);
        } finally {
            pl.release(h);
        }
        interact(dst, t);
    }

    private void interact(int node, long t) {
        listeners[node].onStep(t);
        Engine e = engines[node];
        e.pollTransmit(t, sinks[node]);
        long next = e.nextTimeoutNs();
        if (next != scheduledTimeoutNs[node]) {
            int gen = (timerGeneration[node] + 1) & ARG_MASK;
            timerGeneration[node] = gen;
            scheduledTimeoutNs[node] = next;
            if (next != Long.MAX_VALUE) {
                queue.push(Math.max(next, t), event(K_TIMER, node, gen));
            }
        }
    }

    static long event(int kind, int a, int b) {
        return ((long) kind << 60) | ((long) a << 30) | b;
    }

    /** The sink of one node: knows the sender, forwards to the fabric. */
    private final class NodeSink implements TransmitSink {
        private final int node;

        NodeSink(int node) {
            this.node = node;
        }

        @Override
        public void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length) {
            fabric.transmit(node, destination, pathIndex, buffer, offset, length, nowNs);
        }

        @Override
        public void reroute(long destination, int pathIndex, int generation) {
            fabric.reroute(node, destination, pathIndex, generation, nowNs);
        }
    }
}
