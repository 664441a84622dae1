package io.jccl.metaroce.protocol.path;

import io.jccl.metaroce.protocol.EndpointConfig;

/**
 * The sending side of one logical path. PSNs are assigned in order; a ring of 256 slots (one per PSN modulo 256)
 * remembers what each outstanding packet carried, so an ACK can be turned into acknowledged chunks and holes into
 * retransmissions. Everything is primitive arrays: no allocation per packet.
 */
public final class SenderPath {
    /** Size of the outstanding ring (and the SACK window). */
    public static final int WINDOW = EndpointConfig.MAX_OUTSTANDING_PER_PATH;
    private static final double DCTCP_GAIN = 1.0 / 16;
    /**
     * A hole counts as loss once a packet this many PSNs above it was acknowledged: tolerates small reordering
     * inside a path (METAROCE.md's K = 3) while still reacting within a few packet times.
     */
    public static final int REORDER_THRESHOLD = 3;
    private static final int SACK_WORDS = 4;
    /**
     * Packets a suspect path may have in flight: its test. Two, so that one random loss (of a packet or its ACK)
     * does not look like a dead path.
     */
    public static final int SUSPECT_WINDOW = 2;
    /** {@link #evidenceNs()} when there is none. */
    public static final long NO_EVIDENCE = Long.MIN_VALUE;

    public final int index;
    private int generation;
    private PathState state = PathState.ACTIVE;

    // PSN space and outstanding packets.
    private int nextPsn;
    private int outstanding;
    // The ring of outstanding packets (slot = PSN & mask), allocated by the first send and doubled when the PSNs
    // outstanding span more slots, up to WINDOW: the receiving half of a connection never sends DATA on its paths,
    // and most paths never hold WINDOW packets; a simulation of thousands of hosts holds thousands of them.
    private int mask = -1;
    private boolean[] inUse;
    private int[] message;
    private int[] chunk;
    private int[] epoch;
    private int[] bytes;
    private long[] sentNs;
    private int lowestOutstanding;    // PSN of the oldest slot that may be in use
    private long bytesInFlight;

    // RTT and RTO.
    private long srttNs;
    private long rttvarNs;
    private boolean hasRtt;
    private double backoff = 1;
    private int consecutiveRtos;
    private long lastProgressNs;
    /** Whether the last {@link #onAck} newly acknowledged the packet whose timestamp the ACK echoed. */
    private boolean echoAcknowledged;
    /**
     * When the connection learned that the peer answered a packet sent after this (suspect) path's oldest unanswered
     * one, or {@link #NO_EVIDENCE}: only such evidence, not a timeout alone, fails a path.
     */
    private long evidenceNs = NO_EVIDENCE;
    /**
     * Whether a stall of the local host already restarted this path's timers since it last made progress or a timer
     * last fired: the next expiry is judged however late it comes, so that a driver that is always late (a caller
     * polling less often than the timeout) delays a verdict by one timeout at most, never for ever.
     */
    private boolean stallDeferred;

    // Window and ECN.
    private double cwnd;
    private double alpha = 1;
    private int lastEcnCount;
    private int ackedInWindow;
    /** Packets acknowledged and ECN marks reported over the path's life: monitoring reads their ratio. */
    private long ackedTotal;
    private long markedTotal;
    private int markedInWindow;
    private long windowEndNs;
    private long lastCutNs = Long.MIN_VALUE / 2;
    private long lastAckNs;
    /** When the newest packet went out on this path. */
    private long lastSentNs;
    /** A tail probe gave up the newest packet since the last send or acknowledgement: one per tail. */
    private boolean tailProbed;

    // Probing.
    private int probeSeq;
    private long probeDueNs;
    private long probeSentNs;
    private int probeSuccesses;
    private int failedProbes;
    private long firstUnansweredProbeNs;

    public SenderPath(int index, int initialWindowPackets) {
        this.index = index;
        this.cwnd = initialWindowPackets;
    }

    /**
     * For monitoring: the fraction of the path's acknowledged packets that carried an ECN mark, over its life (0
     * before any acknowledgement). Read racily from other threads.
     */
    public double ecnFraction() {
        long acked = ackedTotal;
        return acked == 0 ? 0 : Math.min(1.0, (double) markedTotal / acked);
    }

