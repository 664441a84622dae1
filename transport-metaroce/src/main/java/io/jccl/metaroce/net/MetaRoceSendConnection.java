package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.ProgressSignal;
import io.jccl.net.SendConnection;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The sending end. A send waits for the receiver's CTS for the same position (which names the receive's memory,
 * capacity and tag), WRITEs the message straight into that memory, and once every byte is placed and acknowledged
 * sends a FIN that completes the receive. The send completes when the FIN is acknowledged: then the receiver has the
 * whole message, so a rank whose sends all completed may close without losing any of them. A send that does not
 * match its receive (another tag, too long) writes nothing: its FIN says why, and both ends fail.
 *
 * <p>A message of at most {@link ControlMessages#INLINE_MAX_BYTES} is not written: it travels inside its FIN (and
 * completes, like every send, when that is acknowledged). Such a message is <em>eager</em> when nothing is queued
 * ahead of it and no CTS is at hand: its FIN leaves at once, into one of the FIN boxes the receiver keeps posted,
 * without waiting for the CTS; the CTS of its position still comes and is discarded. At most {@link #EAGER_CREDITS} eager messages are
 * out whose CTS has not come, so they never hold more of the receiver's boxes than it posted for them.
 */
final class MetaRoceSendConnection extends Channel implements SendConnection {
    private final MemorySegment helloBox;
    private final MemorySegment closeBox;
    private final MemorySegment[] ctsBoxes;
    private final WorkOwner[] ctsOwners;
    private static final int NO_FIN_YET = -1;
    /**
     * Eager messages that may be out before their CTS came (each may hold a FIN box of the receiver until its
     * receive is posted); the receiving end posts this many FIN boxes beyond its receives'.
     */
    static final int EAGER_CREDITS = 16;

    private final WorkOwner ignore = (kind, status, bytes) -> { };
    private final AtomicBoolean closeCalled = new AtomicBoolean();

    // Driving thread: received CTSs not yet matched, in order.
    private final int[] readyKey;
    private final int[] readyFlags;
    private final long[] readyOffset;
    private final long[] readyCapacity;
    private final long[] readyTag;
    private int readyHead;
    private int readyCount;
    // Driving thread: posted sends waiting for their CTS, in order, and (null) the positions of eager sends whose
    // CTS is still to come and be discarded.
    private final MetaRoceRequest[] waiting;
    private int waitHead;
    private int waitCount;
    /** Requests (not eager markers) among {@link #waiting}. */
    private int waitingRequests;
    // Driving thread: started sends whose FIN has not left yet, in posting order.
    private final MetaRoceRequest[] inOrder;
    private int orderHead;
    private int orderCount;
    private int started;
    private boolean closing;
    private boolean closedFinSent;
    // Driving thread: FIN boxes, each busy until its SEND completes, and the send each FIN completes.
    private final MemorySegment[] finBoxes;
    private final WorkOwner[] finOwners;
    private final MetaRoceRequest[] finRequests;
    private final int[] freeFins;
    private int freeFinCount;

    MetaRoceSendConnection(MetaRoceNetTransport transport, Side side, int connectionId, int index, int peerRank,
                           ProgressSignal signal, int maxInflight, Arena arena) {
        super(transport, side, connectionId, index, peerRank, signal, maxInflight, arena);
        helloBox = arena.allocate(ControlMessages.BOX_BYTES, 8);
        closeBox = arena.allocate(ControlMessages.BOX_BYTES, 8);
        int boxes = maxInflight + 1;
        ctsBoxes = new MemorySegment[boxes];
        ctsOwners = new WorkOwner[boxes];
        for (int i = 0; i < boxes; i++) {
            ctsBoxes[i] = arena.allocate(ControlMessages.BOX_BYTES, 8);
            int box = i;
            ctsOwners[i] = (kind, status, bytes) -> onCts(box, status, bytes);
        }
        int ready = 2 * maxInflight + 2;
        readyKey = new int[ready];
        readyFlags = new int[ready];
        readyOffset = new long[ready];
        readyCapacity = new long[ready];
        readyTag = new long[ready];
        waiting = new MetaRoceRequest[maxInflight + EAGER_CREDITS];
        inOrder = new MetaRoceRequest[maxInflight];
        int fins = 2 * maxInflight;
        finBoxes = new MemorySegment[fins];
        finOwners = new WorkOwner[fins];
        finRequests = new MetaRoceRequest[fins];
        freeFins = new int[fins];
        for (int i = 0; i < fins; i++) {
            finBoxes[i] = arena.allocate(ControlMessages.FIN_BOX_BYTES, 8);
            int box = i;
            finOwners[i] = (kind, status, bytes) -> onFinSent(box, status);
            freeFins[freeFinCount++] = i;
        }
    }

    // ---- caller's thread ----

    @Override
    public NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
        return claim(buffer, offset, sizeBytes, tag, false);
    }

    @Override
    public void close() {
        if (closeCalled.compareAndSet(false, true)) {
            markClosed(NetException.Reason.CLOSED, "this sending end was closed");
            if (!transport().isClosing()) {
                transport().submit((Runnable) this::closeLocally);
            }
        }
    }

    // ---- driving thread ----

    /** Says hello to the listener and posts the receives for CTSs. */
    void open(int listenerId) {
        ControlMessages.putHello(helloBox, listenerId, index, transport().rank());
        if (side.postSend(ignore, connectionId, 0, helloBox, 0, ControlMessages.HELLO_BYTES) == Verbs.QUEUE_FULL) {
            broken(NetException.Reason.IO_ERROR, "the MetaRoCE connection has too much work queued to open a channel");
            return;
        }
        for (int i = 0; i < ctsBoxes.length; i++) {
            postCtsBox(i);
        }
    }

    private void postCtsBox(int box) {
        postControlReceive(ctsOwners[box], ctsBoxes[box]);
    }

    @Override
    void onPosted(MetaRoceRequest r) {
        r.resetForPost();
        if (closing || isClosed()) {
            r.fail(closedFailure());
            return;
        }
        if (readyCount == 0 && waitingRequests == 0 && waitCount - waitingRequests < EAGER_CREDITS
                && r.sizeBytes <= ControlMessages.INLINE_MAX_BYTES) {
            // Eager: nothing ahead of it and no CTS at hand, so the FIN leaves now; its CTS is discarded when it comes.
            waiting[(waitHead + waitCount++) % waiting.length] = null;   // markers: waitCount - waitingRequests
            begin(r, ControlMessages.FIN_INLINE);
            return;
        }
        waiting[(waitHead + waitCount++) % waiting.length] = r;
        waitingRequests++;
        match();
    }

    private void onCts(int box, CompletionStatus status, long bytes) {
        if (closedStatus(status)) {
            connectionLost();
            return;
        }
        if (peerDone(status)) {
            // No CTS will come: sends still waiting for one fail; started sends go on until acknowledged.
            markClosed(peerDoneReason(), peerDoneWhy());
            failWaiting(peerDoneReason(), peerDoneWhy());
            return;
        }
        if (isClosed() && !closing) {
            return;   // broken already
        }
        MemorySegment b = ctsBoxes[box];
        if (status != CompletionStatus.OK || bytes != ControlMessages.CTS_BYTES || readyCount == readyKey.length) {
            broken(NetException.Reason.PROTOCOL_ERROR, "the receiving end sent a malformed CTS (" + bytes + " bytes, "
                    + status + ", " + readyCount + " unmatched)");
            return;
        }
        if (ControlMessages.ctsFlags(b) == ControlMessages.CTS_CLOSED) {
            receiverClosed();
            readyCount = 0;   // the receives those CTSs named were failed and withdrawn too
            dropEagerMarkers();   // no CTS comes for them any more
        }
        int at = (readyHead + readyCount++) % readyKey.length;
        readyKey[at] = ControlMessages.ctsRegionKey(b);
        readyFlags[at] = ControlMessages.ctsFlags(b);
        readyOffset[at] = ControlMessages.ctsOffset(b);
        readyCapacity[at] = ControlMessages.ctsCapacity(b);
        readyTag[at] = ControlMessages.ctsTag(b);
        if (readyFlags[at] != ControlMessages.CTS_CLOSED) {
            postCtsBox(box);
        }
        match();
    }

    /**
     * The receiving end closed: it failed its pending receives and withdrew their memory, so the sends that started
     * into them (their WRITE still going, or their FIN not yet sent) fail now and their WRITEs are withdrawn. Sends
     * whose FIN is already on its way complete when it is acknowledged.
     */
    private void receiverClosed() {
        while (orderCount > 0) {
            MetaRoceRequest r = inOrder[orderHead];
            inOrder[orderHead] = null;
            orderHead = (orderHead + 1) % inOrder.length;
            orderCount--;
            started--;
            if (r.writeWorkId != -1) {
                side.cancelWrite(connectionId, r.writeWorkId);
                r.writeWorkId = -1;
            }
            r.outstandingWork = 0;
            r.fail(new NetException(NetException.Reason.PEER_CLOSED, "the receiving end (" + peerName()
                    + ") closed before this message was delivered"));
        }
    }

    /** Keeps the waiting requests in order and forgets the eager positions among them. */
    private void dropEagerMarkers() {
        int kept = 0;
        for (int i = 0; i < waitCount; i++) {
            MetaRoceRequest r = waiting[(waitHead + i) % waiting.length];
            if (r != null) {
                waiting[(waitHead + kept++) % waiting.length] = r;
            }
        }
        for (int i = kept; i < waitCount; i++) {
            waiting[(waitHead + i) % waiting.length] = null;
        }
        waitCount = kept;
    }

    private void match() {
        while (waitCount > 0 && readyCount > 0 && !isClosedByPeerOrError()) {
            MetaRoceRequest r = waiting[waitHead];
            waiting[waitHead] = null;
            waitHead = (waitHead + 1) % waiting.length;
            waitCount--;
            int at = readyHead;
            readyHead = (readyHead + 1) % readyKey.length;
            readyCount--;
            if (r == null) {
                // The CTS of a message that went eagerly: the receiver checks its tag and size itself.
                if (readyFlags[at] != ControlMessages.CTS_OPEN) {
                    broken(NetException.Reason.PROTOCOL_ERROR, "the receiving end sent a CTS with flags "
                            + readyFlags[at] + " for a message that went eagerly");
                    return;
                }
                continue;
            }
            waitingRequests--;
            start(r, readyKey[at], readyFlags[at], readyOffset[at], readyCapacity[at], readyTag[at]);
        }
    }

    private boolean isClosedByPeerOrError() {
        return isClosed() && !closing;
    }

    private void start(MetaRoceRequest r, int key, int flags, long remoteOffset, long capacity, long expectedTag) {
        if (flags == ControlMessages.CTS_CLOSED) {
            r.fail(new NetException(NetException.Reason.PEER_CLOSED, "the receiving end closed"));
            broken(NetException.Reason.PEER_CLOSED, "the receiving end closed");
            return;
        }
        if (flags != ControlMessages.CTS_OPEN || remoteOffset < 0 || capacity < 0) {
            r.fail(new NetException(NetException.Reason.PROTOCOL_ERROR, "malformed CTS"));
            broken(NetException.Reason.PROTOCOL_ERROR, "the receiving end sent a CTS with flags " + flags
                    + ", offset " + remoteOffset + ", capacity " + capacity);
            return;
        }
        int finStatus = NO_FIN_YET;
        if (r.tag != expectedTag) {
            r.failure = NetException.tagMismatch(expectedTag, r.tag);
            finStatus = ControlMessages.FIN_TAG_MISMATCH;
        } else if (r.sizeBytes > capacity) {
            r.failure = new NetException(NetException.Reason.TRUNCATED, "a message of " + r.sizeBytes
                    + " bytes is longer than the peer's receive of " + capacity + " bytes");
            finStatus = ControlMessages.FIN_TRUNCATED;
        } else if (r.sizeBytes == 0) {
            finStatus = ControlMessages.FIN_OK;
        } else if (r.sizeBytes <= ControlMessages.INLINE_MAX_BYTES) {
            finStatus = ControlMessages.FIN_INLINE;   // the data goes inside the FIN: no WRITE, no wait for its ACK
        } else {
            r.finStatus = NO_FIN_YET;   // before the post: its completion sets FIN_OK
            long write = side.postWrite(r, connectionId, key, remoteOffset, r.buffer, r.offset, r.sizeBytes);
            if (write == Verbs.QUEUE_FULL) {
                r.fail(queueFull());
                broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
                return;
            }
            r.writeWorkId = write;
            finStatus = r.finStatus;
        }
        begin(r, finStatus);
    }

    /** Puts a started send in line for its FIN ({@code finStatus} {@link #NO_FIN_YET} while its WRITE goes). */
    private void begin(MetaRoceRequest r, int finStatus) {
        r.outstandingWork = 1;
        r.finStatus = finStatus;
        inOrder[(orderHead + orderCount++) % inOrder.length] = r;
        started++;
        sendFinsInOrder();
    }

    /**
     * FINs leave in the order the sends were posted (the n-th FIN completes the n-th receive), though WRITEs may
     * complete in any order.
     */
    private void sendFinsInOrder() {
        while (orderCount > 0 && inOrder[orderHead].finStatus != NO_FIN_YET && freeFinCount > 0) {
            MetaRoceRequest r = inOrder[orderHead];
            inOrder[orderHead] = null;
            orderHead = (orderHead + 1) % inOrder.length;
            orderCount--;
            int box = freeFins[--freeFinCount];
            ControlMessages.putFin(finBoxes[box], r.finStatus, r.sizeBytes, r.tag);
            long finBytes = ControlMessages.FIN_BYTES;
            if (r.finStatus == ControlMessages.FIN_INLINE) {
                MemorySegment.copy(r.buffer, r.offset, finBoxes[box], ControlMessages.FIN_BYTES, r.sizeBytes);
                finBytes += r.sizeBytes;
            }
            if (side.postSend(finOwners[box], connectionId, stream, finBoxes[box], 0, finBytes)
                    == Verbs.QUEUE_FULL) {
                freeFins[freeFinCount++] = box;
                r.fail(queueFull());
                broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
                return;
            }
            // The message is in place and its FIN is on its way, in order behind the earlier ones; the send
            // completes when the FIN is acknowledged (onFinSent), so that completion means the peer has it all.
            finRequests[box] = r;
        }
        if (closing && started == 0 && !closedFinSent) {
            closedFinSent = true;
            sendClosedFin();
        }
    }

    private void onFinSent(int box, CompletionStatus status) {
        MetaRoceRequest r = finRequests[box];
        finRequests[box] = null;
        freeFins[freeFinCount++] = box;
        if (closedStatus(status)) {
            connectionLost();   // fails r too: it is still outstanding
            return;
        }
        if (r != null) {
            started--;
            r.outstandingWork = 0;
            if (r.failure != null) {
                r.fail(r.failure);
            } else {
                r.succeed(r.sizeBytes);
            }
        }
        sendFinsInOrder();
    }

    @Override
    void onRequestWork(MetaRoceRequest r, WorkKind kind, CompletionStatus status, long bytes) {
        if (closedStatus(status)) {
            connectionLost();
            return;
        }
        r.writeWorkId = -1;
        r.finStatus = ControlMessages.FIN_OK;   // the WRITE is placed and acknowledged
        sendFinsInOrder();
    }

    @Override
    void closeLocally() {
        if (closing) {
            return;
        }
        closing = true;
        failWaitingRequests(NetException.Reason.CLOSED, "this sending end was closed");
        sendFinsInOrder();   // sends the CLOSED FIN once every started send's FIN has gone
    }

    private void sendClosedFin() {
        ControlMessages.putFin(closeBox, ControlMessages.FIN_CLOSED, 0, 0);
        side.postSend(ignore, connectionId, stream, closeBox, 0, ControlMessages.FIN_BYTES);
    }

    /**
     * Fails the sends still waiting for their CTS, keeping the eager positions in line: their CTSs still come and
     * must pair with them, not with the CLOSED one.
     */
    private void failWaitingRequests(NetException.Reason reason, String why) {
        int kept = 0;
        for (int i = 0; i < waitCount; i++) {
            int at = (waitHead + i) % waiting.length;
            MetaRoceRequest r = waiting[at];
            waiting[at] = null;
            if (r != null) {
                r.fail(new NetException(reason, why));
            } else {
                kept++;
            }
        }
        waitCount = kept;   // every kept entry is a marker (null), already in place
        waitingRequests = 0;
    }

    private void failWaiting(NetException.Reason reason, String why) {
        while (waitCount > 0) {
            MetaRoceRequest r = waiting[waitHead];
            waiting[waitHead] = null;
            waitHead = (waitHead + 1) % waiting.length;
            waitCount--;
            if (r != null) {
                r.fail(new NetException(reason, why));
            }
        }
        waitingRequests = 0;
    }

    @Override
    void failAll(NetException.Reason reason, String why) {
        failWaiting(reason, why);
        readyCount = 0;
        while (orderCount > 0) {
            inOrder[orderHead] = null;
            orderHead = (orderHead + 1) % inOrder.length;
            orderCount--;
        }
        for (MetaRoceRequest r : slots) {
            if (r.state == MetaRoceRequest.POSTED && !r.reported && r.outstandingWork > 0) {
                if (r.writeWorkId != -1) {
                    // Nothing may read the caller's buffer once its send was reported failed.
                    side.cancelWrite(connectionId, r.writeWorkId);
                    r.writeWorkId = -1;
                }
                r.fail(new NetException(reason, why));
            }
        }
        java.util.Arrays.fill(finRequests, null);
        started = 0;
    }
}
