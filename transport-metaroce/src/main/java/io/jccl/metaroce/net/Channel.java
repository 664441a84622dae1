package io.jccl.metaroce.net;

import io.jccl.config.Arguments;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.metaroce.protocol.conn.Connection;
import io.jccl.net.NetException;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvSink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One end of a one-directional {@code metaroce} connection: a pair of MetaRoCE streams (one per direction) on the
 * MetaRoCE connection between two ranks' transports, which any number of channels share. {@link #claim} and
 * {@code close} run on the caller's thread — one thread at a time per connection, as the collectives' executor
 * posts (two threads posting on one connection at once could claim the same slot); everything else runs on the
 * driving thread.
 */
abstract class Channel {
    private final MetaRoceNetTransport transport;
    final Side side;
    final int connectionId;
    final int index;
    final int stream;
    /** The peer's rank, for messages; -1 when not known. */
    final int peerRank;
    private final ProgressSignal signal;
    final MetaRoceRequest[] slots;
    /** The payload per packet of the channel's MetaRoCE connection, the same on both ends; 0 when not known. */
    final int payloadBytes;
    /** The longest message that travels inside its FIN ({@link ControlMessages#inlineMaxBytes}); both ends agree. */
    final int inlineMaxBytes;

    /** Why posts fail from now on (null while open); set once, by either thread, read by the caller's. */
    private final AtomicReference<Closed> closed = new AtomicReference<>();
    /** Whether the caller closed this end (set once, by the caller's thread). */
    private final AtomicBoolean closeCalled = new AtomicBoolean();
    /** The owner of control sends whose completion nothing waits for. */
    final WorkOwner ignore = (kind, status, bytes) -> { };

    // Driving thread only:
    /** The number of the next request posted (the n-th receive takes the n-th message the n-th send sent). */
    int nextMessage;
    /** Whether this end closed locally (or was refused): posts fail, nothing more is sent but the close. */
    boolean closing;

    /** How a channel closed. */
    private record Closed(NetException.Reason reason, String why) {
    }

    Channel(MetaRoceNetTransport transport, Side side, int connectionId, int index, int peerRank,
            ProgressSignal signal, int maxInflight, Arena arena) {
        this.transport = transport;
        this.peerRank = peerRank;
        this.side = side;
        this.connectionId = connectionId;
        this.index = index;
        this.stream = ControlMessages.stream(index);
        this.signal = signal;
        this.slots = new MetaRoceRequest[maxInflight];
        // Made on the driving thread, the connection established: its payload (the initiator's) is fixed.
        Connection c = side.endpoint.connection(connectionId);
        this.payloadBytes = c != null ? c.payloadBytes() : 0;
        this.inlineMaxBytes = ControlMessages.inlineMaxBytes(payloadBytes);
        for (int i = 0; i < maxInflight; i++) {
            slots[i] = new MetaRoceRequest(this, arena.allocate(ControlMessages.BOX_BYTES, 8));
        }
    }

    MetaRoceNetTransport transport() {
        return transport;
    }

    /** @return the room of a FIN box on either end: a FIN with the most data it carries (a payload, at least 4 KiB) */
    final int finBoxBytes() {
        return ControlMessages.FIN_BYTES + inlineMaxBytes;
    }

    void signal() {
        signal.signal();
    }

    // ---- caller's thread ----

    /**
     * Checks a post's arguments, then claims a free slot.
     *
     * @return the slot, filled, or null when every slot is in use
     */
    final MetaRoceRequest claim(MemorySegment buffer, long offset, long sizeBytes, long tag, boolean receive) {
        Objects.requireNonNull(buffer, "buffer");
        Objects.checkFromIndexSize(offset, sizeBytes, buffer.byteSize());
        if (receive && buffer.isReadOnly() && sizeBytes > 0) {
            throw new IllegalArgumentException("the receive buffer is read-only");
        }
        if (sizeBytes > MetaRoceNetTransport.MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("a message of " + sizeBytes + " bytes exceeds the transport's limit of "
                    + MetaRoceNetTransport.MAX_MESSAGE_BYTES);
        }
        if (!transport.canReach(buffer)) {
            throw new IllegalArgumentException("the buffer is confined to one thread; the transport's driver thread "
                    + "cannot read or write it (use a shared or global arena)");
        }
        throwIfClosed();
        return claimSlot(buffer, offset, sizeBytes, tag, null);
    }

    /**
     * Checks a sink receive's arguments, then claims a free slot.
     *
     * @return the slot, filled, or null when every slot is in use
     */
    final MetaRoceRequest claimSink(RecvSink sink, long capacityBytes, long tag) {
        Objects.requireNonNull(sink, "sink");
        Arguments.inRange("capacityBytes", capacityBytes, 0, MetaRoceNetTransport.MAX_MESSAGE_BYTES);
        throwIfClosed();
        return claimSlot(MemorySegment.NULL, 0, capacityBytes, tag, sink);
    }

