package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.RecvSink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The receiving end. A receive longer than the inline limit ({@link ControlMessages#inlineMaxBytes}) opens its memory
 * to the peer's WRITEs (a region of the MetaRoCE endpoint) and sends a CTS naming it, its capacity, its tag and its
 * message number; the sender's WRITE with immediate into it completes it when every byte is in place (or, when the
 * message does not fit, is short or empty, the sender's FIN for the same message). A shorter receive sends nothing:
 * its message can only come inside its FIN, which the sender sends <em>eagerly</em>, without a CTS, into one of the
 * FIN boxes this end keeps posted; a FIN that comes before its receive was posted stays in its box until the receive
 * is posted, which then completes at once. FINs and RTSs carry their message's number and find their receive by it.
 * Each box an eager FIN (or RTS) held counts as a credit back to the sender once it is posted again, reported inside
 * the next CTS or, every {@link #CREDIT_REPORT} boxes, by a CREDIT message. An RTS (a longer message whose CTS did not
 * come within a millisecond) makes its receive send its CTS even when short, so the sender learns it is too long.
 *
 * <p>Closing this end fails its pending receives with CLOSED at once, withdraws their memory (a WRITE still arriving
 * is dropped, so nothing lands in memory whose receive was reported failed) and tells the sender which receive was
 * the oldest not complete; the sender fails the sends that had started into those and withdraws their WRITEs.
 */
final class MetaRoceRecvConnection extends Channel implements RecvConnection {
    /** Freed eager boxes reported by a CREDIT message once this many are unreported (half the sender's credits). */
    static final int CREDIT_REPORT = MetaRoceSendConnection.EAGER_CREDITS / 2;
    /** CREDIT messages that may be out at once. */
    static final int CREDIT_BOXES = 4;

    private final MemorySegment closeBox;
    private final MemorySegment[] finBoxes;
    private final WorkOwner[] finOwners;
    /** The connection's packets split no element (its payload a multiple of {@link RecvSink#ALIGN_BYTES}). */
    private final boolean sinkAligned;

    // Driving thread: receives not yet complete, in order (with or without a CTS); the next FIN completes the first.
    private final MetaRoceRequest[] pending;
    private int pendingHead;
    private int pendingCount;
    // Driving thread: FIN boxes holding eager FINs or RTSs that came before their receive, in order.
    private final int[] held;
    private int heldHead;
    private int heldCount;
    /** Eager boxes posted again since the sender was last told. */
    private int freedUnreported;
    /** Boxes for CREDIT messages. */
    private final SendBoxes credits;
    // Driving thread: the sending end closed (or its transport drained) while eager messages were held: the
    // receives posted next still take those, then the channel fails with this.
    private NetException.Reason senderGoneReason;
    private String senderGoneWhy;

    MetaRoceRecvConnection(MetaRoceNetTransport transport, Side side, int connectionId, int index, int peerRank,
                           ProgressSignal signal, int maxInflight, Arena arena) {
        super(transport, side, connectionId, index, peerRank, signal, maxInflight, arena);
        closeBox = arena.allocate(ControlMessages.BOX_BYTES, 8);
        int boxes = maxInflight + 1 + MetaRoceSendConnection.EAGER_CREDITS;
        finBoxes = new MemorySegment[boxes];
        finOwners = new WorkOwner[boxes];
        for (int i = 0; i < boxes; i++) {
            finBoxes[i] = arena.allocate(finBoxBytes(), 8);
            int box = i;
            finOwners[i] = (kind, status, bytes) -> onFin(box, status, bytes);
        }
        pending = new MetaRoceRequest[maxInflight];
        held = new int[boxes];
        credits = new SendBoxes(CREDIT_BOXES, ControlMessages.BOX_BYTES, arena, this::onCreditSent);
        sinkAligned = payloadBytes > 0 && payloadBytes % RecvSink.ALIGN_BYTES == 0;
    }

    // ---- caller's thread ----

    @Override
    public NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                            MemoryRegistration mr) {
        return claim(buffer, offset, capacityBytes, expectedTag, true);
    }

    /**
     * A long message waits for its receive's CTS: a receive posted a step early has sent it by the time the peer's
     * send starts (pipelined rendezvous).
     */
    @Override
    public boolean receivesAhead() {
        return true;
    }

    /**
     * Sinks are taken: a long message's WRITE places each packet's payload into the sink where the driver received
     * it (in arrival order, each byte once), a short one's comes out of its FIN in one piece. Only where the
     * connection's payload is a multiple of {@link RecvSink#ALIGN_BYTES} (the transport's own always is; a peer
     * configured otherwise would split elements).
     */
    @Override
    public boolean acceptsSinks() {
        return sinkAligned;
    }

    /** The driver thread may place a WRITE's packets: memory confined to the caller's thread is out of its reach. */
    @Override
    public boolean sinkReaches(MemorySegment segment) {
        return transport().canReach(segment);
    }

    @Override
    public NetRequest irecv(RecvSink sink, long capacityBytes, long expectedTag) {
        return claimSink(sink, capacityBytes, expectedTag);
    }

    @Override
    public void close() {
        closeFromCaller("this receiving end was closed");
    }

    // ---- driving thread ----

    /** Posts the receives for FINs. */
    void open() {
        for (int i = 0; i < finBoxes.length; i++) {
            postFinBox(i);
        }
    }

    /** Refuses the channel (no listener wants it): the sender's sends fail with PEER_CLOSED. */
    void refuse() {
        markClosed(NetException.Reason.CLOSED, "refused: the listener is closed");
        closing = true;
        sendClosedCts();
    }

    private void postFinBox(int box) {
        postControlReceive(finOwners[box], finBoxes[box]);
    }

    @Override
    void onPosted(MetaRoceRequest r) {
        if (!admit(r)) {
            return;
        }
        if (heldCount > 0) {
            takeHeld(r);
            return;
        }
        if (r.sizeBytes > inlineMaxBytes && !sendCts(r)) {   // a shorter message comes eagerly
            r.fail(queueFull());
            broken(NetException.Reason.IO_ERROR, QUEUE_FULL);   // its number is taken: the next would pair wrong
            return;
        }
        r.outstandingWork++;   // the FIN arriving
        pending[(pendingHead + pendingCount++) % pending.length] = r;
    }

    /**
     * Sends the CTS of a receive (opening its memory when it is longer than a FIN carries), with the credits not yet
     * reported; the CTS leaving is one more piece of work of the receive.
     *
     * @return false when the connection's work queue is full (nothing was sent, nothing stays open)
     */
    private boolean sendCts(MetaRoceRequest r) {
        if (r.sizeBytes > inlineMaxBytes) {
            r.regionKey = r.sink != null ? side.endpoint.registerSinkRegion(r.sizeBytes, r.regionSink)
                    : side.endpoint.registerRegion(r.buffer, true);
            side.expectImmediate(r.regionKey, r);   // the sender's WRITE carries the key as its immediate
        }
        ControlMessages.putCts(r.control, r.regionKey, ControlMessages.CTS_OPEN, r.offset, r.sizeBytes, r.tag,
                r.message, freedUnreported);
        long cts = side.postSend(r, connectionId, stream, r.control, 0, ControlMessages.CTS_BYTES);
        if (cts == Verbs.QUEUE_FULL) {
            release(r);
            return false;
        }
        freedUnreported = 0;
        r.ctsWorkId = cts;
        r.ctsSent = true;
        r.outstandingWork++;
        return true;
    }

    /** Posts an eager FIN's (or RTS's) box again: one more credit for the sender, reported when enough are. */
    private void repostEagerBox(int box) {
        postFinBox(box);
        freedUnreported++;
        sendCreditsIfDue();
    }

    private void sendCreditsIfDue() {
        if (freedUnreported < CREDIT_REPORT || !credits.anyFree() || closing || isClosed()) {
            return;
        }
        int box = credits.take();
        ControlMessages.putCts(credits.box(box), -1, ControlMessages.CTS_CREDIT, 0, 0, 0, 0, freedUnreported);
        // Nobody waits for a CREDIT's completion but its box (one of CREDIT_BOXES, each reporting 8 credits): its
        // acknowledgement may come lazily, with the eager FINs' ones.
        if (side.postSendAckedLazily(credits.owner(box), connectionId, stream, credits.box(box), 0,
                ControlMessages.CTS_BYTES) == Verbs.QUEUE_FULL) {
            credits.release(box);
            broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
            return;
        }
        freedUnreported = 0;
    }

    private void onCreditSent(int box, CompletionStatus status) {
        credits.release(box);
        if (closedStatus(status)) {
            if (heldCount == 0) {
                connectionLost();   // with messages still held, the next receives take them first (senderGone)
            }
            return;
        }
        sendCreditsIfDue();
    }

    /**
     * Nothing more comes from the sending end: the channel fails, once the receives posted next took the eager
     * messages it had sent before (they are held here, delivered and acknowledged).
     */
    private void senderGone(NetException.Reason reason, String why) {
        if (heldCount == 0) {
            broken(reason, why);
        } else if (senderGoneReason == null) {
            senderGoneReason = reason;
            senderGoneWhy = why;
        }
    }

    /**
     * The message of this receive announced itself before the receive was posted and waits in a FIN box: an eager
     * FIN, which the receive takes now (it completes at once, no CTS), or an RTS, after which the receive sends its
     * CTS whatever its length and waits for the FIN.
     */
    private void takeHeld(MetaRoceRequest r) {
        int box = held[heldHead];
        heldHead = (heldHead + 1) % held.length;
        heldCount--;
        MemorySegment b = finBoxes[box];
        boolean rts = ControlMessages.u16(b, ControlMessages.FIN_STATUS_AT) == ControlMessages.FIN_RTS;
        if (senderGoneReason != null) {
            // The sender needs no CTS nor credits any more (and its connection may be gone): take the message and,
            // after the last one held, fail the channel.
            if (rts) {
                r.fail(new NetException(senderGoneReason, senderGoneWhy));
            } else {
                takeInline(r, ControlMessages.i64(b, ControlMessages.FIN_SIZE_AT),
                        ControlMessages.i64(b, ControlMessages.FIN_TAG_AT), b);
                finishIfDone(r);
            }
            if (heldCount == 0) {
                broken(senderGoneReason, senderGoneWhy);
            }
            return;
        }
        if (rts) {
            repostEagerBox(box);
            if (!sendCts(r)) {
                r.fail(queueFull());
                broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
                return;
            }
            r.outstandingWork++;   // the FIN arriving
            pending[(pendingHead + pendingCount++) % pending.length] = r;
            return;
        }
        takeInline(r, ControlMessages.i64(b, ControlMessages.FIN_SIZE_AT),
                ControlMessages.i64(b, ControlMessages.FIN_TAG_AT), b);
        repostEagerBox(box);
        finishIfDone(r);   // outstandingWork is 0
    }

    /** Checks an inline message against its receive and copies it in, or records why not. */
    private static void takeInline(MetaRoceRequest r, long size, long tag, MemorySegment box) {
        if (tag != r.tag) {
            r.failure = NetException.tagMismatch(r.tag, tag);
        } else if (size > r.sizeBytes) {
            r.failure = new NetException(NetException.Reason.TRUNCATED, "a message of " + size + " bytes arrived"
                    + " for a receive of " + r.sizeBytes + " bytes; nothing was written");
        } else if (r.sink != null) {
            if (size > 0) {
                r.sink.accept(box, ControlMessages.FIN_BYTES, 0, size);
            }
        } else {
            MemorySegment.copy(box, ControlMessages.FIN_BYTES, r.buffer, r.offset, size);
        }
        r.result = size;
    }

    private void release(MetaRoceRequest r) {
        if (r.regionKey != -1) {
            side.forgetImmediate(r.regionKey);
            side.endpoint.deregisterRegion(r.regionKey);
            r.regionKey = -1;
        }
    }

    @Override
    void onRequestWork(MetaRoceRequest r, WorkKind kind, CompletionStatus status, long bytes) {
        if (closedStatus(status)) {
            connectionLost();
            return;
        }
        if (kind == WorkKind.IMMEDIATE) {
            onImmediate(r, bytes);
            return;
        }
        r.ctsWorkId = -1;
        r.outstandingWork--;
        finishIfDone(r);
    }

    /**
     * The sender's WRITE with immediate into this receive's memory is all in place: the receive completes, out of
     * line if need be (FINs and RTSs find their receives by number). The WRITE proves the CTS arrived, as a FIN on
     * it does.
     */
    private void onImmediate(MetaRoceRequest r, long bytes) {
        int at = pendingIndex(r.message);
        if (at < 0 || pending[(pendingHead + at) % pending.length] != r || isClosed()) {
            return;   // failed (closed) already: its memory was withdrawn
        }
        removePending(at);
        release(r);
        if (bytes < 0 || bytes > r.sizeBytes) {
            r.failure = new NetException(NetException.Reason.PROTOCOL_ERROR, "the sender wrote " + bytes
                    + " bytes into a receive of " + r.sizeBytes + " bytes");
        }
        r.result = bytes;
        if (r.ctsWorkId != -1) {
            side.disown(r.ctsWorkId);
            r.ctsWorkId = -1;
            r.outstandingWork--;
        }
        r.outstandingWork--;   // what a FIN would have been
        finishIfDone(r);
    }

    /** @return where the pending receive of that message number is, from the oldest (0), or -1 */
    private int pendingIndex(int message) {
        for (int i = 0; i < pendingCount; i++) {
            if (pending[(pendingHead + i) % pending.length].message == message) {
                return i;
            }
        }
        return -1;
    }

    /** Takes the {@code at}-th pending receive out of the line; the others keep their order. */
    private void removePending(int at) {
        for (int i = at; i > 0; i--) {
            pending[(pendingHead + i) % pending.length] = pending[(pendingHead + i - 1) % pending.length];
        }
        pending[pendingHead] = null;
        pendingHead = (pendingHead + 1) % pending.length;
        pendingCount--;
    }

    private void finishIfDone(MetaRoceRequest r) {
        if (r.outstandingWork == 0) {
            if (r.failure != null) {
                r.fail(r.failure);
            } else {
                r.succeed(r.result);
            }
        }
    }

    private void onFin(int box, CompletionStatus status, long bytes) {
        if (closedStatus(status)) {
            connectionLost();
            return;
        }
        if (peerDone(status)) {
            senderGone(peerDoneReason(), peerDoneWhy());   // the receives pending can never complete
            return;
        }
        if (isClosed() && !closing) {
            return;   // broken already
        }
        MemorySegment b = finBoxes[box];
        int finStatus = ControlMessages.u16(b, ControlMessages.FIN_STATUS_AT);
        int flags = ControlMessages.u16(b, ControlMessages.FIN_FLAGS_AT);
        int message = ControlMessages.i32(b, ControlMessages.FIN_MESSAGE_AT);
        boolean eager = flags == ControlMessages.FIN_EAGER;
        boolean rts = finStatus == ControlMessages.FIN_RTS;
        boolean closed = finStatus == ControlMessages.FIN_CLOSED;
        long inlineBytes = finStatus == ControlMessages.FIN_INLINE
                ? ControlMessages.i64(b, ControlMessages.FIN_SIZE_AT) : 0;
        // Its receive is posted (pending, found by number), not posted yet (the next ones, in order), or complete: a
        // WRITE with immediate completes its receive off the stream, so an RTS that went before its message's CTS
        // came may arrive after the message is complete; it is stale then.
        boolean notPosted = !closed && message - nextMessage >= 0;
        int at = closed || notPosted ? -1 : pendingIndex(message);
        if (status != CompletionStatus.OK || inlineBytes < 0 || inlineBytes > inlineMaxBytes
                || bytes != ControlMessages.FIN_BYTES + inlineBytes || (flags != 0 && !eager)
                || (eager && finStatus != ControlMessages.FIN_INLINE && !rts) || (rts && !eager)
                || (rts && ControlMessages.i64(b, ControlMessages.FIN_SIZE_AT) <= inlineMaxBytes)
                || (notPosted && (!eager || message != nextMessage + heldCount || heldCount == held.length))
                || (!closed && !notPosted && at < 0 && !rts)) {
            broken(NetException.Reason.PROTOCOL_ERROR, "the sending end sent a malformed FIN (" + bytes + " bytes, "
                    + status + ", status " + finStatus + ", flags " + flags + ", message " + message
                    + "; the next receive is " + nextMessage + ", " + pendingCount + " pending, " + heldCount
                    + " held)");
            return;
        }
        if (closed) {
            senderGone(NetException.Reason.PEER_CLOSED, "the sending end closed");
            return;
        }
        if (notPosted) {
            held[(heldHead + heldCount++) % held.length] = box;   // eager, before its receive was posted
            return;
        }
        if (at < 0) {
            repostEagerBox(box);   // a stale RTS: its message came as a WRITE with immediate and is complete
            return;
        }
        MetaRoceRequest r = pending[(pendingHead + at) % pending.length];
        if (rts) {
            // A message longer than a FIN carries, with no CTS at hand: a receive that sent none sends it now.
            repostEagerBox(box);
            if (!r.ctsSent && !closing && !sendCts(r)) {
                broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
            }
            return;
        }
        removePending(at);
        release(r);
        long size = ControlMessages.i64(b, ControlMessages.FIN_SIZE_AT);
        long tag = ControlMessages.i64(b, ControlMessages.FIN_TAG_AT);
        switch (finStatus) {
            case ControlMessages.FIN_OK -> {
                if (size < 0 || size > r.sizeBytes || tag != r.tag) {
                    r.failure = new NetException(NetException.Reason.PROTOCOL_ERROR, "the sender reported " + size
                            + " bytes with tag 0x" + Long.toHexString(tag) + " for a receive of " + r.sizeBytes
                            + " bytes with tag 0x" + Long.toHexString(r.tag));
                }
                r.result = size;
            }
            case ControlMessages.FIN_INLINE -> takeInline(r, size, tag, b);   // eager: not checked by the sender
            case ControlMessages.FIN_TAG_MISMATCH -> r.failure = NetException.tagMismatch(r.tag, tag);
            case ControlMessages.FIN_TRUNCATED -> r.failure = new NetException(NetException.Reason.TRUNCATED,
                    "a message of " + size + " bytes arrived for a receive of " + r.sizeBytes + " bytes; nothing was"
                            + " written");
            default -> r.failure = new NetException(NetException.Reason.PROTOCOL_ERROR, "the sending end sent a FIN"
                    + " with unknown status " + finStatus);
        }
        if (r.ctsWorkId != -1 && !eager) {
            // A FIN sent on the CTS proves the CTS arrived: its acknowledgement may still be on its way, or lost with
            // a peer that closed right after (its send completed with this FIN's acknowledgement); the receive is
            // complete now. An eager FIN proves nothing of the kind: the receive completes when its CTS is
            // acknowledged (the CTS leaves from the request's own box, reused by the next receive).
            side.disown(r.ctsWorkId);
            r.ctsWorkId = -1;
            r.outstandingWork--;
        }
        r.outstandingWork--;
        finishIfDone(r);
        if (eager) {
            repostEagerBox(box);
        } else {
            postFinBox(box);
        }
    }

    @Override
    void closeLocally() {
        if (closing) {
            return;
        }
        closing = true;
        // Fail the pending receives now and withdraw their memory (nothing may land in it once the caller was told
        // the receive failed), but keep them in line: FINs of sends that had finished still come, in order. The
        // sender learns of the close from the closed CTS and withdraws the WRITEs still going.
        for (int i = 0; i < pendingCount; i++) {
            MetaRoceRequest r = pending[(pendingHead + i) % pending.length];
            release(r);
            r.fail(new NetException(NetException.Reason.CLOSED, "this receiving end was closed"));
        }
        sendClosedCts();
    }

    /** Tells the sender this end closed, and from which message on the receives did not complete. */
    private void sendClosedCts() {
        int firstIncomplete = pendingCount > 0 ? pending[pendingHead].message : nextMessage;
        ControlMessages.putCts(closeBox, -1, ControlMessages.CTS_CLOSED, 0, 0, 0, firstIncomplete, 0);
        side.postSend(ignore, connectionId, stream, closeBox, 0, ControlMessages.CTS_BYTES);
    }

    @Override
    void failAll(NetException.Reason reason, String why) {
        heldCount = 0;   // their boxes stay unposted: the channel is done
        while (pendingCount > 0) {
            MetaRoceRequest r = pending[pendingHead];
            removePending(0);
            release(r);
            r.fail(new NetException(reason, why));
        }
    }
}