    /** For monitoring: the DCTCP estimate of the marked fraction that scales window cuts (starts at 1). */
    public double ecnAlpha() {
        return alpha;
    }

    public int generation() {
        return generation;
    }

    public PathState state() {
        return state;
    }

    public int outstanding() {
        return outstanding;
    }

    public long bytesInFlight() {
        return bytesInFlight;
    }

    public double cwnd() {
        return cwnd;
    }

    public long srttNs() {
        return hasRtt ? srttNs : 0;
    }

    public boolean hasRtt() {
        return hasRtt;
    }

    public long lastAckNs() {
        return lastAckNs;
    }

    /** @return packets this path may still put in flight now */
    public int room() {
        if (state == PathState.FAILED) {
            return 0;
        }
        int window = state == PathState.SUSPECT ? SUSPECT_WINDOW : (int) Math.min(WINDOW, Math.max(1, cwnd));
        // The ring must also have a free slot at nextPsn: the oldest outstanding PSN bounds how far ahead we go.
        int span = nextPsn - lowestOutstanding;
        return Math.max(0, Math.min(window - outstanding, WINDOW - span));
    }

    /**
     * RFC 6298's timeout: SRTT + 4 RTTVAR (4 floors before the first sample), at least the floor, times the backoff
     * of the timeouts in a row, at most {@code rtoMaxNs}.
     *
     * @return the retransmission timeout for this path now
     */
    public long rtoNs(EndpointConfig config) {
        long base = hasRtt ? srttNs + 4 * rttvarNs : 4 * config.rtoFloorNs();
        long rto = (long) (Math.max(config.rtoFloorNs(), base) * backoff);
        return Math.min(config.rtoMaxNs(), rto);
    }

    /** @return the retransmission timeout without the backoff of timeouts in a row */
    public long baseRtoNs(EndpointConfig config) {
        long base = hasRtt ? srttNs + 4 * rttvarNs : 4 * config.rtoFloorNs();
        return Math.min(config.rtoMaxNs(), Math.max(config.rtoFloorNs(), base));
    }

    /** @return when the retransmission timer fires, or Long.MAX_VALUE when nothing is outstanding */
    public long rtoDeadlineNs(EndpointConfig config) {
        return outstanding == 0 || state == PathState.FAILED ? Long.MAX_VALUE : lastProgressNs + rtoNs(config);
    }

    /**
     * Records a packet sent on this path.
     *
     * @return its PSN
     */
    public int send(long nowNs, int messageRef, int chunkIndex, int messageEpoch, int payloadBytes) {
        if (inUse == null || (outstanding > 0 && nextPsn - lowestOutstanding > mask)) {
            growRing();
        }
        int psn = nextPsn++;
        int slot = psn & mask;
        if (outstanding == 0) {
            lastProgressNs = nowNs;
            lowestOutstanding = psn;
        }
        inUse[slot] = true;
        message[slot] = messageRef;
        chunk[slot] = chunkIndex;
        epoch[slot] = messageEpoch;
        bytes[slot] = payloadBytes;
        sentNs[slot] = nowNs;
        lastSentNs = nowNs;
        tailProbed = false;
        outstanding++;
        bytesInFlight += payloadBytes;
        return psn;
    }

    /** Allocates the ring ({@link #FIRST_RING_SLOTS}) or doubles it, moving each outstanding packet to its new slot. */
    private void growRing() {
        int slots = inUse == null ? FIRST_RING_SLOTS : Math.min(WINDOW, 2 * (mask + 1));
        if (inUse != null && slots == mask + 1) {
            throw new IllegalStateException("more than " + WINDOW + " PSNs outstanding on path " + index);
        }
        int newMask = slots - 1;
        inUse = moved(inUse, new boolean[slots], newMask);
        message = moved(message, new int[slots], newMask);
        chunk = moved(chunk, new int[slots], newMask);
        epoch = moved(epoch, new int[slots], newMask);
        bytes = moved(bytes, new int[slots], newMask);
        sentNs = moved(sentNs, new long[slots], newMask);
        mask = newMask;
    }

