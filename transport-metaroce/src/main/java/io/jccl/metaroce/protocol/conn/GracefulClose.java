package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.wire.CloseFlyweight;

/**
 * How one connection ends (docs/metaroce-wire.md, "Closing"): the graceful close's state machine (this side
 * draining, the peer drained, who confirmed whom, when the CLOSE (DRAINED) is repeated and when the peer's silence
 * stands in for its answer), the CLOSE this side owes the peer, whatever its reason, and why the connection closed.
 *
 * <p>It decides and remembers; the connection acts on what it says: it completes the pending work and marks itself
 * closed when {@link #check} or {@link #onPeerClose} says so, and sends the CLOSE when {@link #closeDue()}. So the
 * rules of the close live in one place, apart from the connection's state, which they only read. Single-threaded;
 * allocates nothing until the connection closes (the cause's text).
 */
final class GracefulClose {
    /** What a CLOSE from the peer asks of the connection ({@link #onPeerClose}). */
    enum PeerClose {
        /** Not graceful: close at once, completing everything pending as closed. */
        ABORT,
        /** Nothing to do now. */
        IGNORE,
        /** The peer newly said it sends nothing more: the receives still posted complete now, then {@link #CHECK}. */
        PEER_DONE,
        /** See whether the close can progress ({@link #check}). */
        CHECK
    }

    /** Attempts before a draining side may take the peer's silence for an answer (each may be lost). */
    private static final int MIN_DRAINED_ATTEMPTS = 4;

    private final EndpointConfig config;
    private final Counters counters;

    /** A CLOSE is owed to the peer. */
    private boolean closeDue;
    /** The reason the due CLOSE carries. */
    private int closeReason = CloseFlyweight.REASON_CLOSED;
    private String cause = "open";

    // Graceful close: see Connection.shutdown() and Connection.onClose().
    /** This side asked to close once everything it sent is acknowledged. */
    private boolean draining;
    /** The peer said everything it sent was acknowledged and it sends nothing new. */
    private boolean peerDrained;
    /** The peer confirmed this side's graceful close: nothing to answer. */
    private boolean peerConfirmed;
    /** Closed gracefully: a repeated CLOSE (DRAINED) from the peer is answered again (ours was lost). */
    private boolean closedDrained;
    /** When this draining side repeats its CLOSE (DRAINED), until the peer's answer comes. */
    private long drainedCloseDueNs = Long.MAX_VALUE;
    private long drainedCloseIntervalNs;
    /** When this draining side first told the peer it is drained. */
    private long drainedSinceNs = Long.MAX_VALUE;
    /** How often it told the peer so far. */
    private int drainedAttempts;
    /** When anything of this connection last arrived from the peer. */
    private long lastHeardNs;

    /**
     * @param config   the endpoint's settings
     * @param counters where graceful closes are counted
     * @param nowNs    the clock (the peer counts as heard from now)
     */
    GracefulClose(EndpointConfig config, Counters counters, long nowNs) {
        this.config = config;
        this.counters = counters;
        this.lastHeardNs = nowNs;
    }

    /** @return whether this side is closing gracefully */
    boolean draining() {
        return draining;
    }

    /** @return whether the peer said it sends nothing more */
    boolean peerDrained() {
        return peerDrained;
    }

    /** @return whether new work is refused: this side closes gracefully, or the peer said it sends nothing more */
    boolean refusesWork() {
        return draining || peerDrained;
    }

    /** Something arrived from the peer: a graceful close waits for its silence when the confirmation does not come. */
    void heard(long nowNs) {
        lastHeardNs = nowNs;
    }

    /**
     * This side starts closing gracefully (see {@code Connection.shutdown}).
     *
     * @param bestRttNs the best active round trip, {@link Long#MAX_VALUE} when none has been measured
     */
    void startDraining(long bestRttNs) {
        draining = true;
        // Repeated like a retransmission: twice the best round trip, or the first RTO before any sample.
        drainedCloseIntervalNs = Math.min(config.rtoMaxNs(), bestRttNs == Long.MAX_VALUE ? 4 * config.rtoFloorNs()
                : Math.max(config.rtoFloorNs(), 2 * bestRttNs));
    }

