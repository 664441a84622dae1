package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.metaroce.protocol.path.PathHealth;
import io.jccl.metaroce.protocol.path.PathState;
import io.jccl.metaroce.protocol.path.ReceiverPath;
import io.jccl.metaroce.protocol.path.SenderPath;
import io.jccl.metaroce.protocol.wire.AckFlyweight;
import io.jccl.metaroce.protocol.wire.CloseFlyweight;
import io.jccl.metaroce.protocol.wire.Flags;
import org.agrona.DirectBuffer;

import java.lang.foreign.MemorySegment;

/**
 * One MetaRoCE connection: streams above, logical paths below, one congestion controller. Driven by its
 * {@code Endpoint}, which owns the packet codec, the clock and the sink; this class decides what to send, where
 * to place what arrives, and when work completes. Single-threaded; no allocation per packet in steady state.
 *
 * <p>It keeps the handshake and the order in which things are answered, sent and run, and hands the rest to its
 * parts: {@link OutboundQueue} (the reliability of what it sends: messages, chunks never sent, the retransmission
 * queue, completion in stream order), {@link PathChooser} (the path each packet takes, and the cap on bytes in
 * flight), {@link Pacer} (the rate the receiver grants), {@link PathHealth} (verdicts on the paths and on the peer's
 * silence), {@link Receiver} (what arrives: bounds, the reassembly of the peer's WRITEs and SENDs in
 * {@link InboundWrites} and {@link InboundSends}, ACKs and the other answers owed), {@link GracefulClose} (how it
 * ends, and the CLOSE it owes the peer), and {@link Deadlines}, which holds every deadline in one {@link Timers} so
 * that {@link #nextTimeoutNs} takes the earliest instead of deriving each path's timers again.
 */
public final class Connection {
    /** Connection states. */
    public enum State {
        /** The initiator sent its handshake and waits for the answer. */
        CONNECTING,
        /** Both sides agreed; data flows. */
        ESTABLISHED,
        /** Closed or failed; pending work was completed with {@link CompletionStatus#CONNECTION_CLOSED}. */
        CLOSED
    }

    /** What the endpoint provides to its connections. */
    public interface Context {
        /** Builds and hands over one DATA packet ({@code packet} is read during the call only). */
        void sendData(Connection c, TransmitSink sink, DataPacket packet);

        /** Builds and hands over one ACK. */
        void sendAck(Connection c, TransmitSink sink, int pathIndex, ReceiverPath rx, double hintBytesPerSecond);

        /** Builds and hands over a receiver-not-ready answer. */
        void sendRnr(Connection c, TransmitSink sink, int stream, int message, long retryNs);

        /** Builds and hands over a probe or probe reply. */
        void sendProbe(Connection c, TransmitSink sink, int pathIndex, int generation, boolean reply, int seq,
                       long timestampNs);

        /** Builds and hands over the handshake packet this connection owes (INIT or ACCEPT). */
        void sendHandshake(Connection c, TransmitSink sink);

        /** Builds and hands over a CLOSE with that reason ({@code CloseFlyweight.REASON_*}). */
        void sendClose(Connection c, TransmitSink sink, int reason);

        /** Places payload bytes from a received datagram into memory. */
        void place(DirectBuffer datagram, int payloadOffset, MemorySegment dst, long dstOffset, int length);

        /**
         * Places a WRITE's payload bytes from a received datagram into a region: its memory, or the sink standing
         * for it.
         *
         * @param regionKey    a key the region lookup accepted
         * @param regionOffset where the bytes go in the region
         */
        void placeWrite(int regionKey, DirectBuffer datagram, int payloadOffset, long regionOffset, int length);

        /** Records a completion. */
        void complete(Connection c, long workId, WorkKind kind, CompletionStatus status, long bytes);

        /** @return the rate this endpoint grants the connection as a receiver */
        double hint(Connection c);

