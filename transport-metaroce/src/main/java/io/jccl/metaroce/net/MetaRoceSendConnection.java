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

/**
 * The sending end. A message longer than the inline limit ({@link ControlMessages#inlineMaxBytes}: one payload of
 * the connection) waits for the receiver's CTS for its number (which names the receive's memory, capacity and tag)
 * and is WRITTEN straight into that memory as a WRITE
 * with immediate: the receiver's endpoint reports the immediate once every byte is in place, which completes the
 * receive, and the send completes when the WRITE is acknowledged — then the receiver has the whole message, so a
 * rank whose sends all completed may close without losing any of them. A send that does not match its receive
 * (another tag, too long) writes nothing: its FIN says why, and both ends fail. When no CTS for it came within
 * {@link #RTS_DELAY_NS} such a message sends an RTS (a short receive sends no CTS unless asked; a long one sends its
 * CTS as it is posted, so the RTS is for a receive too short for the message, or one posted late).
 *
 * <p>A shorter message is not written: it travels inside its FIN, <em>eagerly</em> unless its CTS is at hand (a long
 * receive sent one): the FIN leaves at once, into one of the FIN boxes the receiver keeps posted (the receiver checks
 * tag and size itself), and the send completes as the FIN is posted, holding a copy of the message: the transport's
 * driver thread delivers it (a graceful close waits until every FIN is acknowledged), and a mismatch fails the
 * receive. In invoker threading, where only polls move the protocol, it completes when the FIN is acknowledged.
 * Each eager FIN or RTS holds a credit until the receiver reports its box posted again; at most
 * {@link #EAGER_CREDITS} are out, so they never need more boxes than it posted for them. Messages start in order:
 * one waits while the message before it waits for its CTS or a credit. FINs and RTSs leave in message order, each
 * after the WRITEs with immediate of the messages before it are acknowledged, so none can reach the receiver before
 * an earlier message's immediate.
 */
final class MetaRoceSendConnection extends Channel implements SendConnection {
    private final MemorySegment helloBox;
    private final MemorySegment closeBox;
    private final MemorySegment[] ctsBoxes;
    private final WorkOwner[] ctsOwners;
    private static final int NO_FIN_YET = -1;
    /** A send whose WRITE with immediate completed it: no FIN; it leaves the line in its turn. */
    private static final int NO_FIN = -2;
    /**
     * Eager FINs and RTSs that may be out before the receiver reported their boxes free again; the receiving end
     * posts this many FIN boxes beyond its receives'.
     */
    static final int EAGER_CREDITS = 32;
    /**
     * How long a long message waits for its CTS before it asks for it by an RTS. A long receive sends its CTS as it
     * is posted, so an RTS sent at once (as before 2026-12-07) was a wasted datagram, and its acknowledgement a
     * second one, in every exchange whose sends are posted before the peer's CTS arrives (both sides of an
     * all-reduce): about 15-25 µs of a 4 KiB-1 MiB exchange here (docs/performance.md). Only a receive too short for
     * the message (it sends no CTS: the send must learn the capacity to fail both ends) or one posted this late needs
     * the RTS; the first fails this much later.
     */
    static final long RTS_DELAY_NS = 1_000_000;


    // Driving thread: received CTSs for messages not yet started, in increasing message number.
    private final int[] readyKey;
    private final int[] readyFlags;
    private final long[] readyOffset;
    private final long[] readyCapacity;
    private final long[] readyTag;
    private final int[] readyMessage;
    private int readyHead;
    private int readyCount;
    // Driving thread: posted sends not yet started (waiting for their CTS or a credit), in order.
    private final MetaRoceRequest[] waiting;
    private int waitHead;
    private int waitCount;
    /** Eager FINs and RTSs sent (or queued) whose boxes the receiver has not reported free. */
    private int eagerOut;
    /** The receiving end closed (a closed CTS came): every send not started fails. */
    private boolean receiverGone;
    /** This channel is in the transport's {@link RtsTimers}. */
    private boolean rtsTimerArmed;
    // Driving thread: FINs (and RTSs) to send in posting order, each with the send it is for.
    private final MetaRoceRequest[] inOrder;
    private final boolean[] inOrderRts;
    private final int[] inOrderMessage;
    private int orderHead;
    private int orderCount;
    private int started;
    private boolean closedFinSent;
    // Driving thread: FIN (and RTS) boxes, and the send each FIN completes.
    private final SendBoxes fins;
    private final MetaRoceRequest[] finRequests;
    /** Per FIN box: it holds the FIN of a started send (not an RTS), counted in {@code started} until acknowledged. */
    private final boolean[] finStarted;

