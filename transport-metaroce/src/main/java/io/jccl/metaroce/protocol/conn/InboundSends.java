package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.WorkKind;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The peer's SENDs arriving on one connection: the receives posted per stream, the n-th matching the stream's n-th
 * message; each packet placed once into its receive, receives completed in stream order, and a message whose receive
 * is not posted yet answered (at most once per {@code rnrRetryNs}) with a receiver-not-ready that the connection
 * sends.
 */
final class InboundSends extends InboundKind {
    /** What became of one SEND packet. */
    enum Arrival {
        /** Placed into its receive (its receive may have completed with it). */
        PLACED,
        /** Already placed, or its message already completed: to be acknowledged again, nothing placed. */
        DUPLICATE,
        /** Its receive is not posted yet: dropped unacknowledged, a receiver-not-ready answer queued. */
        NOT_READY,
        /** Its stream has no receive posted ever: dropped unacknowledged, a receiver-not-ready answer queued. */
        UNKNOWN_STREAM,
        /** Its message length disagrees with the one its earlier packets gave. */
        BAD_LENGTH
    }

    /** One stream's receives. */
    private static final class Receives {
        int nextSeq;
        /** The sequence of {@code posted[0]}. */
        int base;
        InboundMessage[] posted = new InboundMessage[8];
        int count;
    }

    private final long rnrRetryNs;
    private final Int2ObjectHashMap<Receives> streams = new Int2ObjectHashMap<>();
    private final Long2LongHashMap rnrSentNs = new Long2LongHashMap(Long.MIN_VALUE);
    private long[] rnrQueue = new long[8];
    private int rnrCount;
    private int pending;

    InboundSends(Connection owner, Connection.Context ctx, InboundPool pool, int payloadBytes, long rnrRetryNs) {
        super(owner, ctx, pool, payloadBytes);
        this.rnrRetryNs = rnrRetryNs;
    }

    /** @return receives posted and not completed */
    int pending() {
        return pending;
    }

    /** Posts a receive of up to {@code capacity} bytes for the stream's next message. */
    void post(int streamId, long workId, MemorySegment local, long offset, long capacity) {
        Receives s = streams.get(streamId);
        if (s == null) {
            s = new Receives();   // a stream's first receive: once per stream
            streams.put(streamId, s);
        }
        InboundMessage m = pool.take();
        int seq = s.nextSeq++;
        m.reset(workId, local, offset, capacity, seq);
        if (s.count == s.posted.length) {
            s.posted = Arrays.copyOf(s.posted, s.posted.length * 2);
        }
        s.posted[s.count++] = m;
        pending++;
        rnrSentNs.remove(key(streamId, seq));
    }

    /**
     * One DATA packet of a SEND, its bounds within the message already checked.
     *
     * @return what became of it
     */
    Arrival onPacket(long nowNs, DirectBuffer b, int payloadOffset, int payload, int streamId, int message, int chunk,
                     long offset, long messageLength) {
        Receives s = streams.get(streamId);
        if (s == null || message - s.nextSeq >= 0) {
            notReady(nowNs, streamId, message);
            return s == null ? Arrival.UNKNOWN_STREAM : Arrival.NOT_READY;
        }
        int idx = message - s.base;
        if (idx < 0) {
            return Arrival.DUPLICATE;   // completed and reported already
        }
        InboundMessage r = s.posted[idx];
        if (r.messageLength < 0) {
            r.learn(messageLength, payloadBytes);
        } else if (r.messageLength != messageLength) {
            return Arrival.BAD_LENGTH;
        }
        if (r.truncated) {
            // Too long for the receive: nothing is placed, so the receive completes (truncated) at the message's
            // first packet; the rest are duplicates (still acknowledged).
            if (r.done) {
                return Arrival.DUPLICATE;
            }
            r.done = true;
            deliver(s);
            return Arrival.PLACED;
        }
        if (r.done || r.has(chunk)) {
            return Arrival.DUPLICATE;
        }
        if (payload > 0) {
            ctx.place(b, payloadOffset, r.buffer, r.offset + offset, payload);
        }
        if (r.mark(chunk, payload)) {
            deliver(s);
        }
        return Arrival.PLACED;
    }

    /** Completes the stream's receives that are whole, in order. */
    private void deliver(Receives s) {
        while (s.count > 0 && s.posted[0].done) {
            InboundMessage r = s.posted[0];
            System.arraycopy(s.posted, 1, s.posted, 0, s.count - 1);
            s.posted[--s.count] = null;
            s.base++;
            pending--;
            ctx.complete(owner, r.workId, WorkKind.RECV, r.truncated ? CompletionStatus.TRUNCATED
                    : CompletionStatus.OK, r.truncated ? 0 : r.messageLength);
            pool.give(r);
        }
    }

    /** Completes every posted receive with {@code status}: nothing more will arrive for them. */
    void failAll(CompletionStatus status) {
        for (Receives s : streams.values()) {
            for (int i = 0; i < s.count; i++) {
                InboundMessage r = s.posted[i];
                pending--;
                ctx.complete(owner, r.workId, WorkKind.RECV, status, 0);
                s.posted[i] = null;
                pool.give(r);
            }
            s.base += s.count;
            s.count = 0;
        }
    }

    // ---- Receiver-not-ready answers ----

    private void notReady(long nowNs, int stream, int message) {
        long k = key(stream, message);
        long last = rnrSentNs.get(k);
        if (last != Long.MIN_VALUE && nowNs - last < rnrRetryNs) {
            return;
        }
        rnrSentNs.put(k, nowNs);
        if (rnrCount == rnrQueue.length) {
            rnrQueue = Arrays.copyOf(rnrQueue, rnrCount * 2);
        }
        rnrQueue[rnrCount++] = k;
    }

    /** @return receiver-not-ready answers waiting to be sent */
    int rnrsDue() {
        return rnrCount;
    }

    /** @return the stream of due answer {@code i} */
    int rnrStream(int i) {
        return (int) (rnrQueue[i] >>> 32);
    }

    /** @return the message of due answer {@code i} */
    int rnrMessage(int i) {
        return (int) rnrQueue[i];
    }

    /** The due answers were sent. */
    void rnrsSent() {
        rnrCount = 0;
    }

    private static long key(int stream, int seq) {
        return (long) stream << 32 | (seq & 0xFFFF_FFFFL);
    }
}