        /** Counts payload bytes received from this connection (and whether they came ECN-marked), for the fair share. */
        void inbound(Connection c, long bytes, boolean ecnMarked, long nowNs);

        /** @return a new work id */
        long nextWorkId();
    }

    private final EndpointConfig config;
    private final Context ctx;
    private final io.jccl.metaroce.protocol.Counters counters;
    public final int localId;
    public final int slot;
    public final long peer;
    public final boolean initiator;
    private int remoteId;
    private int sessionTag;
    private State state;
    private final int payloadBytes;
    private final SenderPath[] tx;
    private final ReceiverPath[] rx;
    /** Which paths are suspect, failed or due for another route, and whether the peer went silent. */
    private final PathHealth health;

    /** Every deadline of the connection, so that the driver's question "when next?" costs no scan of the paths. */
    private final Deadlines deadlines;
    /** {@link #lazyAckDelayNs} of this connection's settings. */
    private final long lazyAckDelay;

    // Handshake.
    private final byte[] localNonce;
    private byte[] remoteNonce;
    private long handshakeDueNs;
    private long handshakeIntervalNs;
    private boolean acceptDue;

    // Sending side.
    /** What this side sends, until it is acknowledged. */
    private final OutboundQueue outbound;
    /** Which path each packet takes. */
    private final PathChooser pathChooser;
    /**
     * A receiver acknowledges lazily sent messages ({@link #postSend} with {@code ackLazily}) after this many of
     * them on a path, or {@link #LAZY_ACK_DELAY_NS} after the first (the sender's boxes and windows are sized for
     * this: 32 FIN boxes per channel, windows of 256 packets; retransmission timeouts are at least 5 ms).
     */
    public static final int LAZY_ACK_EVERY_PACKETS = 16;
    /** See {@link #LAZY_ACK_EVERY_PACKETS}; what {@link #lazyAckDelayNs} allows of it. */
    public static final long LAZY_ACK_DELAY_NS = 500_000;

    /**
     * @return how long a receiver with {@code config} holds a lazy ACK: {@link #LAZY_ACK_DELAY_NS}, but at most half
     *         the smallest retransmission timeout, so that the sender's timer does not fire first and send the
     *         messages again (the protocol core's default floor is 50 µs, the metaroce transport's 5 ms), and at
     *         least the delayed-ACK time
     */
    public static long lazyAckDelayNs(EndpointConfig config) {
        return Math.max(config.delayedAckNs(), Math.min(LAZY_ACK_DELAY_NS, config.rtoFloorNs() / 2));
    }

    /** The DATA packet being handed to the endpoint, reused. */
    private final DataPacket dataPacket = new DataPacket();
    /** Pacing to the peer's rate hint. */
    private final Pacer pacer;
    private long pauseEndsNs = Long.MAX_VALUE;

    /** The receiving side: placement and reassembly, acknowledgements, the answers owed to the peer. */
    private final Receiver receiver;

    /** How the connection ends: the graceful close, the CLOSE owed to the peer, the cause. */
    private final GracefulClose closing;