    /**
     * Moves each outstanding packet's entry of one ring array to its slot in the grown ring (only while growing).
     *
     * @param old     the array (null before the first send)
     * @param grown   an empty array of the same type, of {@code newMask + 1} slots
     * @param newMask the grown ring's mask
     * @return {@code grown}
     */
    private <A> A moved(A old, A grown, int newMask) {
        if (old != null) {
            for (int psn = lowestOutstanding; psn - nextPsn < 0; psn++) {
                System.arraycopy(old, psn & mask, grown, psn & newMask, 1);
            }
        }
        return grown;
    }

    /** Slots of a path's ring at its first send (doubled as needed up to {@link #WINDOW}). */
    static final int FIRST_RING_SLOTS = 16;

    /** Receives the facts an ACK establishes about one outstanding packet. */
    public interface AckVisitor {
        /** The packet was placed by the receiver. */
        void acknowledged(int messageRef, int chunkIndex, int messageEpoch);

        /** The packet is lost (a hole below acknowledged ones, or given up by the receiver). */
        void lost(int messageRef, int chunkIndex, int messageEpoch);
    }

    /**
     * Applies an ACK of this path's current generation.
     *
     * @param echoNs     the timestamp the ACK echoes (of the last packet the receiver got on this path); whether it
     *                   is the send time of a packet this ACK newly acknowledges is {@link #echoAcknowledged()}
     * @param cumulative the receiver's cumulative PSN (lowest it still waits for)
     * @param sack       bitmap words: bit i = PSN cumulative + 1 + i received
     * @param visitor    told about each packet acknowledged or found lost
     * @return how many packets it acknowledged
     */
    public int onAck(long nowNs, long echoNs, int cumulative, long s0, long s1, long s2, long s3,
                     AckVisitor visitor) {
        echoAcknowledged = false;
        if (outstanding == 0) {
            return 0;
        }
        int highestAcked = 0;
        int acked = 0;
        // Below the cumulative PSN everything was received. The receiver gives up a hole only when it lies more
        // than 256 PSNs below the highest PSN it saw, and this ring never spans more than 256 PSNs, so no PSN still
        // in the ring can have been given up.
        final int end = nextPsn;
        int psn = lowestOutstanding;
        for (; psn - end < 0 && psn - cumulative < 0; psn++) {
            int slot = psn & mask;
            if (inUse[slot]) {
                echoAcknowledged |= sentNs[slot] == echoNs;
                release(slot);
                visitor.acknowledged(message[slot], chunk[slot], epoch[slot]);
                acked++;
                highestAcked = psn;
            }
        }
        // Above it the bitmap says: visit its set bits only (bit i = PSN cumulative + 1 + i), in PSN order.
        sack:
        for (int w = 0; w < SACK_WORDS; w++) {
            long word = w == 0 ? s0 : w == 1 ? s1 : w == 2 ? s2 : s3;
            while (word != 0) {
                int p = cumulative + 1 + (w << 6) + Long.numberOfTrailingZeros(word);
                word &= word - 1;
                if (p - end >= 0) {
                    break sack;
                }
                int slot = p & mask;
                if (p - lowestOutstanding >= 0 && inUse[slot]) {
                    echoAcknowledged |= sentNs[slot] == echoNs;
                    release(slot);
                    visitor.acknowledged(message[slot], chunk[slot], epoch[slot]);
                    acked++;
                    highestAcked = p;
                }
            }
        }
        advanceLowest();
        // Holes: packets far enough below an acknowledged one are lost (each path's packets travel in order, so a
        // hole is loss, not reordering, beyond a small tolerance).
        if (acked > 0) {
            boolean lostAny = false;
            for (int q = lowestOutstanding; highestAcked - q >= REORDER_THRESHOLD; q++) {
                int slot = q & mask;
                if (inUse[slot]) {
                    release(slot);
                    visitor.lost(message[slot], chunk[slot], epoch[slot]);
                    lostAny = true;
                }
            }
            if (lostAny) {
                advanceLowest();
            }
        }
        if (acked > 0) {
            lastProgressNs = nowNs;
            lastAckNs = nowNs;
            tailProbed = false;
            consecutiveRtos = 0;
            backoff = 1;
            evidenceNs = NO_EVIDENCE;
            stallDeferred = false;
            if (state == PathState.SUSPECT) {
                state = PathState.ACTIVE;
                cwnd = Math.max(cwnd, 2);
            }
            ackedInWindow += acked;
            ackedTotal += acked;
            for (int i = 0; i < acked; i++) {
                cwnd = Math.min(WINDOW, cwnd + 1.0 / Math.max(1, cwnd));   // +1 packet per round trip
            }
        }
        return acked;
    }

