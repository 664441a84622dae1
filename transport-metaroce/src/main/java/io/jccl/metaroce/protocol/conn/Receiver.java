package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.path.ReceiverPath;
import io.jccl.metaroce.protocol.wire.Flags;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * The receiving side of one connection: each arriving DATA packet checked against its message's bounds, handed to
 * the reassembly of the peer's WRITEs ({@link InboundWrites}) or SENDs ({@link InboundSends}), and acknowledged on its
 * path (at once, after more packets, or lazily); and the answers the peer is owed: probe replies, receiver-not-ready
 * answers, ACKs. The sending side's counterpart is {@link OutboundQueue}; the connection decides when each may act.
 * Single-threaded; no allocation per packet in steady state.
 */
final class Receiver {
    private final Connection owner;
    private final Connection.Context ctx;
    private final EndpointConfig config;
    private final Counters counters;
    private final ReceiverPath[] rx;
    private final Deadlines deadlines;
    private final int payloadBytes;
    /** {@link Connection#lazyAckDelayNs} of this connection's settings. */
    private final long lazyAckDelay;
    /** The peer's WRITEs arriving: placement once per chunk, immediates, duplicates of completed ones. */
    private final InboundWrites inboundWrites;
    /** The peer's SENDs arriving: the receives posted per stream, placement, completion in order, RNR answers. */
    private final InboundSends inboundSends;
    private int[] probeReplies = new int[12];   // quadruples: path, generation, seq, (timestamp in two ints)
    private int probeReplyCount;

    /**
     * @param owner        the connection, named in completions and packets
     * @param ctx          the endpoint
     * @param config       the endpoint's settings
     * @param counters     where packets are counted
     * @param rx           the connection's receiving paths
     * @param deadlines    the connection's deadlines, told which paths changed
     * @param payloadBytes payload bytes per packet
     * @param lazyAckDelay how long a lazy ACK may wait
     */
    Receiver(Connection owner, Connection.Context ctx, EndpointConfig config, Counters counters, ReceiverPath[] rx,
             Deadlines deadlines, int payloadBytes, long lazyAckDelay) {
        this.owner = owner;
        this.ctx = ctx;
        this.config = config;
        this.counters = counters;
        this.rx = rx;
        this.deadlines = deadlines;
        this.payloadBytes = payloadBytes;
        this.lazyAckDelay = lazyAckDelay;
        InboundPool inboundPool = new InboundPool();
        this.inboundWrites = new InboundWrites(owner, ctx, inboundPool, payloadBytes, config.maxPendingWork());
        this.inboundSends = new InboundSends(owner, ctx, inboundPool, payloadBytes, config.rnrRetryNs());
    }

    /** Installs the lookup of regions open for remote writes: a key's size in bytes, or -1. */
    void regions(IntToLongFunction lookup) {
        inboundWrites.regions(lookup);
    }

    /** Posts a receive of up to {@code capacity} bytes for the stream's next message. */
    void post(int streamId, long workId, MemorySegment local, long offset, long capacity) {
        inboundSends.post(streamId, workId, local, offset, capacity);
    }

    /** @return receives posted and not completed */
    int pending() {
        return inboundSends.pending();
    }

    /** Completes every posted receive with {@code status}: nothing more will arrive for them. */
    void failAll(CompletionStatus status) {
        inboundSends.failAll(status);
    }