    /**
     * @param config    the endpoint's settings
     * @param ctx       the endpoint
     * @param localId   this side's connection id
     * @param slot      the endpoint's dense index for this connection
     * @param peer      the remote endpoint as the driver identifies it
     * @param initiator whether this side opened the connection
     * @param nonce     this side's 16-byte handshake nonce
     * @param paths     number of logical paths
     * @param payload   payload bytes per packet (the initiator's, agreed in the handshake)
     * @param nowNs     the clock
     */
    public Connection(EndpointConfig config, Context ctx, io.jccl.metaroce.protocol.Counters counters, int localId,
                      int slot, long peer, boolean initiator, byte[] nonce, int paths, int payload, long nowNs) {
        this.config = config;
        this.ctx = ctx;
        this.counters = counters;
        this.localId = localId;
        this.slot = slot;
        this.peer = peer;
        this.initiator = initiator;
        this.localNonce = nonce.clone();
        this.payloadBytes = payload;
        this.tx = new SenderPath[paths];
        this.rx = new ReceiverPath[paths];
        for (int p = 0; p < paths; p++) {
            tx[p] = new SenderPath(p, config.initialWindowPackets());
            rx[p] = new ReceiverPath();
        }
        this.health = new PathHealth(config, counters, tx);
        this.lazyAckDelay = lazyAckDelayNs(config);
        this.deadlines = new Deadlines(config, tx, rx, health, lazyAckDelay);
        this.outbound = new OutboundQueue(this, ctx, tx, payload, config.maxPendingWork());
        this.state = initiator ? State.CONNECTING : State.ESTABLISHED;
        this.handshakeIntervalNs = 4 * config.rtoFloorNs();   // the first RTO before any RTT sample; doubles per retry
        this.handshakeDueNs = initiator ? nowNs : Long.MAX_VALUE;
        this.acceptDue = !initiator;
        this.pacer = new Pacer(payload, nowNs);
        this.pathChooser = new PathChooser(tx, pacer, payload);
        this.receiver = new Receiver(this, ctx, config, counters, rx, deadlines, payload, lazyAckDelay);
        this.closing = new GracefulClose(config, counters, nowNs);
    }

    // ---- Accessors for the endpoint ----

    public State state() {
        return state;
    }

    public int remoteId() {
        return remoteId;
    }

    public int sessionTag() {
        return sessionTag;
    }

    public int paths() {
        return tx.length;
    }

    public int payloadBytes() {
        return payloadBytes;
    }

    public byte[] localNonce() {
        return localNonce;
    }

    public byte[] remoteNonce() {
        return remoteNonce;
    }

    public SenderPath senderPath(int p) {
        return tx[p];
    }

    public ReceiverPath receiverPath(int p) {
        return rx[p];
    }

    /** Acceptor side: remember the initiator's id and nonce and the tag this side chose. */
    public void accepted(int initiatorId, byte[] initiatorNonce, int tag) {
        this.remoteId = initiatorId;
        this.remoteNonce = initiatorNonce.clone();
        this.sessionTag = tag;
    }

    /** Acceptor side: the initiator repeated its handshake (our answer was lost): answer again. */
    public void acceptAgain() {
        acceptDue = true;
    }

    /** Initiator side: the handshake was answered. */
    public void established(long nowNs, int acceptorId, byte[] acceptorNonce, int tag) {
        if (state != State.CONNECTING) {
            return;
        }
        this.remoteId = acceptorId;
        this.remoteNonce = acceptorNonce.clone();
        this.sessionTag = tag;
        this.state = State.ESTABLISHED;
        this.handshakeDueNs = Long.MAX_VALUE;
        pacer.restart(nowNs);
        counters.increment(Counter.CONNECTIONS_OPENED);
    }

    // ---- Posting work ----

    private boolean full() {
        return pendingWork() >= config.maxPendingWork() || refusesWork();
    }

    /** Closed, closing gracefully, or told by the peer that it sends nothing more: new work completes as closed. */
    private boolean refusesWork() {
        return state == State.CLOSED || closing.refusesWork();
    }

    public long postWrite(int regionKey, long remoteOffset, MemorySegment local, long offset, long length) {
        return postWrite(regionKey, remoteOffset, local, offset, length, false, 0);
    }

    /** A WRITE whose last packet carries {@code immediate} when {@code withImmediate} (write-with-immediate). */
    public long postWrite(int regionKey, long remoteOffset, MemorySegment local, long offset, long length,
                          boolean withImmediate, int immediate) {
        if (full()) {
            return refusesWork() ? closedWork(WorkKind.WRITE) : -1;
        }
        return outbound.postWrite(regionKey, remoteOffset, local, offset, length, withImmediate, immediate);
    }