    private void release(int slot) {
        inUse[slot] = false;
        outstanding--;
        bytesInFlight -= bytes[slot];
    }

    private void advanceLowest() {
        if (outstanding == 0) {
            lowestOutstanding = nextPsn;
            return;
        }
        while (!inUse[lowestOutstanding & mask]) {
            lowestOutstanding++;
        }
    }

    /**
     * @return whether the last {@link #onAck} newly acknowledged the very packet whose send time the ACK echoed: only
     * then is {@code now - echo} a round trip of this path (retransmissions take new PSNs and timestamps, so the
     * sample is unambiguous; an echo of a duplicate or of a packet acknowledged before gives none)
     */
    public boolean echoAcknowledged() {
        return echoAcknowledged;
    }

    /**
     * Takes an RTT sample (RFC 6298: SRTT and RTTVAR by gains 1/8 and 1/4; the first sample sets SRTT to it and
     * RTTVAR to half of it).
     *
     * @param rttNs the sample; one above {@code maxNs} counts as {@code maxNs}: no network round trip is longer than
     *              the longest timeout, so such a sample measured a stall, and unclamped it would hold the timeout
     *              at its cap and the path's share of new packets low for many round trips
     * @param maxNs the largest sample taken as it is (the endpoint's {@code rtoMaxNs})
     */
    public void onRttSample(long rttNs, long maxNs) {
        if (rttNs <= 0) {
            return;
        }
        rttNs = Math.min(rttNs, maxNs);
        if (!hasRtt) {
            srttNs = rttNs;
            rttvarNs = rttNs / 2;
            hasRtt = true;
        } else {
            long err = Math.abs(srttNs - rttNs);
            rttvarNs = (3 * rttvarNs + err) / 4;
            srttNs = (7 * srttNs + rttNs) / 8;
        }
    }

    /**
     * Applies the receiver's running count of ECN-marked packets: DCTCP-style, the fraction of marked packets
     * per round trip updates alpha, and a mark cuts the window by alpha/2 at most once per round trip.
     *
     * @return true when the window was cut
     */
    public boolean onEcnCount(long nowNs, int ecnCount) {
        int marked = ecnCount - lastEcnCount;
        if (marked < 0) {
            return false;   // an older ACK arrived late
        }
        lastEcnCount = ecnCount;
        markedInWindow += marked;
        markedTotal += marked;
        long rtt = Math.max(1, srttNs());
        if (nowNs - windowEndNs >= 0) {
            double fraction = ackedInWindow == 0 ? 0 : Math.min(1.0, (double) markedInWindow / ackedInWindow);
            alpha = (1 - DCTCP_GAIN) * alpha + DCTCP_GAIN * fraction;
            ackedInWindow = 0;
            markedInWindow = 0;
            windowEndNs = nowNs + rtt;
        }
        if (marked > 0 && nowNs - lastCutNs >= rtt) {
            cwnd = Math.max(1, cwnd * (1 - alpha / 2));
            lastCutNs = nowNs;
            return true;
        }
        return false;
    }

    /**
     * The retransmission timer fired: every outstanding packet is lost (the visitor is told), the timeout backs off
     * and the path becomes suspect. A timeout alone never fails a path (the connection decides that, on evidence
     * that the peer answered other paths: a stalled peer makes every path time out at once).
     *
     * @return the timeouts in a row on this path, this one included
     */
    public int onRto(long nowNs, AckVisitor visitor) {
        abandonOutstanding(visitor);
        consecutiveRtos++;
        backoff = Math.min(backoff * 1.5, 1e6);
        lastProgressNs = nowNs;
        evidenceNs = NO_EVIDENCE;   // the next test packets are judged on their own
        stallDeferred = false;
        // Suspect, but the window stays: a timeout says packets were lost, and loss alone is not congestion (ECN is).
        state = PathState.SUSPECT;
        return consecutiveRtos;
    }

