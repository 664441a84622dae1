package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.metaroce.protocol.path.PathHealth;
import io.jccl.metaroce.protocol.path.SenderPath;
import org.agrona.collections.Int2ObjectHashMap;

import java.lang.foreign.MemorySegment;

/**
 * The reliability of what one connection sends: the WRITEs and SENDs posted (a fixed pool of
 * {@link OutboundMessage}s), the messages with chunks never sent (in posting order), the chunks to send again (a
 * ring of (ref, chunk, epoch) triples), and the completions: a WRITE's when all of it is acknowledged, a SEND's
 * in the order of its stream.
 *
 * <p>It is what the ACKs and the path verdicts act on: the {@link PathHealth.Owner} that the paths tell which packets
 * were acknowledged or lost, so the books of every message stay in one place while the connection decides when and
 * on which path the next chunk goes ({@link #takeNext} chooses which). Single-threaded; once its rings have grown to
 * the most ever queued and each stream was seen, it allocates nothing.
 */
final class OutboundQueue implements PathHealth.Owner {
    private final Connection owner;
    private final Connection.Context ctx;
    /** The connection's sending paths, whose books a withdrawn or restarted message leaves. */
    private final SenderPath[] tx;
    private final int payloadBytes;
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
    private int pending;
    private final Int2ObjectHashMap<Stream> streams = new Int2ObjectHashMap<>();
    /** Retransmissions queued by timeouts (and retests), counted as such when they are sent. */
    private int rtoRetransmits;
    /** Retransmissions queued by tail probes, counted as such when they are sent (after the timeouts'). */
    private int tailRetransmits;

    // The chunk of the message takeNext returned, and why it goes again (null: it is new).
    private int takenChunk;
    private Counter takenCause;

    /** Per-stream state of the sends (the receives': {@link InboundSends}). */
    private static final class Stream {
        int nextSendSeq;
        int[] sendsInOrder = new int[8];   // outbound refs by message sequence, from sendsBase
        int sendsBase;
        int sendsCount;
    }

    /**
     * @param owner        the connection, named in completions
     * @param ctx          where completions go and work ids come from
     * @param tx           the connection's sending paths
     * @param payloadBytes payload bytes per packet
     * @param capacity     messages that may be outstanding at once
     */
    OutboundQueue(Connection owner, Connection.Context ctx, SenderPath[] tx, int payloadBytes, int capacity) {
        this.owner = owner;
        this.ctx = ctx;
        this.tx = tx;
        this.payloadBytes = payloadBytes;
        this.outbound = new OutboundMessage[capacity];
        this.freeOutbound = new int[capacity];
        for (int i = 0; i < outbound.length; i++) {
            outbound[i] = new OutboundMessage(i);
            freeOutbound[i] = outbound.length - 1 - i;
        }
        this.freeOutboundCount = outbound.length;
    }

    // ---- Posting ----

    private int allocateOutbound() {
        return freeOutboundCount == 0 ? -1 : freeOutbound[--freeOutboundCount];
    }

    /** Posts a WRITE (see {@link Connection#postWrite}). @return its work id, or -1 when no message is free */
    long postWrite(int regionKey, long remoteOffset, MemorySegment local, long offset, long length,
                   boolean withImmediate, int immediate) {
        int ref = allocateOutbound();
        if (ref < 0) {
            return -1;
        }
        long id = ctx.nextWorkId();
        outbound[ref].reset(id, WorkKind.WRITE, -1, regionKey, remoteOffset, local, offset, length, nextWriteId++,
                payloadBytes);
        outbound[ref].withImmediate = withImmediate;
        outbound[ref].immediate = immediate;
        pending++;
        enqueueSend(ref);
        return id;
    }

    /** Posts a SEND (see {@link Connection#postSend}). @return its work id, or -1 when no message is free */
    long postSend(int streamId, MemorySegment local, long offset, long length, boolean ackLazily) {
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
        pending++;
        enqueueSend(ref);
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

    @Override
    public int retransmissionsQueued() {
        return retxCount;
    }

    /** {@code n} retransmissions were just queued by timeouts (or retests): counted as such when they are sent. */
    void queuedByTimeouts(int n) {
        rtoRetransmits += n;
    }

    /** Probes the tail of {@code p} (see {@link SenderPath#probeTail}); what it queues is counted as tail probes'. */
    void probeTail(SenderPath p) {
        int before = retxCount;
        p.probeTail(this);
        tailRetransmits += retxCount - before;
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
        pending--;
        ctx.complete(owner, m.workId, m.kind, status, status == CompletionStatus.OK ? m.length : 0);
        m.local = null;
        freeOutbound[freeOutboundCount++] = m.ref;
    }

    // ---- Receiver-not-ready, cancelling, closing ----

    /**
     * The receiver was not ready for message {@code message} of {@code stream}: if it is outstanding, all of it is
     * sent again from {@code resumeAtNs} on, as a new epoch.
     *
     * @return whether it was (its packets then left the paths' books)
     */
    boolean restartAfterRnr(int stream, int message, long resumeAtNs) {
        Stream s = streams.get(stream);
        if (s == null) {
            return false;
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
                m.restart(resumeAtNs);
                if (!wasQueued) {
                    enqueueSend(m.ref);
                }
                return true;
            }
        }
        return false;
    }

