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
 * so a receive no longer than that opens no region.
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

    MetaRoceRecvConnection(MetaRoceNetTransport transport, Side side, int connectionId, int index, int peerRank,
                           ProgressSignal signal, int maxInflight, Arena arena) {
        super(transport, side, connectionId, index, peerRank, signal, maxInflight, arena);
        closeBox = arena.allocate(ControlMessages.BOX_BYTES, 8);
        int boxes = maxInflight + 1;
        finBoxes = new MemorySegment[boxes];
        finOwners = new WorkOwner[boxes];
        for (int i = 0; i < boxes; i++) {
            finBoxes[i] = arena.allocate(ControlMessages.FIN_BOX_BYTES, 8);
            int box = i;
            finOwners[i] = (kind, status, bytes) -> onFin(box, status, bytes);
        }
        pending = new MetaRoceRequest[maxInflight];
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
            broken(peerDoneReason(), peerDoneWhy());   // the receives pending can never complete
            return;
        }
        if (isClosed() && !closing) {
            return;   // broken already
        }
        MemorySegment b = finBoxes[box];
        int finStatus = ControlMessages.finStatus(b);
        long inlineBytes = finStatus == ControlMessages.FIN_INLINE ? ControlMessages.finSize(b) : 0;
        if (status != CompletionStatus.OK || inlineBytes < 0 || inlineBytes > ControlMessages.INLINE_MAX_BYTES
                || bytes != ControlMessages.FIN_BYTES + inlineBytes
                || (finStatus != ControlMessages.FIN_CLOSED && pendingCount == 0)) {
            broken(NetException.Reason.PROTOCOL_ERROR, "the sending end sent a malformed FIN (" + bytes + " bytes, "
                    + status + ", status " + finStatus + ", " + pendingCount + " receives pending)");
            return;
        }
        if (finStatus == ControlMessages.FIN_CLOSED) {
            broken(NetException.Reason.PEER_CLOSED, "the sending end closed");
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
            case ControlMessages.FIN_INLINE -> {
                if (size > r.sizeBytes || tag != r.tag) {
                    r.failure = new NetException(NetException.Reason.PROTOCOL_ERROR, "the sender sent " + size
                            + " bytes with tag 0x" + Long.toHexString(tag) + " for a receive of " + r.sizeBytes
                            + " bytes with tag 0x" + Long.toHexString(r.tag));
                } else {
                    MemorySegment.copy(b, ControlMessages.FIN_BYTES, r.buffer, r.offset, size);
                }
                r.result = size;
            }
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