    /**
     * The local host was stalled past this path's timeout: the timer restarts from now instead of firing, so the
     * answers that arrived during the stall (still unread) and the peer get a full timeout. A silence verdict
     * pending on evidence learned before the stall is postponed likewise, and an unanswered probe is not held
     * against the path. Once only until the path makes progress or a timer of it fires.
     *
     * @return false when a stall already restarted them (the timers stay as they are and will be judged)
     */
    public boolean restartTimersAfterStall(long nowNs) {
        if (stallDeferred) {
            return false;
        }
        stallDeferred = true;
        if (outstanding > 0) {
            lastProgressNs = nowNs;
        }
        if (evidenceNs != NO_EVIDENCE) {
            evidenceNs = nowNs;
        }
        if (state == PathState.FAILED && probeSuccesses == 0) {
            probeSentNs = 0;
        }
        return true;
    }

    /**
     * The peer answered something sent well after this suspect path's outstanding packets: they went out into an
     * outage (or to a stalled peer) that is over. They are taken as lost (the visitor is told), so that they go again
     * at once, and the timer restarts; the path stays suspect and is judged by its next packets.
     */
    public void retest(long nowNs, AckVisitor visitor) {
        abandonOutstanding(visitor);
        lastProgressNs = nowNs;
        stallDeferred = false;
    }

    /**
     * When to probe the tail: an active path with packets outstanding that neither sent nor heard an acknowledgement
     * for {@code 2 * srtt + ackDelayNs} (the receiver's longest wait before acknowledging) has likely lost its newest
     * packets, and with nothing sent after them no acknowledgement can reveal the hole: only the retransmission
     * timeout would, at least the RTO floor later (TCP's tail loss probe, RFC 8985).
     *
     * @param ackDelayNs    the longest a receiver holds an acknowledgement
     * @param siblingRttNs  the round trip to assume while this path has no sample of its own (its siblings' best),
     *                      {@link Long#MAX_VALUE} for none
     * @return the deadline, {@link Long#MAX_VALUE} when none applies (nothing outstanding, not active, no round trip
     *         known, or probed since the last send or acknowledgement)
     */
    public long tailProbeDueNs(long ackDelayNs, long siblingRttNs) {
        if (outstanding == 0 || state != PathState.ACTIVE || tailProbed || (!hasRtt && siblingRttNs == Long.MAX_VALUE)) {
            return Long.MAX_VALUE;
        }
        return Math.max(lastSentNs, lastAckNs) + 2 * (hasRtt ? srttNs : siblingRttNs) + ackDelayNs;
    }

    /**
     * Probes the tail: the newest outstanding packet is given up (the visitor is told it is lost, so it goes again
     * and its copy, a PSN past any hole, makes the receiver acknowledge at once). Once until the next send or
     * acknowledgement; the path's state and window stay as they are (a probe is no verdict).
     *
     * @return whether a packet was given up
     */
    public boolean probeTail(AckVisitor visitor) {
        tailProbed = true;
        for (int psn = nextPsn - 1; psn - lowestOutstanding >= 0; psn--) {
            int slot = psn & mask;
            if (inUse[slot]) {
                release(slot);
                advanceLowest();
                visitor.lost(message[slot], chunk[slot], epoch[slot]);
                return true;
            }
        }
        return false;
    }

    /** @return RTO expiries in a row (0 after an acknowledgement) */
    public int consecutiveRtos() {
        return consecutiveRtos;
    }

    /**
     * Notes, once, when the connection learned that the peer answered a packet sent after this path's oldest
     * unanswered one (a sibling's ACK echoing a later send time).
     */
    public void noteEvidence(long nowNs) {
        if (evidenceNs == NO_EVIDENCE) {
            evidenceNs = nowNs;
        }
    }

    /** @return when evidence against this path's outstanding packets was learned, or {@link #NO_EVIDENCE} */
    public long evidenceNs() {
        return evidenceNs;
    }

    /** Declares the path dead and moves it to a new route: new generation, PSNs from 0, probing from now. */
    public void fail(long nowNs) {
        state = PathState.FAILED;
        generation = (generation + 1) & 0xFFFF;
        nextPsn = 0;
        lowestOutstanding = 0;
        outstanding = 0;
        bytesInFlight = 0;
        if (inUse != null) {
            java.util.Arrays.fill(inUse, false);
        }
        lastEcnCount = 0;
        // The RTT estimate is kept: the new route's round trip is more like the old one's than like nothing, and a
        // path that forgot it would time out after 4 floors on a slow network (a loaded host's milliseconds) and fail
        // again at once. Samples on the new route correct it.
        backoff = 1;
        consecutiveRtos = 0;
        evidenceNs = NO_EVIDENCE;
        stallDeferred = false;
        probeSuccesses = 0;
        failedProbes = 0;
        probeSentNs = 0;
        probeDueNs = nowNs;
    }

