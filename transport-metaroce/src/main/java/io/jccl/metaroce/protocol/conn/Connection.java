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
import io.jccl.metaroce.protocol.wire.CloseFlyweight;
import io.jccl.metaroce.protocol.wire.Flags;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One MetaRoCE connection: streams above, logical paths below, one congestion controller. Driven by its
 * {@code Endpoint}, which owns the packet codec, the clock and the sink; this class decides what to send, where
 * to place what arrives, and when work completes. Single-threaded; no allocation per packet in steady state.
 *
 * <p>It keeps the handshake, the reliability of what it sends (messages, chunks never sent, the retransmission
 * queue, completion in stream order) and the graceful close, and hands the rest to its parts: {@link PathHealth}
 * (verdicts on the paths and on the peer's silence), {@link Pacer} (the rate the receiver grants),
 * {@link InboundWrites} and {@link InboundSends} (the peer's WRITEs and SENDs placed and completed), and
 * {@link Timers}, which holds every deadline so that {@link #nextTimeoutNs} takes the earliest instead of deriving
 * each path's timers again.
 */
public final class Connection implements PathHealth.Owner {
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

    // Every deadline of the connection, so that the driver's question "when next?" costs no scan of the paths.
    /** Slots per path: its retransmission timeout, probe, delayed ACK, silence verdict and tail probe. */
    private static final int PATH_SLOTS = 5;
    private static final int RTO = 0;
    private static final int PROBE = 1;
    private static final int ACK = 2;
    private static final int SILENCE = 3;
    private static final int TAIL = 4;
    // Connection slots, after the paths'.
    private static final int HANDSHAKE = 0;
    private static final int PACING = 1;
    private static final int PEER_SILENCE = 2;
    private static final int CLOSING = 3;
    private static final int CONTROL_DUE = 4;
    private static final int CONNECTION_SLOTS = 5;
    private final Timers timers;
    /** {@link #lazyAckDelayNs} of this connection's settings. */
    private final long lazyAckDelay;
    /** Paths (bit per index) whose deadlines may have changed since the timers last took them. */
    private long pathsChanged;
    /** All paths' bits. */
    private final long allPaths;
    /** Some path's silence deadline is set in the timers. */
    private boolean silenceArmed;
    /** Every path has a round trip of its own: no tail probe hangs on the siblings' any more. */
    private boolean everyPathTimed;

    // Handshake.
    private final byte[] localNonce;
    private byte[] remoteNonce;
    private long handshakeDueNs;
    private long handshakeIntervalNs;
    private boolean acceptDue;

    // Sending side.
    private final OutboundMessage[] outbound;
    private final int[] freeOutbound;
    private int freeOutboundCount;
    private int[] sendOrder = new int[16];   // refs with chunks never sent, in posting order
    private int sendHead;
    private int sendCount;
    private int[] retx = new int[48];        // triples: ref, chunk, epoch
    private int retxHead;
    private int retxCount;
    private int nextWriteId;
    /** WRITEs and SENDs posted and not yet completed (posted receives: {@link InboundSends#pending}). */
    private int outboundPending;
    private final Int2ObjectHashMap<Stream> streams = new Int2ObjectHashMap<>();
    private int pathCursor;
    /** The path the last packet took. */
    private int lastPath;
    /** How much less room (packets, at equal round-trip times) the last packet's path may have and keep the next. */
    static final int STICKY_ROOM_PACKETS = 16;
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

    // Receiving side.
    /** The peer's WRITEs arriving: placement once per chunk, immediates, duplicates of completed ones. */
    private final InboundWrites inboundWrites;
    /** The peer's SENDs arriving: the receives posted per stream, placement, completion in order, RNR answers. */
    private final InboundSends inboundSends;
    private int[] probeReplies = new int[12];   // quadruples: path, generation, seq, (timestamp in two ints)
    private int probeReplyCount;
    private final InboundPool inboundPool = new InboundPool();

    private boolean closeDue;
    /** The reason the due CLOSE carries. */
    private int closeReason = CloseFlyweight.REASON_CLOSED;

    // Graceful close (docs/metaroce-wire.md, "Closing"): see shutdown() and onClose().
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
    /** Attempts before a draining side may take the peer's silence for an answer (each may be lost). */
    private static final int MIN_DRAINED_ATTEMPTS = 4;
    /** When anything of this connection last arrived from the peer. */
    private long lastHeardNs;

    /** Per-stream state of the sends (the receives': {@link InboundSends}). */
    private static final class Stream {
        int nextSendSeq;
        int[] sendsInOrder = new int[8];   // outbound refs by message sequence, from sendsBase
        int sendsBase;
        int sendsCount;
    }

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
        this.timers = new Timers(paths * PATH_SLOTS + CONNECTION_SLOTS);
        this.lazyAckDelay = lazyAckDelayNs(config);
        this.allPaths = paths == 64 ? -1L : (1L << paths) - 1;
        this.pathsChanged = allPaths;
        this.outbound = new OutboundMessage[config.maxPendingWork()];
        this.freeOutbound = new int[config.maxPendingWork()];
        for (int i = 0; i < outbound.length; i++) {
            outbound[i] = new OutboundMessage(i);
            freeOutbound[i] = outbound.length - 1 - i;
        }
        this.freeOutboundCount = outbound.length;
        this.state = initiator ? State.CONNECTING : State.ESTABLISHED;
        this.handshakeIntervalNs = 4 * config.rtoFloorNs();   // the first RTO before any RTT sample; doubles per retry
        this.handshakeDueNs = initiator ? nowNs : Long.MAX_VALUE;
        this.acceptDue = !initiator;
        this.pacer = new Pacer(payload, nowNs);
        this.inboundWrites = new InboundWrites(this, ctx, inboundPool, payload, config.maxPendingWork());
        this.inboundSends = new InboundSends(this, ctx, inboundPool, payload, config.rnrRetryNs());
        this.lastHeardNs = nowNs;
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

    private int allocateOutbound() {
        return freeOutboundCount == 0 ? -1 : freeOutbound[--freeOutboundCount];
    }

    private boolean full() {
        return pendingWork() >= config.maxPendingWork() || refusesWork();
    }

    /** Closed, closing gracefully, or told by the peer that it sends nothing more: new work completes as closed. */
    private boolean refusesWork() {
        return state == State.CLOSED || draining || peerDrained;
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
        int ref = allocateOutbound();
        if (ref < 0) {
            return -1;
        }
        long id = ctx.nextWorkId();
        outbound[ref].reset(id, WorkKind.WRITE, -1, regionKey, remoteOffset, local, offset, length, nextWriteId++,
                payloadBytes);
        outbound[ref].withImmediate = withImmediate;
        outbound[ref].immediate = immediate;
        outboundPending++;
        enqueueSend(ref);
        return id;
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
        int ref = allocateOutbound();
        if (ref < 0) {
            return -1;
        }
        Stream s = stream(streamId);
        long id = ctx.nextWorkId();
        outbound[ref].reset(id, WorkKind.SEND, streamId, 0, 0, local, offset, length, s.nextSendSeq++, payloadBytes);
        outbound[ref].ackLazily = ackLazily;
        if (s.sendsCount == s.sendsInOrder.length) {
            s.sendsInOrder = ring(s.sendsInOrder, s.sendsBase, s.sendsCount);
            s.sendsBase = 0;
        }
        s.sendsInOrder[(s.sendsBase + s.sendsCount++) % s.sendsInOrder.length] = ref;
        outboundPending++;
        enqueueSend(ref);
        return id;
    }

    public long postRecv(int streamId, MemorySegment local, long offset, long capacity) {
        if (full()) {
            return refusesWork() ? closedWork(WorkKind.RECV) : -1;
        }
        long id = ctx.nextWorkId();
        inboundSends.post(streamId, id, local, offset, capacity);
        return id;
    }

    private long closedWork(WorkKind kind) {
        long id = ctx.nextWorkId();
        ctx.complete(this, id, kind, kind == WorkKind.RECV && peerDrained && state != State.CLOSED
                ? CompletionStatus.PEER_DONE : CompletionStatus.CONNECTION_CLOSED, 0);
        return id;
    }

    private static int[] ring(int[] old, int head, int count) {
        int[] bigger = new int[old.length * 2];
        for (int i = 0; i < count; i++) {
            bigger[i] = old[(head + i) % old.length];
        }
        return bigger;
    }

    private Stream stream(int id) {
        Stream s = streams.get(id);
        if (s == null) {
            s = new Stream();
            streams.put(id, s);
        }
        return s;
    }

    private void enqueueSend(int ref) {
        if (sendCount == sendOrder.length) {
            sendOrder = ring(sendOrder, sendHead, sendCount);
            sendHead = 0;
        }
        sendOrder[(sendHead + sendCount++) % sendOrder.length] = ref;
    }

    private void queueRetransmit(int ref, int chunk, int epoch) {
        if (retxCount * 3 == retx.length) {
            int[] bigger = new int[retx.length * 2];
            for (int i = 0; i < retxCount; i++) {
                int from = ((retxHead + i) % (retx.length / 3)) * 3;
                bigger[i * 3] = retx[from];
                bigger[i * 3 + 1] = retx[from + 1];
                bigger[i * 3 + 2] = retx[from + 2];
            }
            retx = bigger;
            retxHead = 0;
        }
        int at = ((retxHead + retxCount++) % (retx.length / 3)) * 3;
        retx[at] = ref;
        retx[at + 1] = chunk;
        retx[at + 2] = epoch;
    }

    // ---- AckVisitor: what ACKs and timers establish ----

    @Override
    public void acknowledged(int ref, int chunk, int epoch) {
        OutboundMessage m = outbound[ref];
        if (m.done || m.epoch != epoch || OutboundMessage.get(m.acked, chunk)) {
            return;
        }
        OutboundMessage.set(m.acked, chunk);
        m.ackedChunks++;
        if (m.ackedChunks == m.chunks) {
            m.done = true;
            reportOutbound(m);
        }
    }

    @Override
    public void lost(int ref, int chunk, int epoch) {
        OutboundMessage m = outbound[ref];
        if (m.done || m.epoch != epoch || OutboundMessage.get(m.acked, chunk) || OutboundMessage.get(m.queued, chunk)) {
            return;
        }
        OutboundMessage.set(m.queued, chunk);
        queueRetransmit(ref, chunk, epoch);
    }

    private void reportOutbound(OutboundMessage m) {
        if (m.kind == WorkKind.WRITE) {
            finishOutbound(m, CompletionStatus.OK);
            return;
        }
        Stream s = streams.get(m.stream);
        while (s.sendsCount > 0) {
            OutboundMessage head = outbound[s.sendsInOrder[s.sendsBase]];
            if (!head.done) {
                break;
            }
            s.sendsBase = (s.sendsBase + 1) % s.sendsInOrder.length;
            s.sendsCount--;
            finishOutbound(head, CompletionStatus.OK);
        }
    }

    private void finishOutbound(OutboundMessage m, CompletionStatus status) {
        if (m.reported) {
            return;
        }
        m.reported = true;
        outboundPending--;
        ctx.complete(this, m.workId, m.kind, status, status == CompletionStatus.OK ? m.length : 0);
        m.local = null;
        freeOutbound[freeOutboundCount++] = m.ref;
    }

    // ---- Receiving ----

    /**
     * A DATA packet of this connection, already checked for structure, session and path.
     *
     * @return null when it was accepted (placed, or a duplicate of placed data), otherwise why it was dropped
     */
    public DropReason onData(long nowNs, DirectBuffer b, int o, boolean write, int pathIndex, int psn, int flags,
                             long timestampNs, int message, int target, long offset, long messageLength, long base,
                             int payloadOffset, int payload, boolean ecnMarked) {
        if (state != State.ESTABLISHED) {
            return DropReason.UNEXPECTED;
        }
        long chunkIndex = offset / payloadBytes;
        // The message's chunks must be countable in an int (the chunk maps are sized by that count), not only this
        // chunk's index: (messageLength - 1) / payloadBytes is the last chunk's index (0 for an empty message).
        if (offset < 0 || messageLength < 0 || offset % payloadBytes != 0 || offset > messageLength
                || payload != Math.min(payloadBytes, messageLength - offset) || chunkIndex > Integer.MAX_VALUE
                || (messageLength - 1) / payloadBytes >= Integer.MAX_VALUE) {
            return DropReason.MESSAGE_BOUNDS;
        }
        int chunk = (int) chunkIndex;
        boolean withImmediate = (flags & Flags.IMMEDIATE) != 0;
        if (withImmediate && (!write || offset + payload != messageLength)) {
            return DropReason.MESSAGE_BOUNDS;   // an immediate rides only on a WRITE's last packet
        }
        boolean duplicate;
        if (write) {
            DropReason dropped = inboundWrites.onPacket(b, payloadOffset, payload, withImmediate, message, target,
                    chunk, offset, messageLength, base);
            if (dropped != null) {
                return dropped;
            }
            duplicate = inboundWrites.wasDuplicate();
        } else {
            switch (inboundSends.onPacket(nowNs, b, payloadOffset, payload, target, message, chunk, offset,
                    messageLength)) {
                case PLACED -> duplicate = false;
                case DUPLICATE -> duplicate = true;
                case NOT_READY -> {
                    return null;   // not placed: no ACK; RNR sent (rate-limited)
                }
                case UNKNOWN_STREAM -> {
                    return DropReason.UNEXPECTED;   // likewise
                }
                case BAD_LENGTH -> {
                    return DropReason.MESSAGE_BOUNDS;
                }
                default -> throw new IllegalStateException();
            }
        }
        // Placed (or already placed): acknowledge it.
        ReceiverPath path = rx[pathIndex];
        pathChanged(pathIndex);
        path.accept(psn);
        boolean hole = path.hasHole();
        // A message's last packet that does not ask for an ACK is one its sender does not wait for (an eager
        // small message, completed when sent): its ACK waits for more of them, or LAZY_ACK_DELAY_NS. Every ACK of a
        // small message otherwise cost both ends a datagram (3.5 us to send, 1.2 us to read here) in the middle of
        // the next exchange.
        boolean lazy = (flags & (Flags.LAST | Flags.ACK_REQUESTED)) == Flags.LAST;
        path.scheduleAck(nowNs, duplicate || hole || (flags & Flags.ACK_REQUESTED) != 0,
                lazy ? LAZY_ACK_EVERY_PACKETS : config.ackEveryPackets(),
                lazy ? lazyAckDelay : config.delayedAckNs(), timestampNs,
                ecnMarked);
        counters.increment(Counter.DATA_PACKETS_RECEIVED);
        if (ecnMarked) {
            counters.increment(Counter.ECN_MARKS_RECEIVED);
        }
        if (duplicate) {
            counters.increment(Counter.DUPLICATE_PACKETS_RECEIVED);
        } else {
            counters.add(Counter.PAYLOAD_BYTES_PLACED, payload);
            ctx.inbound(this, payload, ecnMarked, nowNs);
        }
        return null;
    }

    /** Installs the lookup of regions open for remote writes: a key's size in bytes, or -1. */
    public void regions(java.util.function.IntToLongFunction lookup) {
        inboundWrites.regions(lookup);
    }

    /** An ACK for one of this connection's paths, current generation. */
    public void onAck(long nowNs, int pathIndex, int cumulative, int ecnCount, long echoNs, double rateHint, long s0,
                      long s1, long s2, long s3) {
        SenderPath p = tx[pathIndex];
        if (p.state() == PathState.FAILED) {
            return;
        }
        pathChanged(pathIndex);
        int before = retxCount;
        int acked = p.onAck(nowNs, echoNs, cumulative, s0, s1, s2, s3, this);
        // A round trip only from the very packet the ACK echoes, newly acknowledged by it. One that spans a stall of
        // either host is taken too (clamped at rtoMaxNs): where stalls are routine they are part of the round trip
        // the timeout must cover.
        if (acked > 0 && p.echoAcknowledged()) {
            p.onRttSample(nowNs - echoNs, config.rtoMaxNs());
        }
        answered(nowNs, echoNs);
        if (retxCount > before) {
            counters.add(Counter.SACK_HOLES, retxCount - before);
        }
        if (p.onEcnCount(nowNs, ecnCount)) {
            counters.increment(Counter.ECN_WINDOW_CUTS);
        }
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
        Stream s = streams.get(stream);
        if (s == null) {
            return;
        }
        for (int i = 0; i < s.sendsCount; i++) {
            OutboundMessage m = outbound[s.sendsInOrder[(s.sendsBase + i) % s.sendsInOrder.length]];
            if (m.seq == message && !m.done) {
                boolean wasQueued = m.nextChunk < m.chunks;
                // Its packets in flight were discarded by the receiver, not lost by a path: take them off the paths'
                // books so that their silence does not time out (and fail) healthy paths.
                for (SenderPath p : tx) {
                    p.forget(m.ref, m.epoch);
                }
                pathsChanged = allPaths;
                long pauseNs = Math.max(config.rnrRetryNs(), Math.min(retryNs, config.rtoMaxNs()));
                m.restart(nowNs + pauseNs);
                if (!wasQueued) {
                    enqueueSend(m.ref);
                }
                return;
            }
        }
    }

    /** The peer probes a path (possibly a new generation of it). */
    public void onProbe(int pathIndex, int generation, int seq, long timestampNs) {
        if (probeReplyCount * 4 == probeReplies.length) {
            probeReplies = Arrays.copyOf(probeReplies, probeReplies.length * 2);
        }
        int at = probeReplyCount++ * 4;
        probeReplies[at] = pathIndex | generation << 8;
        probeReplies[at + 1] = seq;
        probeReplies[at + 2] = (int) (timestampNs >>> 32);
        probeReplies[at + 3] = (int) timestampNs;
    }

    /** A reply to our probe. */
    public void onProbeReply(long nowNs, int pathIndex, int seq, long echoNs) {
        pathChanged(pathIndex);
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
        boolean drained = reason == CloseFlyweight.REASON_DRAINED;
        boolean confirm = reason == CloseFlyweight.REASON_DRAINED_CONFIRM;
        if (!drained && !confirm) {
            if (state != State.CLOSED) {
                closeCause = "the peer closed it (reason " + reason + ")";
            }
            fail();
            return;
        }
        if (state == State.CLOSED) {
            if (drained && closedDrained) {
                closeDue = true;   // our confirmation was lost: the peer asks again
                closeReason = CloseFlyweight.REASON_DRAINED_CONFIRM;
            }
            return;   // a confirmation is never answered: two closed sides must not keep answering each other
        }
        if (state != State.ESTABLISHED || (confirm && !draining)) {
            return;   // a confirmation of a close this side never asked for
        }
        peerConfirmed |= confirm;
        if (!peerDrained) {
            peerDrained = true;
            inboundSends.failAll(CompletionStatus.PEER_DONE);   // the peer said nothing more will come
        }
        checkDrained(nowNs);
    }

    /** Closes from this side at once: the peer is told once, pending work completes as closed. */
    public void close() {
        if (state != State.CLOSED) {
            closeCause = draining ? "closed by this side before everything it sent was acknowledged"
                    : "closed by this side";
            closeDue = true;
            closeReason = CloseFlyweight.REASON_CLOSED;
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
        if (state == State.CLOSED || draining) {
            return;
        }
        if (state == State.CONNECTING) {
            close();
            return;
        }
        draining = true;
        long rttNs = health.bestActiveRttNs();
        // Repeated like a retransmission: twice the best round trip, or the first RTO before any sample.
        drainedCloseIntervalNs = Math.min(config.rtoMaxNs(), rttNs == Long.MAX_VALUE ? 4 * config.rtoFloorNs()
                : Math.max(config.rtoFloorNs(), 2 * rttNs));
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
        for (OutboundMessage m : outbound) {
            if (m.local != null && !m.reported && m.workId == workId && m.kind == WorkKind.WRITE) {
                for (SenderPath p : tx) {
                    p.forget(m.ref, m.epoch);
                }
                pathsChanged = allPaths;
                m.done = true;
                finishOutbound(m, CompletionStatus.CANCELLED);
                return true;
            }
        }
        return false;
    }

    /** @return messages this side posted (WRITEs and SENDs) that are not yet acknowledged or failed */
    public int unacknowledgedMessages() {
        return outbound.length - freeOutboundCount;
    }

    /** @return bytes of the messages this side posted that are not yet acknowledged or failed */
    public long unacknowledgedBytes() {
        long bytes = 0;
        for (OutboundMessage m : outbound) {
            if (m.local != null && !m.reported) {
                bytes += m.length;
            }
        }
        return bytes;
    }

    /** @return whether this side is closing gracefully and waits for acknowledgements or the peer's answer */
    public boolean draining() {
        return draining && state != State.CLOSED;
    }

    /**
     * The graceful close's progress: once this side has nothing unacknowledged, it tells the peer (when it is the one
     * closing, repeating until the peer answers) or answers the peer's CLOSE and closes.
     */
    private void checkDrained(long nowNs) {
        if (state != State.ESTABLISHED || !(draining || peerDrained) || unacknowledgedMessages() > 0) {
            return;
        }
        if (peerDrained) {
            closeCause = draining ? "closed by both sides, everything delivered"
                    : "the peer closed it, everything delivered both ways";
            closedDrained = true;
            counters.increment(Counter.CONNECTIONS_CLOSED_DRAINED);
            if (!peerConfirmed) {
                closeDue = true;   // confirm: the peer waits for it to stop acknowledging
                closeReason = CloseFlyweight.REASON_DRAINED_CONFIRM;
            }
            fail();
            return;
        }
        if (drainedAttempts >= MIN_DRAINED_ATTEMPTS && nowNs - quietUntilNs() >= 0) {
            // No confirmation, and silence far longer than the peer's longest retransmission interval: the peer
            // needs nothing more from this side (else it would still be sending), or it is gone (its confirmation
            // lost before it closed). Everything this side sent was acknowledged.
            closeCause = "closed by this side, everything delivered; the peer did not confirm and was silent for "
                    + (nowNs - Math.max(lastHeardNs, drainedSinceNs)) / 1_000_000 + " ms";
            closedDrained = true;
            counters.increment(Counter.CONNECTIONS_CLOSED_DRAINED);
            fail();
            return;
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
    }

    /**
     * @return when a draining side that told the peer it is drained stops waiting for the confirmation: twice the
     *         longest retransmission interval after the later of its first CLOSE and the last thing heard
     */
    private long quietUntilNs() {
        return Math.max(lastHeardNs, drainedSinceNs) + 2 * config.rtoMaxNs();
    }

    private String closeCause = "open";

    /** @return why the connection closed, for diagnostics ("open" while it is not closed) */
    public String closeCause() {
        return closeCause;
    }

    private void fail() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        counters.increment(Counter.CONNECTIONS_CLOSED);
        for (OutboundMessage m : outbound) {
            if (m.local != null && !m.reported) {
                finishOutbound(m, CompletionStatus.CONNECTION_CLOSED);
            }
        }
        inboundSends.failAll(CompletionStatus.CONNECTION_CLOSED);
        for (Stream s : streams.values()) {
            s.sendsCount = 0;
        }
        sendCount = 0;
        retxCount = 0;
    }

    // ---- Timers ----

    /** Path {@code index}'s state changed: its deadlines are taken again before the next question. */
    private void pathChanged(int index) {
        pathsChanged |= 1L << index;
    }

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
        if (timers.anyDue(0, tx.length * PATH_SLOTS, nowNs)) {
            rtoRetransmits += health.judgePaths(nowNs, this);
            probeTails(nowNs);
            pathsChanged = allPaths;
        }
        if (state != State.ESTABLISHED) {
            return;
        }
        if (health.scoutIfDue(nowNs, this)) {
            pathsChanged = allPaths;
        }
        if (health.silenceLimitPassed(nowNs)) {
            closeCause = "failed: nothing received from the peer on any path for "
                    + config.connectionDeadNs() / 1_000_000 + " ms while waiting for answers (the silence limit: "
                    + "connectionDeadNs, JCCL_METAROCE_DEAD_MS for the metaroce transport)";
            counters.increment(Counter.CONNECTIONS_DEAD);
            closeReason = CloseFlyweight.REASON_FAILED;
            closeDue = true;   // tell the peer, best effort: it may be waiting for receives that will never come
            fail();
        }
    }

    /** Retransmissions queued by timeouts (and retests), counted as such when they are sent. */
    private int rtoRetransmits;
    /** Retransmissions queued by tail probes, counted as such when they are sent (after the timeouts'). */
    private int tailRetransmits;

    /** Probes the tail of every path whose tail probe is due (see {@link SenderPath#tailProbeDueNs}). */
    private void probeTails(long nowNs) {
        long siblingRttNs = health.bestActiveRttNs();
        for (SenderPath p : tx) {
            long dueNs = p.tailProbeDueNs(lazyAckDelay, siblingRttNs);
            if (dueNs != Long.MAX_VALUE && dueNs - nowNs <= 0) {
                int before = retxCount;
                p.probeTail(this);
                tailRetransmits += retxCount - before;
            }
        }
    }

    @Override
    public int retransmissionsQueued() {
        return retxCount;
    }

    /** The peer answered a send time of ours: the path health judges the suspect paths by it. */
    private void answered(long nowNs, long echoNs) {
        if (health.anySuspect()) {
            pathsChanged = allPaths;   // verdicts on any suspect path, and the best sibling RTT, may change
        }
        rtoRetransmits += health.answered(nowNs, echoNs, this);
    }

    /**
     * Something authenticated arrived from the peer on this connection (any type, any path, any generation): it is
     * alive, so the silence that fails a connection starts over.
     */
    public void heard(long nowNs) {
        health.heard();
        lastHeardNs = nowNs;   // a graceful close waits for the peer's silence when its confirmation does not come
    }

    /**
     * A packet of path {@code index} carries {@code generation}: a newer one starts the receiving path over, an older
     * one is stale.
     *
     * @return false when the packet is stale (the caller drops it)
     */
    public boolean adoptGeneration(int index, int generation) {
        ReceiverPath r = rx[index];
        int diff = (short) (generation - r.generation());
        if (diff > 0) {
            r.reset(generation);
            pathChanged(index);
        }
        return diff >= 0;
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
            pathsChanged = allPaths;
        }
        return late;
    }

    /** @return the earliest deadline of this connection: {@link Long#MIN_VALUE} when something is due at once */
    public long nextTimeoutNs() {
        long next;
        if (state == State.CLOSED) {
            next = closeDue ? Long.MIN_VALUE : Long.MAX_VALUE;
        } else {
            takeDeadlines();
            next = timers.earliestNs();
        }
        assert next == scannedNextTimeoutNs() : "timers " + next + " but the scan says " + scannedNextTimeoutNs();
        return next;
    }

    /** Puts the deadlines that may have changed into the timers: the changed paths' and the connection's own. */
    private void takeDeadlines() {
        if (pathsChanged != 0) {
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
        int at = tx.length * PATH_SLOTS;
        timers.set(at + HANDSHAKE, state == State.CONNECTING ? handshakeDueNs : Timers.NONE);
        timers.set(at + PACING, sendCount > 0 || retxCount > 0 ? Math.min(pacer.dueNs(), pauseEndsNs) : Timers.NONE);
        timers.set(at + PEER_SILENCE, state == State.ESTABLISHED
                ? Math.min(health.scoutDueNs(), health.deadlineNs()) : Timers.NONE);
        long closingNs = Timers.NONE;
        if (draining && unacknowledgedMessages() == 0) {
            closingNs = drainedAttempts >= MIN_DRAINED_ATTEMPTS ? Math.min(drainedCloseDueNs, quietUntilNs())
                    : drainedCloseDueNs;
        }
        timers.set(at + CLOSING, closingNs);
        timers.set(at + CONTROL_DUE, acceptDue || inboundSends.rnrsDue() > 0 || probeReplyCount > 0 ? Long.MIN_VALUE : Timers.NONE);
    }

    /**
     * The earliest deadline derived from the state afresh, every path looked at: what {@link #nextTimeoutNs} answers
     * from its timers, and must agree with (checked where assertions are enabled: the tests).
     */
    private long scannedNextTimeoutNs() {
        if (state == State.CLOSED) {
            return closeDue ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long next = Long.MAX_VALUE;
        if (state == State.CONNECTING) {
            next = handshakeDueNs;
        }
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
        if (sendCount > 0 || retxCount > 0) {
            next = Math.min(next, Math.min(pacer.dueNs(), pauseEndsNs));
        }
        if (state == State.ESTABLISHED) {
            next = Math.min(next, Math.min(health.scoutDueNs(), health.deadlineNs()));
        }
        if (draining && unacknowledgedMessages() == 0) {
            next = Math.min(next, drainedCloseDueNs);
            if (drainedAttempts >= MIN_DRAINED_ATTEMPTS) {
                next = Math.min(next, quietUntilNs());
            }
        }
        if (acceptDue || inboundSends.rnrsDue() > 0 || probeReplyCount > 0) {
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
        if (closeDue) {
            ctx.sendClose(this, sink, closeReason);
            closeDue = false;
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
        for (int i = 0; i < probeReplyCount; i++) {
            int pg = probeReplies[i * 4];
            long ts = (long) probeReplies[i * 4 + 2] << 32 | (probeReplies[i * 4 + 3] & 0xFFFF_FFFFL);
            ctx.sendProbe(this, sink, pg & 0xFF, pg >>> 8, true, probeReplies[i * 4 + 1], ts);
            n++;
        }
        probeReplyCount = 0;
        for (int i = 0; i < inboundSends.rnrsDue(); i++) {
            ctx.sendRnr(this, sink, inboundSends.rnrStream(i), inboundSends.rnrMessage(i), config.rnrRetryNs());
            n++;
        }
        inboundSends.rnrsSent();
        for (int p = 0; p < rx.length; p++) {
            if (rx[p].ackDue(nowNs)) {
                ctx.sendAck(this, sink, p, rx[p], ctx.hint(this));
                rx[p].acked();
                pathChanged(p);
                n++;
            }
        }
        for (SenderPath p : tx) {
            if (health.takeRerouteDue(p.index)) {
                sink.reroute(peer, p.index, p.generation());
            }
            if (p.state() == PathState.FAILED && p.probeDueNs() - nowNs <= 0) {
                int seq = p.nextProbe(nowNs, config);
                pathChanged(p.index);
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
            OutboundMessage next = nextSendable(nowNs);
            boolean fresh = next != null;
            if (retxCount == 0 && !fresh) {
                break;
            }
            if (connectionWindowFull()) {
                break;
            }
            SenderPath path = pickPath(fresh, fresh && retxCount == 0 && next.ackLazily);
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
        pauseEndsNs = nextPauseEnd(nowNs);
        return n;
    }

    /**
     * The earliest future end of a receiver-not-ready pause. Only future ones: a message whose pause is over but
     * which waits for window room is woken by the ACK or timeout that opens it, not by a timer already past.
     */
    private long nextPauseEnd(long nowNs) {
        long end = Long.MAX_VALUE;
        for (int i = 0; i < sendCount; i++) {
            long until = outbound[sendOrder[(sendHead + i) % sendOrder.length]].pausedUntilNs;
            if (until - nowNs > 0) {
                end = Math.min(end, until);
            }
        }
        return end;
    }

    private boolean connectionWindowFull() {
        double rateBytesPerSecond = pacer.rateBytesPerSecond();
        if (rateBytesPerSecond <= 0) {
            return false;
        }
        long inflight = 0;
        long minRtt = Long.MAX_VALUE;
        for (SenderPath p : tx) {
            inflight += p.bytesInFlight();
            if (p.hasRtt()) {
                minRtt = Math.min(minRtt, p.srttNs());
            }
        }
        if (minRtt == Long.MAX_VALUE) {
            return false;
        }
        double window = rateBytesPerSecond * minRtt / 1e9 * 2 + 8.0 * payloadBytes;
        return inflight >= window;
    }

    /** @return the oldest message with a chunk never sent and not paused, or null */
    private OutboundMessage nextSendable(long nowNs) {
        for (int i = 0; i < sendCount; i++) {
            OutboundMessage m = outbound[sendOrder[(sendHead + i) % sendOrder.length]];
            if (m.nextChunk < m.chunks && nowNs - m.pausedUntilNs >= 0) {
                return m;
            }
        }
        return null;
    }

    /**
     * Spraying: the usable path with the most room per unit of round-trip time; ties rotate. A lazily acknowledged
     * message ({@code sticky}) takes the path the last packet took while its room is within
     * {@link #STICKY_ROOM_PACKETS} of the best: such small messages then share one path and its acknowledgements,
     * which come one per {@link #LAZY_ACK_EVERY_PACKETS} messages of a path (spread over 8 paths, the delay ran out
     * first and each path's ACK covered one or two). A suspect path is tested with the next new packet
     * ({@code fresh}: one is waiting): silence fails it, an ACK clears it.
     * Retransmissions go to healthy paths while one has room: a path that timed out may be bad, and an answer on a
     * sibling is what tells a bad path from a silent peer.
     */
    private SenderPath pickPath(boolean fresh, boolean sticky) {
        SenderPath best = null;
        SenderPath suspect = null;
        long bestRoom = 0;
        long bestRttNs = 1;
        int n = tx.length;
        int i = pathCursor;
        for (int k = 0; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
            SenderPath p = tx[i];
            int room = p.room();
            if (room <= 0) {
                continue;
            }
            if (p.state() == PathState.SUSPECT) {
                if (fresh) {
                    best = p;
                    break;
                }
                if (suspect == null) {
                    suspect = p;
                }
                continue;
            }
            long rttNs = Math.max(1, p.srttNs());   // 0 (no sample yet) counts as the shortest
            // room / rtt > bestRoom / bestRtt, without dividing
            if (best == null || room * bestRttNs > bestRoom * rttNs) {
                best = p;
                bestRoom = room;
                bestRttNs = rttNs;
            }
        }
        SenderPath last = tx[lastPath];
        if (sticky && best != null && best != last && best.state() == PathState.ACTIVE
                && last.state() == PathState.ACTIVE && last.room() > 0
                && (last.room() + STICKY_ROOM_PACKETS) * bestRttNs >= bestRoom * Math.max(1, last.srttNs())) {
            best = last;
        }
        if (best == null) {
            best = suspect;
        }
        if (best != null) {
            pathCursor = best.index + 1 == n ? 0 : best.index + 1;
            lastPath = best.index;
        }
        return best;
    }

    /**
     * Sends one packet on {@code path}: the oldest chunk waiting to be retransmitted, else the next new one; a new one
     * first when {@code testing} (a suspect path while a new chunk waits: it is tested with that).
     */
    private boolean sendOne(long nowNs, TransmitSink sink, SenderPath path, boolean testing) {
        while (!testing && retxCount > 0) {
            int at = retxHead * 3;
            int ref = retx[at];
            int chunk = retx[at + 1];
            int epoch = retx[at + 2];
            retxHead = (retxHead + 1) % (retx.length / 3);
            retxCount--;
            OutboundMessage m = outbound[ref];
            if (m.done || m.reported || m.epoch != epoch || OutboundMessage.get(m.acked, chunk)
                    || !OutboundMessage.get(m.queued, chunk)) {
                continue;   // stale entry
            }
            OutboundMessage.clear(m.queued, chunk);
            transmit(nowNs, sink, path, m, chunk, true);
            if (rtoRetransmits > 0) {
                rtoRetransmits--;
                counters.increment(Counter.RETRANSMITS_RTO);
            } else if (tailRetransmits > 0) {
                tailRetransmits--;
                counters.increment(Counter.RETRANSMITS_TAIL);
            } else {
                counters.increment(Counter.RETRANSMITS_SACK);
            }
            return true;
        }
        // Then new chunks, in posting order, skipping messages paused by a receiver-not-ready answer.
        for (int i = 0; i < sendCount; i++) {
            int idx = (sendHead + i) % sendOrder.length;
            OutboundMessage m = outbound[sendOrder[idx]];
            if (m.reported || m.nextChunk >= m.chunks) {
                removeSendAt(i);
                i--;
                continue;
            }
            if (nowNs - m.pausedUntilNs < 0) {
                continue;
            }
            int chunk = m.nextChunk++;
            transmit(nowNs, sink, path, m, chunk, false);
            if (m.nextChunk >= m.chunks) {
                removeSendAt(i);
            }
            return true;
        }
        return false;
    }

    private void removeSendAt(int i) {
        int len = sendOrder.length;
        for (int k = i; k < sendCount - 1; k++) {
            sendOrder[(sendHead + k) % len] = sendOrder[(sendHead + k + 1) % len];
        }
        sendCount--;
    }

    private void transmit(long nowNs, TransmitSink sink, SenderPath path, OutboundMessage m, int chunk,
                          boolean retransmission) {
        int payload = m.chunkLength(chunk, payloadBytes);
        int psn = path.send(nowNs, m.ref, chunk, m.epoch, payload);
        pathChanged(path.index);
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
        return outboundPending + inboundSends.pending();
    }

    /** @return the rate the peer currently grants this connection (0: none stated) */
    public double grantedBytesPerSecond() {
        return pacer.rateBytesPerSecond();
    }
}
