package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The receiving end. Each posted receive opens its memory to the peer's WRITEs (a region of the MetaRoCE endpoint)
 * and sends a CTS naming it, its capacity and its tag; the sender's FIN for the same position completes it. A
 * message of at most {@link ControlMessages#INLINE_MAX_BYTES} comes inside its FIN and is copied out of the FIN box,
 * so a receive no longer than that opens no region. Such a FIN may come <em>eagerly</em>, before its receive was
 * posted (the sender did not wait for the CTS): it stays in its box until the receive is posted, which then completes
 * at once; its CTS still goes (the sender discards it, and learns from it that the box is free again). The sender
 * keeps at most {@link MetaRoceSendConnection#EAGER_CREDITS} such FINs out, so the boxes posted for them suffice.
 *
 * <p>Closing this end fails its pending receives with CLOSED at once, withdraws their memory (a WRITE still arriving
 * is dropped, so nothing lands in memory whose receive was reported failed) and tells the sender, which fails the
 * sends that had started into them and withdraws their WRITEs.
 */
final class MetaRoceRecvConnection extends Channel implements RecvConnection {
    private final MemorySegment closeBox;
    private final MemorySegment[] finBoxes;
    private final WorkOwner[] finOwners;
    private final WorkOwner ignore = (kind, status, bytes) -> { };
    private final AtomicBoolean closeCalled = new AtomicBoolean();

    // Driving thread: receives whose CTS went out, in order; the n-th FIN completes the n-th.
    private final MetaRoceRequest[] pending;
    private int pendingHead;
    private int pendingCount;
    private boolean closing;
    // Driving thread: FIN boxes holding eager messages that came before their receive, in order.
    private final int[] held;
    private int heldHead;
    private int heldCount;
    // Driving thread: boxes for the CTSs of receives that completed from a held FIN at once (the request's own box
    // is reused as soon as the caller sees it complete; the CTS may still be retransmitted), each free again when
    // its SEND completes.
    private final MemorySegment[] spareCtsBoxes;
    private final WorkOwner[] spareCtsOwners;
    private final int[] freeSpareCts;
    private int freeSpareCtsCount;
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
            finBoxes[i] = arena.allocate(ControlMessages.FIN_BOX_BYTES, 8);
            int box = i;
            finOwners[i] = (kind, status, bytes) -> onFin(box, status, bytes);
        }
        pending = new MetaRoceRequest[maxInflight];
        held = new int[boxes];
        int spares = maxInflight + MetaRoceSendConnection.EAGER_CREDITS;
        spareCtsBoxes = new MemorySegment[spares];
        spareCtsOwners = new WorkOwner[spares];
        freeSpareCts = new int[spares];
        for (int i = 0; i < spares; i++) {
            spareCtsBoxes[i] = arena.allocate(ControlMessages.BOX_BYTES, 8);
            int box = i;
            spareCtsOwners[i] = (kind, status, bytes) -> onSpareCtsSent(box, status);
            freeSpareCts[freeSpareCtsCount++] = i;
        }
    }

    // ---- caller's thread ----

    @Override
    public NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                            MemoryRegistration mr) {
        return claim(buffer, offset, capacityBytes, expectedTag, true);
    }

    @Override
    public void close() {
        if (closeCalled.compareAndSet(false, true)) {
            markClosed(NetException.Reason.CLOSED, "this receiving end was closed");
            if (!transport().isClosing()) {
                transport().submit((Runnable) this::closeLocally);
            }
        }
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
        r.resetForPost();
        if (closing || isClosed()) {
            r.fail(closedFailure());
            return;
        }
        if (heldCount > 0) {
            completeFromHeldFin(r);
            return;
        }
        if (r.sizeBytes > ControlMessages.INLINE_MAX_BYTES) {   // a shorter message comes inside its FIN
            r.regionKey = side.endpoint.registerRegion(r.buffer, true);
        }
        ControlMessages.putCts(r.control, r.regionKey, ControlMessages.CTS_OPEN, r.offset, r.sizeBytes, r.tag);
        long cts = side.postSend(r, connectionId, stream, r.control, 0, ControlMessages.CTS_BYTES);
        if (cts == Verbs.QUEUE_FULL) {
            release(r);
            r.fail(queueFull());
            return;
        }
        r.ctsWorkId = cts;
        r.outstandingWork = 2;   // the CTS leaving, and the FIN arriving
        pending[(pendingHead + pendingCount++) % pending.length] = r;
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
     * The message of this receive came eagerly and waits in a FIN box: the receive takes it now. Its CTS still goes,
     * so that the sender's n-th CTS stays the n-th receive's and its eager credit returns: from a spare box, and the
     * receive completes at once; when none is free (rare), from the request's own, and it completes when the CTS is
     * acknowledged.
     */
    private void completeFromHeldFin(MetaRoceRequest r) {
        int box = held[heldHead];
        heldHead = (heldHead + 1) % held.length;
        heldCount--;
        MemorySegment b = finBoxes[box];
        if (senderGoneReason != null) {
            // The sender needs no CTS any more (and its connection may be gone): take the message and, after the
            // last one held, fail the channel.
            takeInline(r, ControlMessages.finSize(b), ControlMessages.finTag(b), b);
            finishIfDone(r);
            if (heldCount == 0) {
                broken(senderGoneReason, senderGoneWhy);
            }
            return;
        }
        boolean spare = freeSpareCtsCount > 0;
        int spareBox = spare ? freeSpareCts[--freeSpareCtsCount] : -1;
        MemorySegment cts = spare ? spareCtsBoxes[spareBox] : r.control;
        ControlMessages.putCts(cts, -1, ControlMessages.CTS_OPEN, r.offset, r.sizeBytes, r.tag);
        long work = side.postSend(spare ? spareCtsOwners[spareBox] : r, connectionId, stream, cts, 0,
                ControlMessages.CTS_BYTES);
        if (work == Verbs.QUEUE_FULL) {
            if (spare) {
                freeSpareCts[freeSpareCtsCount++] = spareBox;
            }
            r.fail(queueFull());
            broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
            return;
        }
        takeInline(r, ControlMessages.finSize(b), ControlMessages.finTag(b), b);
        postFinBox(box);
        if (spare) {
            finishIfDone(r);   // outstandingWork is 0
        } else {
            r.ctsWorkId = work;
            r.outstandingWork = 1;   // onRequestWork completes it
        }
    }

    private void onSpareCtsSent(int spare, CompletionStatus status) {
        freeSpareCts[freeSpareCtsCount++] = spare;
        if (closedStatus(status) && heldCount == 0) {
            connectionLost();   // with messages still held, the next receives take them first (senderGone)
        }
    }

    /** Checks an inline message against its receive and copies it in, or records why not. */
    private static void takeInline(MetaRoceRequest r, long size, long tag, MemorySegment box) {
        if (tag != r.tag) {
            r.failure = NetException.tagMismatch(r.tag, tag);
        } else if (size > r.sizeBytes) {
            r.failure = new NetException(NetException.Reason.TRUNCATED, "a message of " + size + " bytes arrived"
                    + " for a receive of " + r.sizeBytes + " bytes; nothing was written");
        } else {
            MemorySegment.copy(box, ControlMessages.FIN_BYTES, r.buffer, r.offset, size);
        }
        r.result = size;
    }

    private void release(MetaRoceRequest r) {
        if (r.regionKey != -1) {
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
        r.ctsWorkId = -1;
        r.outstandingWork--;
        finishIfDone(r);
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
        int finStatus = ControlMessages.finStatus(b);
        long inlineBytes = finStatus == ControlMessages.FIN_INLINE ? ControlMessages.finSize(b) : 0;
        boolean eagerEarly = finStatus == ControlMessages.FIN_INLINE && pendingCount == 0;
        if (status != CompletionStatus.OK || inlineBytes < 0 || inlineBytes > ControlMessages.INLINE_MAX_BYTES
                || bytes != ControlMessages.FIN_BYTES + inlineBytes
                || (finStatus != ControlMessages.FIN_CLOSED && pendingCount == 0 && !eagerEarly)
                || (eagerEarly && heldCount == held.length)) {
            broken(NetException.Reason.PROTOCOL_ERROR, "the sending end sent a malformed FIN (" + bytes + " bytes, "
                    + status + ", status " + finStatus + ", " + pendingCount + " receives pending)");
            return;
        }
        if (finStatus == ControlMessages.FIN_CLOSED) {
            senderGone(NetException.Reason.PEER_CLOSED, "the sending end closed");
            return;
        }
        if (eagerEarly) {
            held[(heldHead + heldCount++) % held.length] = box;   // its receive is not posted yet
            return;
        }
        MetaRoceRequest r = pending[pendingHead];
        pending[pendingHead] = null;
        pendingHead = (pendingHead + 1) % pending.length;
        pendingCount--;
        release(r);
        long size = ControlMessages.finSize(b);
        long tag = ControlMessages.finTag(b);
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
        if (r.ctsWorkId != -1) {
            // The FIN proves the CTS arrived: its acknowledgement may still be on its way, or lost with a peer that
            // closed right after (its send completed with this FIN's acknowledgement); the receive is complete now.
            side.disown(r.ctsWorkId);
            r.ctsWorkId = -1;
            r.outstandingWork--;
        }
        r.outstandingWork--;
        finishIfDone(r);
        postFinBox(box);
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

    private void sendClosedCts() {
        ControlMessages.putCts(closeBox, -1, ControlMessages.CTS_CLOSED, 0, 0, 0);
        side.postSend(ignore, connectionId, stream, closeBox, 0, ControlMessages.CTS_BYTES);
    }

    @Override
    void failAll(NetException.Reason reason, String why) {
        heldCount = 0;   // their boxes stay unposted: the channel is done
        while (pendingCount > 0) {
            MetaRoceRequest r = pending[pendingHead];
            pending[pendingHead] = null;
            pendingHead = (pendingHead + 1) % pending.length;
            pendingCount--;
            release(r);
            r.fail(new NetException(reason, why));
        }
    }
}