    /** @return when the oldest outstanding packet was sent, or {@link Long#MAX_VALUE} when none is outstanding */
    public long oldestSentNs() {
        return outstanding == 0 ? Long.MAX_VALUE : sentNs[lowestOutstanding & mask];
    }

    /**
     * Fails a path that stayed silent while the peer answered its siblings (or, as a scout, while nothing was answered
     * anywhere): its outstanding packets are lost (the visitor is told) and it moves to a new route.
     */
    public void failSilent(long nowNs, AckVisitor visitor) {
        abandonOutstanding(visitor);
        fail(nowNs);
    }

    /**
     * Drops the outstanding packets of one message epoch from this path's books without calling them lost: the
     * receiver discarded them (it was not ready), so their silence says nothing about the path.
     */
    public void forget(int messageRef, int messageEpoch) {
        if (outstanding == 0) {
            return;
        }
        for (int psn = lowestOutstanding; psn - nextPsn < 0; psn++) {
            int slot = psn & mask;
            if (inUse[slot] && message[slot] == messageRef && epoch[slot] == messageEpoch) {
                release(slot);
            }
        }
        advanceLowest();
    }

    /** Moves every outstanding packet off this path (it is being given up), telling the visitor each is lost. */
    public void abandonOutstanding(AckVisitor visitor) {
        for (int psn = lowestOutstanding; psn - nextPsn < 0; psn++) {
            int slot = psn & mask;
            if (inUse[slot]) {
                release(slot);
                visitor.lost(message[slot], chunk[slot], epoch[slot]);
            }
        }
        advanceLowest();
    }

    // ---- Probing (only while FAILED) ----

    public long probeDueNs() {
        return state == PathState.FAILED ? probeDueNs : Long.MAX_VALUE;
    }

    /** @return the sequence number of the probe to send now */
    public int nextProbe(long nowNs, EndpointConfig config) {
        if (probeSentNs != 0 && probeSuccesses == 0) {
            if (failedProbes++ == 0) {
                firstUnansweredProbeNs = probeSentNs;
            }
            stallDeferred = false;
        }
        probeSentNs = nowNs;
        // Unanswered means not answered within a round trip's timeout, however long round trips are here.
        probeDueNs = nowNs + Math.max(config.probeIntervalNs(), rtoNs(config));
        return ++probeSeq;
    }

    /**
     * @return true after three unanswered probes in a row: another route may be due, if the peer answered anything
     * sent after {@link #firstUnansweredProbeNs()} (else the peer, not this route, may be what is silent)
     */
    public boolean shouldRerouteAgain() {
        return failedProbes >= 3;
    }

    /** @return when the first of the unanswered probes in a row was sent (meaningful while there are any) */
    public long firstUnansweredProbeNs() {
        return firstUnansweredProbeNs;
    }

    /** Another route for the probes: new generation. */
    public void rerouteAgain() {
        generation = (generation + 1) & 0xFFFF;
        failedProbes = 0;
        probeSuccesses = 0;
        probeSentNs = 0;
    }

    /**
     * A probe reply for this generation arrived.
     *
     * @return true when the path is readmitted now
     */
    public boolean onProbeReply(long nowNs, int seq, long echoNs, EndpointConfig config) {
        if (state != PathState.FAILED || seq != probeSeq) {
            return false;
        }
        onRttSample(nowNs - echoNs, config.rtoMaxNs());
        probeSuccesses++;
        stallDeferred = false;
        failedProbes = 0;
        probeSentNs = 0;
        if (probeSuccesses >= config.probesToReadmit()) {
            state = PathState.ACTIVE;
            cwnd = Math.max(cwnd / 2, config.initialWindowPackets());   // it answered: half what it had, or a start
            lastAckNs = nowNs;
            return true;
        }
        probeDueNs = nowNs;   // probe again at once
        return false;
    }
}