    /**
     * Withdraws a WRITE not complete yet (see {@link Connection#cancelWrite}): it completes as cancelled and its
     * packets in flight leave the paths' books.
     *
     * @return whether it was found
     */
    boolean cancelWrite(long workId) {
        for (OutboundMessage m : outbound) {
            if (m.local != null && !m.reported && m.workId == workId && m.kind == WorkKind.WRITE) {
                for (SenderPath p : tx) {
                    p.forget(m.ref, m.epoch);
                }
                m.done = true;
                finishOutbound(m, CompletionStatus.CANCELLED);
                return true;
            }
        }
        return false;
    }

    /** The connection closed: every message not completed completes with {@code status}; nothing is sent any more. */
    void failAll(CompletionStatus status) {
        for (OutboundMessage m : outbound) {
            if (m.local != null && !m.reported) {
                finishOutbound(m, status);
            }
        }
        for (Stream s : streams.values()) {
            s.sendsCount = 0;
        }
        sendCount = 0;
        retxCount = 0;
    }

    /** @return WRITEs and SENDs posted and not yet completed */
    int pending() {
        return pending;
    }

    /** @return messages posted that are not yet acknowledged or failed */
    int unacknowledgedMessages() {
        return outbound.length - freeOutboundCount;
    }

    /** @return bytes of the messages posted that are not yet acknowledged or failed */
    long unacknowledgedBytes() {
        long bytes = 0;
        for (OutboundMessage m : outbound) {
            if (m.local != null && !m.reported) {
                bytes += m.length;
            }
        }
        return bytes;
    }

    // ---- Choosing what goes next ----

    /** @return whether chunks wait to be sent: new ones (perhaps paused) or retransmissions */
    boolean hasQueued() {
        return sendCount > 0 || retxCount > 0;
    }

    /** @return the oldest message with a chunk never sent and not paused, or null */
    OutboundMessage nextSendable(long nowNs) {
        for (int i = 0; i < sendCount; i++) {
            OutboundMessage m = outbound[sendOrder[(sendHead + i) % sendOrder.length]];
            if (m.nextChunk < m.chunks && nowNs - m.pausedUntilNs >= 0) {
                return m;
            }
        }
        return null;
    }

    /**
     * The earliest future end of a receiver-not-ready pause. Only future ones: a message whose pause is over but
     * which waits for window room is woken by the ACK or timeout that opens it, not by a timer already past.
     */
    long nextPauseEnd(long nowNs) {
        long end = Long.MAX_VALUE;
        for (int i = 0; i < sendCount; i++) {
            long until = outbound[sendOrder[(sendHead + i) % sendOrder.length]].pausedUntilNs;
            if (until - nowNs > 0) {
                end = Math.min(end, until);
            }
        }
        return end;
    }

    /**
     * Takes the chunk to send next: the oldest one waiting to be retransmitted, else the next new one; a new one
     * first when {@code testing} (a suspect path while a new chunk waits: it is tested with that). The caller sends
     * it at once.
     *
     * @return the message of the chunk taken ({@link #takenChunk} and {@link #takenCause} say which chunk and why
     *         it goes), or null when there was none
     */
    OutboundMessage takeNext(long nowNs, boolean testing) {
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
            Counter cause;
            if (rtoRetransmits > 0) {
                rtoRetransmits--;
                cause = Counter.RETRANSMITS_RTO;
            } else if (tailRetransmits > 0) {
                tailRetransmits--;
                cause = Counter.RETRANSMITS_TAIL;
            } else {
                cause = Counter.RETRANSMITS_SACK;
            }
            return take(m, chunk, cause);
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
            if (m.nextChunk >= m.chunks) {
                removeSendAt(i);
            }
            return take(m, chunk, null);
        }
        return null;
    }

    private OutboundMessage take(OutboundMessage m, int chunk, Counter cause) {
        takenChunk = chunk;
        takenCause = cause;
        return m;
    }

    /** @return the chunk {@link #takeNext} took */
    int takenChunk() {
        return takenChunk;
    }

    /** @return the counter of the retransmission {@link #takeNext} took, by its cause; null for a new chunk */
    Counter takenCause() {
        return takenCause;
    }

    private void removeSendAt(int i) {
        int len = sendOrder.length;
        for (int k = i; k < sendCount - 1; k++) {
            sendOrder[(sendHead + k) % len] = sendOrder[(sendHead + k + 1) % len];
        }
        sendCount--;
    }
}
