package io.jccl.metaroce.protocol.path;

import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.EndpointConfig;

/**
 * The health of one connection's sending paths and of the peer behind them: which paths are suspect, failed or
 * due for another route, and whether the peer has been silent for too long. Its verdicts need evidence, not a
 * timeout alone: a path fails only once the peer is known to have answered a packet sent after the path's oldest
 * unanswered one (a sibling's ACK or probe reply echoing a later send time) and the path then stayed silent for a
 * grace period (two round trips plus the delayed-ACK time), or after {@code failAfterRtos} timeouts in a row with
 * such evidence. A stalled peer makes every path time out at once with no such evidence: the paths stay suspect and
 * keep retransmitting with backoff. While nothing sent is answered on any path for a quarter of
 * {@code connectionDeadNs}, one path at a time is moved to a new route every {@code rtoMaxNs} (a scout, in case every
 * route in use broke at once); after {@code connectionDeadNs} with nothing at all received from the peer while
 * waiting for an answer, the connection is to fail ({@link #silenceLimitPassed}).
 *
 * <p>Driven by its connection, which owns the paths' packets: verdicts that give packets up tell it through its
 * {@link Owner}. Single-threaded; allocates nothing.
 */
public final class PathHealth {
    /** The connection (its sending side, which keeps the packets' messages), told which packets verdicts give up. */
    public interface Owner extends SenderPath.AckVisitor {
        /** @return how many retransmissions are queued now (the verdicts count those they add) */
        int retransmissionsQueued();
    }

    /** A time not set. */
    private static final long NEVER = Long.MIN_VALUE;

    private final EndpointConfig config;
    private final Counters counters;
    private final SenderPath[] tx;
    private final boolean[] rerouteDue;
    /** The latest send time of ours the peer echoed (in an ACK or probe reply): it received what was sent then. */
    private long latestEchoNs = NEVER;
    /** When the first packet wanting an answer went out since the peer was last heard from at all, or NEVER. */
    private long silentSinceNs = NEVER;
    /** When the first packet wanting an answer went out since the peer last answered one of ours, or NEVER. */
    private long unansweredSinceNs = NEVER;
    private long lastScoutNs = NEVER;
    private int scoutCursor;
    /** Whether a path may be suspect (so that evidence against suspect paths must be looked for). */
    private boolean anySuspect;

    /**
     * @param config   the endpoint's settings
     * @param counters where verdicts are counted
     * @param tx       the connection's sending paths
     */
    public PathHealth(EndpointConfig config, Counters counters, SenderPath[] tx) {
        this.config = config;
        this.counters = counters;
        this.tx = tx;
        this.rerouteDue = new boolean[tx.length];
    }

    /** @return whether a path may be suspect (then silence deadlines may be pending) */
    public boolean anySuspect() {
        return anySuspect;
    }

    /**
     * @return whether path {@code index} was moved to a new route that the driver has not been told of yet; the
     *         question clears it
     */
    public boolean takeRerouteDue(int index) {
        boolean due = rerouteDue[index];
        rerouteDue[index] = false;
        return due;
    }

    // ---- The peer's answers and silence ----

    /** A packet that wants an answer (DATA, probe) goes out: the silence clocks start if they are not running. */
    public void awaitAnswer(long nowNs) {
        if (silentSinceNs == NEVER) {
            silentSinceNs = nowNs;
        }
        if (unansweredSinceNs == NEVER) {
            unansweredSinceNs = nowNs;
        }
    }

    /** Something authenticated arrived from the peer: it is alive, so the silence that fails a connection starts over. */
    public void heard() {
        silentSinceNs = NEVER;
    }

    /** The peer answered without echoing a time of ours (a receiver-not-ready answer): it got our packets. */
    public void answeredWithoutEcho() {
        unansweredSinceNs = NEVER;
    }