    /**
     * Posts a SEND.
     *
     * @param ackLazily its last packet does not ask for an acknowledgement at once: the receiver acknowledges it
     *                  with later ones or after {@link #lazyAckDelayNs}, for a message whose completion nobody
     *                  waits for (its sender completed it already)
     */
    public long postSend(int streamId, MemorySegment local, long offset, long length, boolean ackLazily) {
        if (full()) {
            return refusesWork() ? closedWork(WorkKind.SEND) : -1;
        }
        return outbound.postSend(streamId, local, offset, length, ackLazily);
    }

    public long postRecv(int streamId, MemorySegment local, long offset, long capacity) {
        if (full()) {
            return refusesWork() ? closedWork(WorkKind.RECV) : -1;
        }
        long id = ctx.nextWorkId();
        receiver.post(streamId, id, local, offset, capacity);
        return id;
    }

    private long closedWork(WorkKind kind) {
        long id = ctx.nextWorkId();
        ctx.complete(this, id, kind, kind == WorkKind.RECV && closing.peerDrained() && state != State.CLOSED
                ? CompletionStatus.PEER_DONE : CompletionStatus.CONNECTION_CLOSED, 0);
        return id;
    }

    // ---- Receiving ----

    /**
     * A DATA packet of this connection, already checked for structure, session and path.
     *
     * @param d the packet, read during the call only
     * @return null when it was accepted (placed, or a duplicate of placed data), otherwise why it was dropped
     */
    public DropReason onData(long nowNs, InboundData d) {
        return state != State.ESTABLISHED ? DropReason.UNEXPECTED : receiver.onData(nowNs, d);
    }

    /** Installs the lookup of regions open for remote writes: a key's size in bytes, or -1. */
    public void regions(java.util.function.IntToLongFunction lookup) {
        receiver.regions(lookup);
    }

    /** An ACK for one of this connection's paths, current generation ({@code ack} is read during the call only). */
    public void onAck(long nowNs, int pathIndex, AckFlyweight ack) {
        SenderPath p = tx[pathIndex];
        if (p.state() == PathState.FAILED) {
            return;
        }
        deadlines.pathChanged(pathIndex);
        long echoNs = ack.echoTimestampNs();
        int before = outbound.retransmissionsQueued();
        int acked = p.onAck(nowNs, echoNs, ack.cumulativePsn(), ack.sackWord(0), ack.sackWord(1), ack.sackWord(2),
                ack.sackWord(3), outbound);
        // Holes are what this ACK's SACK queued; what answered() queues below (a suspect path retested) counts as
        // timeouts' work.
        int holes = outbound.retransmissionsQueued() - before;
        // A round trip only from the very packet the ACK echoes, newly acknowledged by it. One that spans a stall of
        // either host is taken too (clamped at rtoMaxNs): where stalls are routine they are part of the round trip
        // the timeout must cover.
        if (acked > 0 && p.echoAcknowledged()) {
            p.onRttSample(nowNs - echoNs, config.rtoMaxNs());
        }
        answered(nowNs, echoNs);
        if (holes > 0) {
            counters.add(Counter.SACK_HOLES, holes);
        }
        if (p.onEcnCount(nowNs, ack.ecnCount())) {
            counters.increment(Counter.ECN_WINDOW_CUTS);
        }
        double rateHint = (double) ack.rateHintBytesPerSecond();
        if (rateHint > 0) {
            pacer.grant(rateHint);
        }
        counters.increment(Counter.ACK_PACKETS_RECEIVED);
    }