    MetaRoceSendConnection(MetaRoceNetTransport transport, Side side, int connectionId, int index, int peerRank,
                           ProgressSignal signal, int maxInflight, Arena arena) {
        super(transport, side, connectionId, index, peerRank, signal, maxInflight, arena);
        helloBox = arena.allocate(ControlMessages.BOX_BYTES, 8);
        closeBox = arena.allocate(ControlMessages.BOX_BYTES, 8);
        int boxes = maxInflight + 1 + MetaRoceRecvConnection.CREDIT_BOXES;
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
        readyMessage = new int[ready];
        waiting = new MetaRoceRequest[maxInflight];
        inOrder = new MetaRoceRequest[2 * maxInflight];
        inOrderRts = new boolean[2 * maxInflight];
        inOrderMessage = new int[2 * maxInflight];
        fins = new SendBoxes(2 * maxInflight, finBoxBytes(), arena, this::onFinSent);
        finRequests = new MetaRoceRequest[fins.count()];
        finStarted = new boolean[fins.count()];
    }

    // ---- caller's thread ----

    @Override
    public NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
        return claim(buffer, offset, sizeBytes, tag, false);
    }

    @Override
    public void close() {
        closeFromCaller("this sending end was closed");
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
        if (!admit(r)) {
            return;
        }
        r.waitingForCts = true;
        waiting[(waitHead + waitCount++) % waiting.length] = r;
        startInOrder();
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
        int flags = ControlMessages.i32(b, ControlMessages.CTS_FLAGS_AT);
        int credits = ControlMessages.i32(b, ControlMessages.CTS_CREDITS_AT);
        if (status != CompletionStatus.OK || bytes != ControlMessages.CTS_BYTES || credits < 0 || credits > eagerOut
                || (flags != ControlMessages.CTS_OPEN && flags != ControlMessages.CTS_CLOSED
                && flags != ControlMessages.CTS_CREDIT)) {
            broken(NetException.Reason.PROTOCOL_ERROR, "the receiving end sent a malformed CTS (" + bytes + " bytes, "
                    + status + ", flags " + flags + ", " + credits + " credits for " + eagerOut + " out)");
            return;
        }
        eagerOut -= credits;
        if (flags == ControlMessages.CTS_CLOSED) {
            receiverClosed(ControlMessages.i32(b, ControlMessages.CTS_MESSAGE_AT));
            readyCount = 0;   // the receives those CTSs named were failed and withdrawn too
            receiverGone = true;
            startInOrder();
            return;
        }
        postCtsBox(box);
        if (flags == ControlMessages.CTS_OPEN && !take(b)) {
            return;
        }
        startInOrder();
    }

    /**
     * Keeps a CTS until its message starts, or discards it when its message went eagerly (or was failed).
     *
     * @return false when the CTS broke the protocol (the channel is broken)
     */
    private boolean take(MemorySegment b) {
        int message = ControlMessages.i32(b, ControlMessages.CTS_MESSAGE_AT);
        int oldest = waitCount > 0 ? waiting[waitHead].message : nextMessage;
        if (message - oldest < 0) {
            return true;   // its message went eagerly: the receiver checks its tag and size itself
        }
        int last = readyCount > 0 ? readyMessage[(readyHead + readyCount - 1) % readyKey.length] : 0;
        boolean first = readyCount > 0 && waitCount > 0 && message == oldest && message - last < 0;
        if (readyCount == readyKey.length || (readyCount > 0 && message - last <= 0 && !first)) {
            broken(NetException.Reason.PROTOCOL_ERROR, "the receiving end sent a CTS for message " + message
                    + " out of order (" + readyCount + " unmatched, the last for message " + last + ")");
            return false;
        }
        int at;
        if (first) {
            // The CTS an RTS asked for, for the oldest waiting message: ahead of those long receives sent at once.
            readyHead = (readyHead - 1 + readyKey.length) % readyKey.length;
            readyCount++;
            at = readyHead;
        } else {
            at = (readyHead + readyCount++) % readyKey.length;
        }
        readyKey[at] = ControlMessages.i32(b, ControlMessages.CTS_REGION_KEY_AT);
        readyFlags[at] = ControlMessages.i32(b, ControlMessages.CTS_FLAGS_AT);
        readyOffset[at] = ControlMessages.i64(b, ControlMessages.CTS_OFFSET_AT);
        readyCapacity[at] = ControlMessages.i64(b, ControlMessages.CTS_CAPACITY_AT);
        readyTag[at] = ControlMessages.i64(b, ControlMessages.CTS_TAG_AT);
        readyMessage[at] = message;
        return true;
    }

    /**
     * Starts waiting sends in order while it can: with its CTS when at hand, else a short one eagerly when a credit
     * is free; a long one without its CTS waits, and announces itself once by an RTS (a credit too) when its CTS has
     * not come within {@link #RTS_DELAY_NS} ({@link RtsTimers} looks again then).
     */
    private void startInOrder() {
        while (waitCount > 0 && !isClosedByPeerOrError()) {
            MetaRoceRequest r = waiting[waitHead];
            if (receiverGone) {
                popWaiting();
                r.fail(new NetException(NetException.Reason.PEER_CLOSED, "the receiving end closed"));
                broken(NetException.Reason.PEER_CLOSED, "the receiving end closed");
                return;
            }
            while (readyCount > 0 && readyMessage[readyHead] - r.message < 0) {
                readyHead = (readyHead + 1) % readyKey.length;   // for a message that failed before it started
                readyCount--;
            }
            if (readyCount > 0 && readyMessage[readyHead] == r.message) {
                int at = readyHead;
                readyHead = (readyHead + 1) % readyKey.length;
                readyCount--;
                popWaiting();
                start(r, readyKey[at], readyFlags[at], readyOffset[at], readyCapacity[at], readyTag[at]);
                continue;
            }
            if (eagerOut == EAGER_CREDITS) {
                return;   // a credit comes back with the receiver's next CTS or CREDIT
            }
            if (r.sizeBytes <= inlineMaxBytes) {
                popWaiting();
                eagerOut++;
                r.eagerFin = true;
                begin(r, ControlMessages.FIN_INLINE);
                continue;
            }
            if (!r.rtsQueued) {
                long nowNs = transport().nanoTime();
                if (r.ctsWaitSinceNs == MetaRoceRequest.NOT_WAITING) {
                    r.ctsWaitSinceNs = nowNs;
                }
                if (nowNs - r.ctsWaitSinceNs < RTS_DELAY_NS) {
                    if (!rtsTimerArmed) {
                        rtsTimerArmed = true;
                        transport().rtsTimers.arm(this, r.ctsWaitSinceNs + RTS_DELAY_NS);
                    }
                    return;   // its CTS is most likely on its way
                }
                eagerOut++;
                r.rtsQueued = true;
                putInOrder(r, true);
                sendFinsInOrder();
            }
            return;
        }
    }

    /** Driving thread: this channel's RTS timer fired ({@link RtsTimers}); the oldest send may ask for its CTS. */
    void onRtsTimer() {
        rtsTimerArmed = false;
        startInOrder();
    }

    private void popWaiting() {
        MetaRoceRequest r = waiting[waitHead];
        waiting[waitHead] = null;
        waitHead = (waitHead + 1) % waiting.length;
        waitCount--;
        r.waitingForCts = false;
    }

    /**
     * The receiving end closed: it failed its pending receives and withdrew their memory, so the sends that started
     * into them (their WRITE still going, or their FIN not yet sent) fail now and their WRITEs are withdrawn. Sends
     * whose FIN is already on its way complete when it is acknowledged; so do sends whose receive the WRITE with
     * immediate had completed before the close (numbered below {@code firstIncomplete}, which the closed CTS
     * carries: the receiver's oldest receive not complete), when their WRITE is.
     */
    private void receiverClosed(int firstIncomplete) {
        while (orderCount > 0) {
            MetaRoceRequest r = inOrder[orderHead];
            boolean rts = inOrderRts[orderHead];
            int message = inOrderMessage[orderHead];
            popInOrder();
            if (rts) {
                continue;   // its send is still waiting: it fails with the others (receiverGone)
            }
            started--;
            if (message - firstIncomplete < 0 && (r.finStatus == NO_FIN || r.writeWorkId != -1)) {
                if (r.finStatus == NO_FIN) {
                    r.outstandingWork = 0;
                    r.succeed(r.sizeBytes);
                } else {
                    r.deliveredAwaitingAck = true;   // onRequestWork completes it
                }
                continue;
            }
            if (r.writeWorkId != -1) {
                side.cancelWrite(connectionId, r.writeWorkId);
                r.writeWorkId = -1;
            }
            r.outstandingWork = 0;
            r.fail(new NetException(NetException.Reason.PEER_CLOSED, "the receiving end (" + peerName()
                    + ") closed before this message was delivered"));
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
        } else if (r.sizeBytes <= inlineMaxBytes) {
            finStatus = ControlMessages.FIN_INLINE;   // the data goes inside the FIN: no WRITE, no wait for its ACK
        } else {
            // The WRITE's immediate (the region's key) completes the receive: no FIN. Its completion here (every
            // byte placed and acknowledged) sets NO_FIN; until then FINs of later messages wait behind it.
            r.finStatus = NO_FIN_YET;
            long write = side.postWriteImmediate(r, connectionId, key, remoteOffset, r.buffer, r.offset, r.sizeBytes,
                    key);
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
        putInOrder(r, false);
        started++;
        sendFinsInOrder();
    }

    private void putInOrder(MetaRoceRequest r, boolean rts) {
        int at = (orderHead + orderCount++) % inOrder.length;
        inOrder[at] = r;
        inOrderRts[at] = rts;
        inOrderMessage[at] = r.message;
    }

    /**
     * FINs (and RTSs) leave in the order the sends were posted (the n-th FIN completes the n-th receive), though
     * WRITEs may complete in any order.
     */
    private void sendFinsInOrder() {
        while (orderCount > 0) {
            MetaRoceRequest r = inOrder[orderHead];
            boolean rts = inOrderRts[orderHead];
            if (rts && (r.message != inOrderMessage[orderHead] || !r.waitingForCts)) {
                popInOrder();   // the send started (its CTS came) or failed first: no RTS needed
                eagerOut--;
                continue;
            }
            if (!rts && r.finStatus == NO_FIN) {
                // Completed by its WRITE with immediate, which the receiver has (the acknowledgements follow
                // placement): it leaves the line now, in order, and the FINs behind it may go.
                popInOrder();
                started--;
                r.outstandingWork = 0;
                r.succeed(r.sizeBytes);
                continue;
            }
            if ((!rts && r.finStatus == NO_FIN_YET) || !fins.anyFree()) {
                break;
            }
            popInOrder();
            int box = fins.take();
            MemorySegment fin = fins.box(box);
            long finBytes = ControlMessages.FIN_BYTES;
            if (rts) {
                ControlMessages.putFin(fin, ControlMessages.FIN_RTS, ControlMessages.FIN_EAGER, r.message,
                        r.sizeBytes, r.tag);
            } else {
                ControlMessages.putFin(fin, r.finStatus, r.eagerFin ? ControlMessages.FIN_EAGER : 0, r.message,
                        r.sizeBytes, r.tag);
                if (r.finStatus == ControlMessages.FIN_INLINE) {
                    MemorySegment.copy(r.buffer, r.offset, fin, ControlMessages.FIN_BYTES, r.sizeBytes);
                    finBytes += r.sizeBytes;
                }
            }
            // The message is in place and its FIN is on its way, in order behind the earlier ones. A FIN that
            // holds the whole message completes its send now where a driver thread delivers it when nobody polls:
            // the caller's buffer is free, the FIN box keeps the copy until acknowledged, and a close waits for
            // that (started counts it until onFinSent). Waiting for the acknowledgement put a round trip on every
            // small message's path; as nobody waits for it now, the receiver may acknowledge it lazily, with later
            // ones or after a while. Any other send completes when its FIN is acknowledged, so that completion means
            // the peer has it all (in invoker mode small ones too: a caller that stops polling once its sends
            // completed must not strand one the peer has not taken yet); an RTS completes nothing.
            boolean completesNow = !rts && r.finStatus == ControlMessages.FIN_INLINE && r.failure == null
                    && transport().drivenWithoutCallers();
            long posted = completesNow
                    ? side.postSendAckedLazily(fins.owner(box), connectionId, stream, fin, 0, finBytes)
                    : side.postSend(fins.owner(box), connectionId, stream, fin, 0, finBytes);
            if (posted == Verbs.QUEUE_FULL) {
                fins.release(box);
                r.fail(queueFull());
                broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
                return;
            }
            finStarted[box] = !rts;
            if (completesNow) {
                r.outstandingWork = 0;
                r.succeed(r.sizeBytes);
                finRequests[box] = null;
            } else {
                finRequests[box] = rts ? null : r;
            }
        }
        if (closing && started == 0 && !closedFinSent) {
            closedFinSent = true;
            sendClosedFin();
        }
    }

    private void popInOrder() {
        inOrder[orderHead] = null;
        inOrderRts[orderHead] = false;
        orderHead = (orderHead + 1) % inOrder.length;
        orderCount--;
    }

    private void onFinSent(int box, CompletionStatus status) {
        MetaRoceRequest r = finRequests[box];
        boolean finOfAStartedSend = finStarted[box];
        finRequests[box] = null;
        finStarted[box] = false;
        fins.release(box);
        if (closedStatus(status)) {
            connectionLost();   // fails r too: it is still outstanding
            return;
        }
        if (finOfAStartedSend) {
            started--;
        }
        if (r != null) {
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
        if (r.deliveredAwaitingAck) {
            // Its receive completed before the receiving end closed; only the WRITE's acknowledgement was missing.
            r.deliveredAwaitingAck = false;
            r.writeWorkId = -1;
            r.outstandingWork = 0;
            if (status == CompletionStatus.OK) {
                r.succeed(r.sizeBytes);
            } else {
                r.fail(new NetException(NetException.Reason.PEER_CLOSED, "the connection to " + peerName()
                        + " ended (" + status + ") before the last acknowledgements of this message came"));
            }
            if (closedStatus(status)) {
                connectionLost();
            }
            return;
        }
        if (closedStatus(status)) {
            connectionLost();
            return;
        }
        r.writeWorkId = -1;
        r.finStatus = NO_FIN;   // the WRITE with immediate is placed and acknowledged: the receive completed
        sendFinsInOrder();
    }

    @Override
    void closeLocally() {
        if (closing) {
            return;
        }
        closing = true;
        failWaiting(NetException.Reason.CLOSED, "this sending end was closed");
        sendFinsInOrder();   // sends the CLOSED FIN once every started send's FIN has gone
    }

    private void sendClosedFin() {
        ControlMessages.putFin(closeBox, ControlMessages.FIN_CLOSED, 0, 0, 0, 0);
        side.postSend(ignore, connectionId, stream, closeBox, 0, ControlMessages.FIN_BYTES);
    }

    /** Fails the sends still waiting to start. */
    private void failWaiting(NetException.Reason reason, String why) {
        while (waitCount > 0) {
            MetaRoceRequest r = waiting[waitHead];
            popWaiting();
            r.fail(new NetException(reason, why));
        }
    }

    @Override
    void failAll(NetException.Reason reason, String why) {
        failWaiting(reason, why);
        readyCount = 0;
        while (orderCount > 0) {
            popInOrder();
        }
        for (MetaRoceRequest r : slots) {
            if (r.deliveredAwaitingAck) {
                continue;   // delivered: its WRITE's completion completes it, whatever it is
            }
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
        java.util.Arrays.fill(finStarted, false);
        started = 0;
    }
}
