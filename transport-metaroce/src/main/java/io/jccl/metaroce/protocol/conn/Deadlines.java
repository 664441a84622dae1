package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.path.PathHealth;
import io.jccl.metaroce.protocol.path.ReceiverPath;
import io.jccl.metaroce.protocol.path.SenderPath;

/**
 * Every deadline of one connection, in one {@link Timers}, so that the driver's question "when next?" costs no scan
 * of the paths: which slot holds what, and which paths' slots must be taken again. A path's deadlines are derived from
 * it only when something touched it ({@link #pathChanged}); the connection's own slots it sets itself, every time.
 * {@link #scanPathsNs} derives the paths' earliest afresh, for the check (with assertions on) that the timers agree.
 * Single-threaded; allocates nothing.
 */
final class Deadlines {
    /** Slots per path: its retransmission timeout, probe, delayed ACK, silence verdict and tail probe. */
    private static final int PATH_SLOTS = 5;
    private static final int RTO = 0;
    private static final int PROBE = 1;
    private static final int ACK = 2;
    private static final int SILENCE = 3;
    private static final int TAIL = 4;
    // Connection slots, after the paths'.
    static final int HANDSHAKE = 0;
    static final int PACING = 1;
    static final int PEER_SILENCE = 2;
    static final int CLOSING = 3;
    static final int CONTROL_DUE = 4;
    private static final int CONNECTION_SLOTS = 5;

    private final EndpointConfig config;
    private final SenderPath[] tx;
    private final ReceiverPath[] rx;
    private final PathHealth health;
    private final Timers timers;
    /** {@link Connection#lazyAckDelayNs} of this connection's settings. */
    private final long lazyAckDelay;
    /** Paths (bit per index) whose deadlines may have changed since the timers last took them. */
    private long pathsChanged;
    /** All paths' bits. */
    private final long allPaths;
    /** Some path's silence deadline is set in the timers. */
    private boolean silenceArmed;
    /** Every path has a round trip of its own: no tail probe hangs on the siblings' any more. */
    private boolean everyPathTimed;

    /**
     * @param config       the endpoint's settings
     * @param tx           the connection's sending paths
     * @param rx           its receiving paths
     * @param health       its path health (silence deadlines, the best sibling round trip)
     * @param lazyAckDelay how long a lazy ACK may wait ({@link Connection#lazyAckDelayNs})
     */
    Deadlines(EndpointConfig config, SenderPath[] tx, ReceiverPath[] rx, PathHealth health, long lazyAckDelay) {
        this.config = config;
        this.tx = tx;
        this.rx = rx;
        this.health = health;
        this.timers = new Timers(tx.length * PATH_SLOTS + CONNECTION_SLOTS);
        this.lazyAckDelay = lazyAckDelay;
        this.allPaths = tx.length == 64 ? -1L : (1L << tx.length) - 1;
        this.pathsChanged = allPaths;
    }

    /** Path {@code index}'s state changed: its deadlines are taken again before the next question. */
    void pathChanged(int index) {
        pathsChanged |= 1L << index;
    }

    /** Every path's state may have changed. */
    void allPathsChanged() {
        pathsChanged = allPaths;
    }

    /** Sets connection slot {@code slot} ({@link #HANDSHAKE} to {@link #CONTROL_DUE}); {@link Timers#NONE}: none. */
    void set(int slot, long atNs) {
        timers.set(tx.length * PATH_SLOTS + slot, atNs);
    }

    /** @return the earliest deadline of all slots, {@link Timers#NONE} when nothing is pending */
    long earliestNs() {
        return timers.earliestNs();
    }

    /** @return whether a path's deadline, as last taken, is at or before {@code nowNs} */
    boolean anyPathDue(long nowNs) {
        return timers.anyDue(0, tx.length * PATH_SLOTS, nowNs);
    }

    /** Puts the deadlines of the paths that may have changed into the timers. */
    void takePaths() {
        if (pathsChanged == 0) {
            return;
        }
        long changed = pathsChanged;
        pathsChanged = 0;
        while (changed != 0) {
            int p = Long.numberOfTrailingZeros(changed);
            changed &= changed - 1;
            int at = p * PATH_SLOTS;
            timers.set(at + RTO, tx[p].rtoDeadlineNs(config));
            timers.set(at + PROBE, tx[p].probeDueNs());
            timers.set(at + ACK, rx[p].ackDueNs());
            if (tx[p].hasRtt()) {
                timers.set(at + TAIL, tx[p].tailProbeDueNs(lazyAckDelay, Long.MAX_VALUE));
            }
        }
        // A path with no round trip of its own times its tail probe by its siblings' best, which any path's
        // change may move; once every path has a sample of its own (they keep it), this costs nothing.
        if (!everyPathTimed) {
            long siblingRttNs = health.bestActiveRttNs();
            boolean all = true;
            for (SenderPath p : tx) {
                // A path gets its first sample from an ACK or probe reply, which marks it changed: the loop
                // above then took its slot with its own round trip.
                if (!p.hasRtt()) {
                    all = false;
                    timers.set(p.index * PATH_SLOTS + TAIL, p.tailProbeDueNs(lazyAckDelay, siblingRttNs));
                }
            }
            everyPathTimed = all;
        }
        // A silence deadline hangs on the best sibling's round trip: any path's change may move every one.
        if (health.anySuspect() || silenceArmed) {
            long siblingRttNs = health.anySuspect() ? health.bestActiveRttNs() : Long.MAX_VALUE;
            for (SenderPath p : tx) {
                timers.set(p.index * PATH_SLOTS + SILENCE, health.anySuspect()
                        ? health.silenceDeadlineNs(p, siblingRttNs) : Timers.NONE);
            }
            silenceArmed = health.anySuspect();
        }
    }

    /**
     * @return the earliest deadline of the paths derived from their state afresh, every path looked at: what the
     *         timers hold for them, and must agree with
     */
    long scanPathsNs() {
        long next = Long.MAX_VALUE;
        for (int i = 0; i < tx.length; i++) {
            next = Math.min(next, tx[i].rtoDeadlineNs(config));
            next = Math.min(next, tx[i].probeDueNs());
            next = Math.min(next, rx[i].ackDueNs());
            next = Math.min(next, tx[i].tailProbeDueNs(lazyAckDelay, health.bestActiveRttNs()));
        }
        if (health.anySuspect()) {
            long siblingRttNs = health.bestActiveRttNs();
            for (SenderPath p : tx) {
                next = Math.min(next, health.silenceDeadlineNs(p, siblingRttNs));
            }
        }
        return next;
    }
}