    /**
     * A DATA packet of an established connection, already checked for structure, session and path.
     *
     * @return null when it was accepted (placed, or a duplicate of placed data), otherwise why it was dropped
     */
    DropReason onData(long nowNs, InboundData d) {
        long offset = d.offset;
        long messageLength = d.messageLength;
        int payload = d.payload;
        int flags = d.flags;
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
        if (withImmediate && (!d.write || offset + payload != messageLength)) {
            return DropReason.MESSAGE_BOUNDS;   // an immediate rides only on a WRITE's last packet
        }
        boolean duplicate;
        if (d.write) {
            DropReason dropped = inboundWrites.onPacket(d.buffer, d.payloadOffset, payload, withImmediate, d.message,
                    d.target, chunk, offset, messageLength, d.base);
            if (dropped != null) {
                return dropped;
            }
            duplicate = inboundWrites.wasDuplicate();
        } else {
            switch (inboundSends.onPacket(nowNs, d.buffer, d.payloadOffset, payload, d.target, d.message, chunk,
                    offset, messageLength)) {
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
        ReceiverPath path = rx[d.pathIndex];
        deadlines.pathChanged(d.pathIndex);
        path.accept(d.psn);
        boolean hole = path.hasHole();
        // A message's last packet that does not ask for an ACK is one its sender does not wait for (an eager
        // small message, completed when sent): its ACK waits for more of them, or LAZY_ACK_DELAY_NS. Every ACK of a
        // small message otherwise cost both ends a datagram (3.5 us to send, 1.2 us to read here) in the middle of
        // the next exchange.
        boolean lazy = (flags & (Flags.LAST | Flags.ACK_REQUESTED)) == Flags.LAST;
        path.scheduleAck(nowNs, duplicate || hole || (flags & Flags.ACK_REQUESTED) != 0,
                lazy ? Connection.LAZY_ACK_EVERY_PACKETS : config.ackEveryPackets(),
                lazy ? lazyAckDelay : config.delayedAckNs(), d.timestampNs,
                d.ecnMarked);
        counters.increment(Counter.DATA_PACKETS_RECEIVED);
        if (d.ecnMarked) {
            counters.increment(Counter.ECN_MARKS_RECEIVED);
        }
        if (duplicate) {
            counters.increment(Counter.DUPLICATE_PACKETS_RECEIVED);
        } else {
            counters.add(Counter.PAYLOAD_BYTES_PLACED, payload);
            ctx.inbound(owner, payload, d.ecnMarked, nowNs);
        }
        return null;
    }

    /** The peer probes a path (possibly a new generation of it): a reply is owed. */
    void onProbe(int pathIndex, int generation, int seq, long timestampNs) {
        if (probeReplyCount * 4 == probeReplies.length) {
            probeReplies = Arrays.copyOf(probeReplies, probeReplies.length * 2);
        }
        int at = probeReplyCount++ * 4;
        probeReplies[at] = pathIndex | generation << 8;
        probeReplies[at + 1] = seq;
        probeReplies[at + 2] = (int) (timestampNs >>> 32);
        probeReplies[at + 3] = (int) timestampNs;
    }

    /**
     * A packet of path {@code index} carries {@code generation}: a newer one starts the receiving path over, an older
     * one is stale.
     *
     * @return false when the packet is stale (the caller drops it)
     */
    boolean adoptGeneration(int index, int generation) {
        ReceiverPath r = rx[index];
        int diff = (short) (generation - r.generation());
        if (diff > 0) {
            r.reset(generation);
            deadlines.pathChanged(index);
        }
        return diff >= 0;
    }

    /** @return whether answers wait to be sent at once: probe replies or receiver-not-ready answers */
    boolean answersDue() {
        return inboundSends.rnrsDue() > 0 || probeReplyCount > 0;
    }

    /**
     * Hands over the answers owed: probe replies, receiver-not-ready answers, then the ACKs due.
     *
     * @return packets handed over
     */
    int emitAnswers(long nowNs, TransmitSink sink) {
        int n = 0;
        for (int i = 0; i < probeReplyCount; i++) {
            int pg = probeReplies[i * 4];
            long ts = (long) probeReplies[i * 4 + 2] << 32 | (probeReplies[i * 4 + 3] & 0xFFFF_FFFFL);
            ctx.sendProbe(owner, sink, pg & 0xFF, pg >>> 8, true, probeReplies[i * 4 + 1], ts);
            n++;
        }
        probeReplyCount = 0;
        for (int i = 0; i < inboundSends.rnrsDue(); i++) {
            ctx.sendRnr(owner, sink, inboundSends.rnrStream(i), inboundSends.rnrMessage(i), config.rnrRetryNs());
            n++;
        }
        inboundSends.rnrsSent();
        for (int p = 0; p < rx.length; p++) {
            if (rx[p].ackDue(nowNs)) {
                ctx.sendAck(owner, sink, p, rx[p], ctx.hint(owner));
                rx[p].acked();
                deadlines.pathChanged(p);
                n++;
            }
        }
        return n;
    }
}