    /**
     * The peer answered a send time of ours ({@code echoNs}, from an ACK or probe reply): notes it, and judges each
     * suspect path whose oldest unanswered packet was sent before it. Sent at most one timeout (without backoff)
     * before: the network treated the two alike, so the silence is evidence against the path. Sent longer before
     * (every path timed out through an outage or a stalled peer, and the answer is to something sent since): the
     * path's packets are taken as lost and sent again at once, and it is judged by those.
     *
     * @return retransmissions this queued (of packets given up, as after a timeout)
     */
    public int answered(long nowNs, long echoNs, Owner owner) {
        if (echoNs - nowNs > 0) {
            return 0;   // not a time of ours: from the future
        }
        if (latestEchoNs == NEVER || echoNs - latestEchoNs > 0) {
            latestEchoNs = echoNs;
        }
        if (unansweredSinceNs != NEVER && echoNs - unansweredSinceNs >= 0) {
            unansweredSinceNs = NEVER;
        }
        if (!anySuspect) {
            return 0;
        }
        int retransmits = 0;
        boolean suspects = false;
        for (SenderPath p : tx) {
            if (p.state() == PathState.SUSPECT) {
                suspects = true;
                long oldestNs = p.oldestSentNs();
                if (oldestNs == Long.MAX_VALUE || latestEchoNs - oldestNs < 0) {
                    continue;
                }
                if (latestEchoNs - oldestNs <= p.baseRtoNs(config)) {
                    p.noteEvidence(nowNs);
                } else if (p.evidenceNs() == SenderPath.NO_EVIDENCE) {
                    int before = owner.retransmissionsQueued();
                    p.retest(nowNs, owner);
                    retransmits += owner.retransmissionsQueued() - before;
                }
            }
        }
        anySuspect = suspects;
        return retransmits;
    }

    /** @return whether the peer answered something this side sent at or after {@code sentNs} */
    private boolean answeredSince(long sentNs) {
        return latestEchoNs != NEVER && latestEchoNs - sentNs >= 0;
    }

    // ---- Verdicts when timers fall due ----

    /**
     * Runs the paths' due timers: silence verdicts, retransmission timeouts, and another route for a failed path
     * whose probes go unanswered while the peer answers its siblings.
     *
     * @return retransmissions the timeouts queued
     */
    public int judgePaths(long nowNs, Owner owner) {
        int retransmits = 0;
        long siblingRttNs = anySuspect ? bestActiveRttNs() : Long.MAX_VALUE;
        for (SenderPath p : tx) {
            if (due(silenceDeadlineNs(p, siblingRttNs), nowNs)) {
                // The peer answered later packets on other paths and this one stayed silent: no need to wait for
                // another (backed-off) timeout.
                p.failSilent(nowNs, owner);
                failed(p);
            }
            if (due(p.rtoDeadlineNs(config), nowNs)) {
                counters.increment(Counter.RTO_FIRINGS);
                int before = owner.retransmissionsQueued();
                PathState previous = p.state();
                long evidenceNs = p.evidenceNs();
                boolean answeredElsewhere = evidenceNs != SenderPath.NO_EVIDENCE
                        && nowNs - evidenceNs >= config.delayedAckNs();
                int inARow = p.onRto(nowNs, owner);
                anySuspect = true;
                if (inARow >= config.failAfterRtos() && answeredElsewhere) {
                    p.fail(nowNs);
                    failed(p);
                } else if (inARow == config.failAfterRtos()) {
                    // Every path silent: a stalled or unreachable peer, not evidence against this path.
                    counters.increment(Counter.PATH_FAILURES_WITHHELD);
                } else if (previous == PathState.ACTIVE) {
                    counters.increment(Counter.PATHS_SUSPECTED);
                }
                retransmits += owner.retransmissionsQueued() - before;
            }
            if (p.state() == PathState.FAILED && due(p.probeDueNs(), nowNs) && p.shouldRerouteAgain()
                    && answeredSince(p.firstUnansweredProbeNs())) {
                // Its probes go unanswered while the peer answers other paths: try another route.
                p.rerouteAgain();
                rerouteDue[p.index] = true;
                counters.increment(Counter.PATHS_REROUTED);
            }
        }
        return retransmits;
    }

    /**
     * Moves the next path in turn to a new route when nothing has been answered on any path for a while.
     *
     * @return whether it did (a path changed)
     */
    public boolean scoutIfDue(long nowNs, Owner owner) {
        if (!due(scoutDueNs(), nowNs)) {
            return false;
        }
        // If every route the paths ride broke at once, no sibling can ever give evidence against one of them.
        SenderPath p = tx[scoutCursor];
        scoutCursor = scoutCursor + 1 == tx.length ? 0 : scoutCursor + 1;
        if (p.state() == PathState.FAILED) {
            p.rerouteAgain();
        } else {
            p.failSilent(nowNs, owner);
            counters.increment(Counter.PATHS_FAILED);
        }
        rerouteDue[p.index] = true;
        counters.increment(Counter.PATHS_REROUTED);
        counters.increment(Counter.PATHS_REROUTED_SILENT);
        lastScoutNs = nowNs;
        return true;
    }

    /** @return whether nothing was heard from the peer for {@code connectionDeadNs} while answers were awaited */
    public boolean silenceLimitPassed(long nowNs) {
        return due(deadlineNs(), nowNs);
    }

    private void failed(SenderPath p) {
        counters.increment(Counter.PATHS_FAILED);
        counters.increment(Counter.PATHS_REROUTED);
        rerouteDue[p.index] = true;
    }