    private MetaRoceRequest claimSlot(MemorySegment buffer, long offset, long sizeBytes, long tag, RecvSink sink) {
        for (MetaRoceRequest r : slots) {
            if (r.state == MetaRoceRequest.FREE) {
                r.buffer = buffer;
                r.sink = sink;
                r.offset = offset;
                r.sizeBytes = sizeBytes;
                r.tag = tag;
                r.state = MetaRoceRequest.POSTED;
                transport.submit(r);
                return r;
            }
        }
        return null;
    }

    /**
     * The caller's close: marks the channel closed, once, and has the driving thread close it locally.
     *
     * @param why what posts fail with from now on
     */
    final void closeFromCaller(String why) {
        if (closeCalled.compareAndSet(false, true)) {
            markClosed(NetException.Reason.CLOSED, why);
            if (!transport.isClosing()) {
                transport.submit((Runnable) this::closeLocally);
            }
        }
    }

    final void throwIfClosed() {
        Closed c = closed.get();
        if (c != null) {
            throw new NetException(c.reason(), c.why());
        }
    }

    /** Marks the channel closed for posts; the first reason sticks. */
    final void markClosed(NetException.Reason reason, String why) {
        if (closed.get() == null) {
            closed.compareAndSet(null, new Closed(reason, why));
        }
    }

    final boolean isClosed() {
        return closed.get() != null;
    }

    /** @return a failure saying why the channel closed; only once {@link #isClosed()} */
    final NetException closedFailure() {
        Closed c = closed.get();
        return new NetException(c.reason(), c.why());
    }

    // ---- driving thread ----

    /** A request the caller posted reaches the driving thread. */
    abstract void onPosted(MetaRoceRequest request);

    /**
     * Takes a posted request in on the driving thread: resets it, and fails it when this end is closing or closed;
     * otherwise it gets the next message number.
     *
     * @return whether the request goes on
     */
    final boolean admit(MetaRoceRequest r) {
        r.resetForPost();
        if (closing || isClosed()) {
            r.fail(closedFailure());
            return false;
        }
        r.message = nextMessage++;
        return true;
    }

    /** A piece of work a request posted completed. */
    abstract void onRequestWork(MetaRoceRequest request, WorkKind kind, CompletionStatus status, long bytes);

    /** The caller closed this end. */
    abstract void closeLocally();

    /** The whole transport is closing: fail what is left with CLOSED. */
    abstract void failAll(NetException.Reason reason, String why);

    /** Reports a failure: closes the channel for posts and fails everything pending with it. */
    final void broken(NetException.Reason reason, String why) {
        markClosed(reason, why);
        failAll(reason, why);
    }

    /**
     * What a lost MetaRoCE connection means for this end: CLOSED if this side is closing, else PEER_CLOSED; either
     * way every request still pending fails (a channel closed for posts may still have sends in flight).
     */
    final void connectionLost() {
        if (transport.isClosing()) {
            broken(NetException.Reason.CLOSED, "the transport was closed");
            return;
        }
        if (!isClosed()) {
            transport.onConnectionLost(side, connectionId);
        }
        broken(NetException.Reason.PEER_CLOSED, "the MetaRoCE connection to " + peerName() + " closed ("
                + transport.closeCause(side, connectionId) + ")");
    }

    /** @return how messages name the peer: {@code rank 3}, or {@code the peer} when its rank is not known */
    final String peerName() {
        return peerRank >= 0 ? "rank " + peerRank : "the peer";
    }

    /** Why a post to the MetaRoCE endpoint was refused: the connection's work queue is full. */
    static final String QUEUE_FULL = "the MetaRoCE connection has too much work queued";

    /** @return a fresh failure saying the connection's work queue is full */
    static NetException queueFull() {
        return new NetException(NetException.Reason.IO_ERROR, QUEUE_FULL);
    }

    /** Posts a receive for one control message into {@code box}; a full work queue breaks the channel. */
    final void postControlReceive(WorkOwner owner, MemorySegment box) {
        if (side.postRecv(owner, connectionId, stream, box, 0, box.byteSize()) == Verbs.QUEUE_FULL) {
            broken(NetException.Reason.IO_ERROR, QUEUE_FULL);
        }
    }

    static boolean closedStatus(CompletionStatus status) {
        return status == CompletionStatus.CONNECTION_CLOSED;
    }

    /** A control receive ended because the peer closed gracefully: nothing more comes on this channel. */
    static boolean peerDone(CompletionStatus status) {
        return status == CompletionStatus.PEER_DONE;
    }

    /** Why requests fail once the peer closed gracefully (CLOSED instead while this side is closing itself). */
    final NetException.Reason peerDoneReason() {
        return transport.isClosing() ? NetException.Reason.CLOSED : NetException.Reason.PEER_CLOSED;
    }

    /** Why requests fail once the peer closed gracefully. */
    final String peerDoneWhy() {
        return transport.isClosing() ? "the transport was closed"
                : peerName() + " closed its transport after delivering everything it sent: nothing more will come";
    }
}