    /**
     * The receiver was not ready for a message: send all of it again after the pause it asks for, at least
     * {@code rnrRetryNs} and at most the backoff cap {@code rtoMaxNs} (so that no retry-after, however large, wraps
     * the resume time around into the past, where the pause timer would be due for ever).
     */
    public void onRnr(long nowNs, int stream, int message, long retryNs) {
        counters.increment(Counter.RNR_RECEIVED);
        health.answeredWithoutEcho();   // the peer got our packets (it discarded them): an answer
        long pauseNs = Math.max(config.rnrRetryNs(), Math.min(retryNs, config.rtoMaxNs()));
        if (outbound.restartAfterRnr(stream, message, nowNs + pauseNs)) {
            deadlines.allPathsChanged();   // its packets left the paths' books
        }
    }

    /** The peer probes a path (possibly a new generation of it). */
    public void onProbe(int pathIndex, int generation, int seq, long timestampNs) {
        receiver.onProbe(pathIndex, generation, seq, timestampNs);
    }

    /** A reply to our probe. */
    public void onProbeReply(long nowNs, int pathIndex, int seq, long echoNs) {
        deadlines.pathChanged(pathIndex);
        if (tx[pathIndex].onProbeReply(nowNs, seq, echoNs, config)) {
            counters.increment(Counter.PATHS_READMITTED);
        }
        answered(nowNs, echoNs);
    }

    /**
     * The peer sent a CLOSE. A graceful one ({@link CloseFlyweight#REASON_DRAINED}) says every message it sent was
     * acknowledged, so nothing more will arrive: receives still posted can never complete and complete now as
     * closed, while this side's own messages go on until they are acknowledged (the peer lingers to acknowledge
     * them); then this side answers with its own graceful CLOSE and the connection is closed. Any other reason
     * closes at once, completing everything pending as closed.
     *
     * @param nowNs  the clock
     * @param reason the CLOSE's reason
     */
    public void onClose(long nowNs, int reason) {
        GracefulClose.PeerClose what = closing.onPeerClose(reason, state);
        if (what == GracefulClose.PeerClose.ABORT) {
            fail();
            return;
        }
        if (what == GracefulClose.PeerClose.IGNORE) {
            return;
        }
        if (what == GracefulClose.PeerClose.PEER_DONE) {
            receiver.failAll(CompletionStatus.PEER_DONE);   // the peer said nothing more will come
        }
        checkDrained(nowNs);
    }

    /** Closes from this side at once: the peer is told once, pending work completes as closed. */
    public void close() {
        if (state != State.CLOSED) {
            closing.closeAtOnce();
            fail();
        }
    }

    /**
     * Closes from this side gracefully: nothing new may be posted; what was posted goes on until it is acknowledged,
     * receives stay posted (the peer may still be sending into them) and data keeps being acknowledged. Once
     * everything this side sent is acknowledged it tells the peer (a CLOSE of reason DRAINED, repeated until
     * answered), and the connection closes when the peer answers in kind. The caller bounds how long it waits and
     * then {@link #close() closes} at once. A connection still being opened closes at once.
     *
     * @param nowNs the clock
     */
    public void shutdown(long nowNs) {
        if (state == State.CLOSED || closing.draining()) {
            return;
        }
        if (state == State.CONNECTING) {
            close();
            return;
        }
        closing.startDraining(health.bestActiveRttNs());
        checkDrained(nowNs);
    }

    /**
     * Withdraws a WRITE this side posted and that is not complete yet: it completes as
     * {@link CompletionStatus#CANCELLED}, nothing more of it is sent, and its packets in flight leave the paths'
     * books (the receiver withdrew the memory it was going to, so their silence says nothing about the paths).
     *
     * @param workId the WRITE's work id
     * @return whether it was found and withdrawn
     */
    public boolean cancelWrite(long workId) {
        if (outbound.cancelWrite(workId)) {
            deadlines.allPathsChanged();
            return true;
        }
        return false;
    }

    /** @return messages this side posted (WRITEs and SENDs) that are not yet acknowledged or failed */
    public int unacknowledgedMessages() {
        return outbound.unacknowledgedMessages();
    }

    /** @return bytes of the messages this side posted that are not yet acknowledged or failed */
    public long unacknowledgedBytes() {
        return outbound.unacknowledgedBytes();
    }