    /**
     * The connection was driven late ({@code gapNs} after its previous call): timers that came due before
     * {@code lateBeforeNs} expired while this host was not running the protocol, so they say nothing about the
     * paths or the peer, whose answers may still be unread. Each such path timer restarts from now (once, until the
     * path makes progress or a timer of it fires), and the stall, beyond the longest timeout, does not count as
     * silence.
     *
     * @return how many path timers were late (0: this connection was not affected)
     */
    public int onLocalStall(long nowNs, long gapNs, long lateBeforeNs) {
        long siblingRttNs = anySuspect ? bestActiveRttNs() : Long.MAX_VALUE;
        int late = 0;
        for (SenderPath p : tx) {
            boolean rtoLate = due(p.rtoDeadlineNs(config), lateBeforeNs);
            if ((rtoLate || due(silenceDeadlineNs(p, siblingRttNs), lateBeforeNs) || due(p.probeDueNs(), lateBeforeNs))
                    && p.restartTimersAfterStall(nowNs)) {
                if (rtoLate) {
                    counters.increment(Counter.RTO_DEFERRED_BY_STALL);
                }
                late++;
            }
        }
        if (late == 0 && !due(deadlineNs(), lateBeforeNs) && !due(scoutDueNs(), lateBeforeNs)) {
            return 0;
        }
        // The silence clocks leave out the stall beyond the longest timeout: a long stall is time not spent listening,
        // while a driver that is merely slow still lets silence add up (a little of every gap counts), so it cannot
        // put off the silence limit for ever.
        long notListenedNs = gapNs - config.rtoMaxNs();
        if (notListenedNs > 0) {
            if (silentSinceNs != NEVER) {
                silentSinceNs = Math.min(nowNs, silentSinceNs + notListenedNs);
            }
            if (unansweredSinceNs != NEVER) {
                unansweredSinceNs = Math.min(nowNs, unansweredSinceNs + notListenedNs);
            }
        }
        return Math.max(1, late);
    }

    // ---- Deadlines ----

    /** @return when the next scout re-route is due, or {@link Long#MAX_VALUE} while answers come */
    public long scoutDueNs() {
        if (unansweredSinceNs == NEVER) {
            return Long.MAX_VALUE;
        }
        long first = unansweredSinceNs + config.connectionDeadNs() / 4;
        return lastScoutNs == NEVER || first - (lastScoutNs + config.rtoMaxNs()) >= 0 ? first
                : lastScoutNs + config.rtoMaxNs();
    }

    /** @return when the connection fails for silence, or {@link Long#MAX_VALUE} while nothing waits for an answer */
    public long deadlineNs() {
        return silentSinceNs == NEVER ? Long.MAX_VALUE : silentSinceNs + config.connectionDeadNs();
    }

    /** @return the smallest smoothed RTT of the active paths, or {@link Long#MAX_VALUE} when none has one */
    public long bestActiveRttNs() {
        long best = Long.MAX_VALUE;
        for (SenderPath p : tx) {
            if (p.state() == PathState.ACTIVE && p.hasRtt()) {
                best = Math.min(best, p.srttNs());
            }
        }
        return best;
    }

    /**
     * When a suspect path's test packets count as unanswered: two round trips (of the best active sibling,
     * {@code siblingRttNs}, else the path's own estimate, else its first timeout) plus the delayed-ACK allowance after
     * they were sent, and at least one round trip plus that allowance after the connection learned that the peer
     * answered a packet sent after them (answers the peer sent together, after a stall of its own, arrive over a
     * while); never without that evidence (the timeout still applies).
     *
     * @return that deadline, {@link Long#MAX_VALUE} when none applies
     */
    public long silenceDeadlineNs(SenderPath p, long siblingRttNs) {
        long evidenceNs = p.evidenceNs();
        long sentNs = p.oldestSentNs();
        if (p.state() != PathState.SUSPECT || evidenceNs == SenderPath.NO_EVIDENCE || sentNs == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long rttNs = siblingRttNs != Long.MAX_VALUE ? siblingRttNs : p.hasRtt() ? p.srttNs() : 4 * config.rtoFloorNs();
        long afterSentNs = sentNs + 2 * rttNs + config.delayedAckNs();
        long afterEvidenceNs = evidenceNs + rttNs + config.delayedAckNs();
        return afterSentNs - afterEvidenceNs >= 0 ? afterSentNs : afterEvidenceNs;
    }

    private static boolean due(long deadlineNs, long nowNs) {
        return deadlineNs != Long.MAX_VALUE && deadlineNs - nowNs <= 0;
    }
}