    /**
     * The graceful close's progress on an established connection: once this side has nothing unacknowledged, it
     * tells the peer (when it is the one closing, repeating until the peer answers) or answers the peer's CLOSE and
     * closes.
     *
     * @param unacknowledged messages this side sent that are not acknowledged yet
     * @return whether the connection closes now
     */
    boolean check(long nowNs, int unacknowledged) {
        if (!(draining || peerDrained) || unacknowledged > 0) {
            return false;
        }
        if (peerDrained) {
            cause = draining ? "closed by both sides, everything delivered"
                    : "the peer closed it, everything delivered both ways";
            closedDrained = true;
            counters.increment(Counter.CONNECTIONS_CLOSED_DRAINED);
            if (!peerConfirmed) {
                closeDue = true;   // confirm: the peer waits for it to stop acknowledging
                closeReason = CloseFlyweight.REASON_DRAINED_CONFIRM;
            }
            return true;
        }
        if (drainedAttempts >= MIN_DRAINED_ATTEMPTS && nowNs - quietUntilNs() >= 0) {
            // No confirmation, and silence far longer than the peer's longest retransmission interval: the peer
            // needs nothing more from this side (else it would still be sending), or it is gone (its confirmation
            // lost before it closed). Everything this side sent was acknowledged.
            cause = "closed by this side, everything delivered; the peer did not confirm and was silent for "
                    + (nowNs - Math.max(lastHeardNs, drainedSinceNs)) / 1_000_000 + " ms";
            closedDrained = true;
            counters.increment(Counter.CONNECTIONS_CLOSED_DRAINED);
            return true;
        }
        if (drainedCloseDueNs == Long.MAX_VALUE || nowNs - drainedCloseDueNs >= 0) {
            if (drainedSinceNs == Long.MAX_VALUE) {
                drainedSinceNs = nowNs;
            }
            closeDue = true;
            closeReason = CloseFlyweight.REASON_DRAINED;
            drainedAttempts++;
            counters.increment(Counter.DRAINED_CLOSES_SENT);
            drainedCloseDueNs = nowNs + drainedCloseIntervalNs;
            drainedCloseIntervalNs = Math.min(2 * drainedCloseIntervalNs, Math.max(config.rtoMaxNs(),
                    config.rtoFloorNs()));
        }
        return false;
    }

    /**
     * The peer sent a CLOSE (see {@code Connection.onClose}).
     *
     * @param reason its reason
     * @param state  the connection's state
     * @return what the connection does about it
     */
    PeerClose onPeerClose(int reason, Connection.State state) {
        boolean drained = reason == CloseFlyweight.REASON_DRAINED;
        boolean confirm = reason == CloseFlyweight.REASON_DRAINED_CONFIRM;
        if (!drained && !confirm) {
            if (state != Connection.State.CLOSED) {
                cause = "the peer closed it (reason " + reason + ")";
            }
            return PeerClose.ABORT;
        }
        if (state == Connection.State.CLOSED) {
            if (drained && closedDrained) {
                closeDue = true;   // our confirmation was lost: the peer asks again
                closeReason = CloseFlyweight.REASON_DRAINED_CONFIRM;
            }
            // A confirmation is never answered: two closed sides must not keep answering each other.
            return PeerClose.IGNORE;
        }
        if (state != Connection.State.ESTABLISHED || (confirm && !draining)) {
            return PeerClose.IGNORE;   // a confirmation of a close this side never asked for
        }
        peerConfirmed |= confirm;
        if (!peerDrained) {
            peerDrained = true;
            return PeerClose.PEER_DONE;   // the peer said nothing more will come
        }
        return PeerClose.CHECK;
    }

    /** This side closes at once (see {@code Connection.close}): the peer is told, once. */
    void closeAtOnce() {
        owe(CloseFlyweight.REASON_CLOSED, draining ? "closed by this side before everything it sent was acknowledged"
                : "closed by this side");
    }

    /**
     * A CLOSE of that reason ({@code CloseFlyweight.REASON_*}) is owed to the peer; the connection closes for that
     * cause.
     */
    void owe(int reason, String cause) {
        this.cause = cause;
        closeReason = reason;
        closeDue = true;
    }

    /** The connection closes for that cause (nothing owed to the peer). */
    void closedBecause(String cause) {
        this.cause = cause;
    }

    /** @return whether a CLOSE is owed to the peer */
    boolean closeDue() {
        return closeDue;
    }

    /** @return the reason the owed CLOSE carries ({@code CloseFlyweight.REASON_*}) */
    int closeReason() {
        return closeReason;
    }

    /** The owed CLOSE was sent. */
    void closeSent() {
        closeDue = false;
    }

    /** @return why the connection closed, for diagnostics ("open" while it is not closed) */
    String cause() {
        return cause;
    }

    /**
     * @param unacknowledged messages this side sent that are not acknowledged yet
     * @return when {@link #check} has something to do next: the repeat of this draining side's CLOSE (DRAINED), or
     *         once enough were sent, the end of the peer's silence; {@link Long#MAX_VALUE} while not draining or
     *         something is unacknowledged
     */
    long deadlineNs(int unacknowledged) {
        if (!draining || unacknowledged != 0) {
            return Long.MAX_VALUE;
        }
        return drainedAttempts >= MIN_DRAINED_ATTEMPTS ? Math.min(drainedCloseDueNs, quietUntilNs())
                : drainedCloseDueNs;
    }

    /**
     * @return when a draining side that told the peer it is drained stops waiting for the confirmation: twice the
     *         longest retransmission interval after the later of its first CLOSE and the last thing heard
     */
    private long quietUntilNs() {
        return Math.max(lastHeardNs, drainedSinceNs) + 2 * config.rtoMaxNs();
    }
}