    /** @return whether this side is closing gracefully and waits for acknowledgements or the peer's answer */
    public boolean draining() {
        return closing.draining() && state != State.CLOSED;
    }

    /** The graceful close's progress (see {@link GracefulClose#check}); it may close the connection. */
    private void checkDrained(long nowNs) {
        if (state == State.ESTABLISHED && closing.check(nowNs, unacknowledgedMessages())) {
            fail();
        }
    }

    /** @return why the connection closed, for diagnostics ("open" while it is not closed) */
    public String closeCause() {
        return closing.cause();
    }

    private void fail() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        counters.increment(Counter.CONNECTIONS_CLOSED);
        outbound.failAll(CompletionStatus.CONNECTION_CLOSED);
        receiver.failAll(CompletionStatus.CONNECTION_CLOSED);
    }

    // ---- Timers ----

    /**
     * Runs what is due: the path health's verdicts (silence, retransmission timeouts, probes of failed paths; see
     * {@link PathHealth}), then the connection's silence rules.
     */
    public void onTimeout(long nowNs) {
        if (state == State.CLOSED) {
            return;
        }
        checkDrained(nowNs);
        takeDeadlines();
        if (deadlines.anyPathDue(nowNs)) {
            outbound.queuedByTimeouts(health.judgePaths(nowNs, outbound));
            probeTails(nowNs);
            deadlines.allPathsChanged();
        }
        if (state != State.ESTABLISHED) {
            return;
        }
        if (health.scoutIfDue(nowNs, outbound)) {
            deadlines.allPathsChanged();
        }
        if (health.silenceLimitPassed(nowNs)) {
            counters.increment(Counter.CONNECTIONS_DEAD);
            // Tell the peer, best effort: it may be waiting for receives that will never come.
            closing.owe(CloseFlyweight.REASON_FAILED, "failed: nothing received from the peer on any path for "
                    + config.connectionDeadNs() / 1_000_000 + " ms while waiting for answers (the silence limit: "
                    + "connectionDeadNs, JCCL_METAROCE_DEAD_MS for the metaroce transport)");
            fail();
        }
    }

    /** Probes the tail of every path whose tail probe is due (see {@link SenderPath#tailProbeDueNs}). */
    private void probeTails(long nowNs) {
        long siblingRttNs = health.bestActiveRttNs();
        for (SenderPath p : tx) {
            long dueNs = p.tailProbeDueNs(lazyAckDelay, siblingRttNs);
            if (dueNs != Long.MAX_VALUE && dueNs - nowNs <= 0) {
                outbound.probeTail(p);
            }
        }
    }

    /** The peer answered a send time of ours: the path health judges the suspect paths by it. */
    private void answered(long nowNs, long echoNs) {
        if (health.anySuspect()) {
            deadlines.allPathsChanged();   // verdicts on any suspect path, and the best sibling RTT, may change
        }
        outbound.queuedByTimeouts(health.answered(nowNs, echoNs, outbound));
    }

    /**
     * Something authenticated arrived from the peer on this connection (any type, any path, any generation): it is
     * alive, so the silence that fails a connection starts over.
     */
    public void heard(long nowNs) {
        health.heard();
        closing.heard(nowNs);   // a graceful close waits for the peer's silence when its confirmation does not come
    }

    /**
     * A packet of path {@code index} carries {@code generation}: a newer one starts the receiving path over, an older
     * one is stale.
     *
     * @return false when the packet is stale (the caller drops it)
     */
    public boolean adoptGeneration(int index, int generation) {
        return receiver.adoptGeneration(index, generation);
    }

    /**
     * The endpoint was driven late ({@code gapNs} after its previous call): the path health restarts the path timers
     * that came due before {@code lateBeforeNs} (see {@link PathHealth#onLocalStall}).
     *
     * @return how many path timers were late (0: this connection was not affected)
     */
    public int onLocalStall(long nowNs, long gapNs, long lateBeforeNs) {
        if (state == State.CLOSED) {
            return 0;
        }
        int late = health.onLocalStall(nowNs, gapNs, lateBeforeNs);
        if (late > 0) {
            deadlines.allPathsChanged();
        }
        return late;
    }

    /** @return the earliest deadline of this connection: {@link Long#MIN_VALUE} when something is due at once */
    public long nextTimeoutNs() {
        long next;
        if (state == State.CLOSED) {
            next = closing.closeDue() ? Long.MIN_VALUE : Long.MAX_VALUE;
        } else {
            takeDeadlines();
            next = deadlines.earliestNs();
        }
        assert next == scannedNextTimeoutNs() : "timers " + next + " but the scan says " + scannedNextTimeoutNs();
        return next;
    }

    /** Puts the deadlines that may have changed into the timers: the changed paths' and the connection's own. */
    private void takeDeadlines() {
        deadlines.takePaths();
        deadlines.set(Deadlines.HANDSHAKE, state == State.CONNECTING ? handshakeDueNs : Timers.NONE);
        deadlines.set(Deadlines.PACING, outbound.hasQueued() ? Math.min(pacer.dueNs(), pauseEndsNs) : Timers.NONE);
        deadlines.set(Deadlines.PEER_SILENCE, state == State.ESTABLISHED
                ? Math.min(health.scoutDueNs(), health.deadlineNs()) : Timers.NONE);
        deadlines.set(Deadlines.CLOSING, closing.deadlineNs(unacknowledgedMessages()));
        deadlines.set(Deadlines.CONTROL_DUE, controlDue() ? Long.MIN_VALUE : Timers.NONE);
    }

    /** @return whether a control packet waits: the handshake's answer, receiver-not-ready answers, probe replies */
    private boolean controlDue() {
        return acceptDue || receiver.answersDue();
    }

    /**
     * The earliest deadline derived from the state afresh, every path looked at: what {@link #nextTimeoutNs} answers
     * from its timers, and must agree with (checked where assertions are enabled: the tests).
     */
    private long scannedNextTimeoutNs() {
        if (state == State.CLOSED) {
            return closing.closeDue() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long next = Long.MAX_VALUE;
        if (state == State.CONNECTING) {
            next = handshakeDueNs;
        }
        next = Math.min(next, deadlines.scanPathsNs());
        if (outbound.hasQueued()) {
            next = Math.min(next, Math.min(pacer.dueNs(), pauseEndsNs));
        }
        if (state == State.ESTABLISHED) {
            next = Math.min(next, Math.min(health.scoutDueNs(), health.deadlineNs()));
        }
        next = Math.min(next, closing.deadlineNs(unacknowledgedMessages()));
        if (controlDue()) {
            next = Long.MIN_VALUE;
        }
        return next;
    }

    // ---- Sending ----

    /**
     * Hands over what is due: handshake, close, probe replies, RNRs, ACKs, probes, then data within the windows
     * and the pacing rate.
     *
     * @return packets handed over
     */
    public int emit(long nowNs, TransmitSink sink) {
        int n = 0;
        if (state == State.CONNECTING) {
            if (nowNs - handshakeDueNs >= 0) {
                ctx.sendHandshake(this, sink);
                handshakeDueNs = nowNs + handshakeIntervalNs;
                handshakeIntervalNs = Math.min(handshakeIntervalNs * 2, 100_000_000L);
                n++;
            }
            return n;
        }
        checkDrained(nowNs);
        if (closing.closeDue()) {
            ctx.sendClose(this, sink, closing.closeReason());
            closing.closeSent();
            if (state == State.CLOSED) {
                return n + 1;
            }
            n++;
        }
        if (state == State.CLOSED) {
            return n;
        }
        if (acceptDue) {
            ctx.sendHandshake(this, sink);
            acceptDue = false;
            n++;
        }
        n += receiver.emitAnswers(nowNs, sink);   // probe replies, receiver-not-ready answers, ACKs
        for (SenderPath p : tx) {
            if (health.takeRerouteDue(p.index)) {
                sink.reroute(peer, p.index, p.generation());
            }
            if (p.state() == PathState.FAILED && p.probeDueNs() - nowNs <= 0) {
                int seq = p.nextProbe(nowNs, config);
                deadlines.pathChanged(p.index);
                health.awaitAnswer(nowNs);
                ctx.sendProbe(this, sink, p.index, p.generation(), false, seq, nowNs);
                counters.increment(Counter.PROBES_SENT);
                n++;
            }
        }
        return n + emitData(nowNs, sink);
    }

    private int emitData(long nowNs, TransmitSink sink) {
        pacer.beginEmission(nowNs);
        int n = 0;
        while (true) {
            OutboundMessage next = outbound.nextSendable(nowNs);
            boolean fresh = next != null;
            if (outbound.retransmissionsQueued() == 0 && !fresh) {
                break;
            }
            if (pathChooser.connectionWindowFull()) {
                break;
            }
            SenderPath path = pathChooser.pickPath(fresh, fresh && outbound.retransmissionsQueued() == 0
                    && next.ackLazily);
            if (path == null) {
                break;
            }
            if (!pacer.allows(nowNs)) {
                break;
            }
            if (!sendOne(nowNs, sink, path, fresh && path.state() == PathState.SUSPECT)) {
                break;
            }
            n++;
        }
        pauseEndsNs = outbound.nextPauseEnd(nowNs);
        return n;
    }

    /**
     * Sends one packet on {@code path}: what {@link OutboundQueue#takeNext} chooses (a retransmission first, unless
     * {@code testing} a suspect path with a new chunk).
     */
    private boolean sendOne(long nowNs, TransmitSink sink, SenderPath path, boolean testing) {
        OutboundMessage m = outbound.takeNext(nowNs, testing);
        if (m == null) {
            return false;
        }
        Counter retransmitted = outbound.takenCause();
        transmit(nowNs, sink, path, m, outbound.takenChunk(), retransmitted != null);
        if (retransmitted != null) {
            counters.increment(retransmitted);   // by the cause that queued it
        }
        return true;
    }

    private void transmit(long nowNs, TransmitSink sink, SenderPath path, OutboundMessage m, int chunk,
                          boolean retransmission) {
        int payload = m.chunkLength(chunk, payloadBytes);
        int psn = path.send(nowNs, m.ref, chunk, m.epoch, payload);
        deadlines.pathChanged(path.index);
        health.awaitAnswer(nowNs);
        boolean last = chunk == m.chunks - 1;
        boolean write = m.kind == WorkKind.WRITE;
        int flags = (last ? Flags.LAST : 0) | (retransmission ? Flags.RETRANSMISSION : 0)
                | (path.room() <= 1 || last && (!m.ackLazily || path.state() != PathState.ACTIVE)
                        ? Flags.ACK_REQUESTED : 0)   // a suspect path's answer must come within its silence deadline
                | (last && write && m.withImmediate ? Flags.IMMEDIATE : 0);
        dataPacket.fill(path, psn, nowNs, m, chunk, flags, payloadBytes);
        ctx.sendData(this, sink, dataPacket);
        pacer.sent(payload);
        counters.increment(Counter.DATA_PACKETS_SENT);
        counters.add(Counter.PAYLOAD_BYTES_SENT, payload);
    }

    /** @return work posted and not yet completed */
    public int pendingWork() {
        return outbound.pending() + receiver.pending();
    }

    /** @return the rate the peer currently grants this connection (0: none stated) */
    public double grantedBytesPerSecond() {
        return pacer.rateBytesPerSecond();
    }
}
