package io.jccl.net.local;

import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One side of a {@link LocalChannel}: posts requests into slots in sequence order and retires them. Used by a
 * single thread; the other side's thread only touches slot state and the peer-side fields.
 */
final class LocalEndpoint implements SendConnection, RecvConnection {
    private final LocalChannel channel;
    private final boolean sendSide;
    private final LocalRequest[] requests;
    private final int myPosted;
    private final int otherPosted;
    private final int myRetired;
    private final int otherRetired;
    private long nextSeq;
    private volatile boolean closed;

    LocalEndpoint(LocalChannel channel, boolean sendSide) {
        this.channel = channel;
        this.sendSide = sendSide;
        this.requests = new LocalRequest[channel.slots.length];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = new LocalRequest(this, sendSide);
        }
        this.myPosted = sendSide ? LocalSlot.SEND_POSTED : LocalSlot.RECV_POSTED;
        this.otherPosted = sendSide ? LocalSlot.RECV_POSTED : LocalSlot.SEND_POSTED;
        this.myRetired = sendSide ? LocalSlot.SEND_RETIRED : LocalSlot.RECV_RETIRED;
        this.otherRetired = sendSide ? LocalSlot.RECV_RETIRED : LocalSlot.SEND_RETIRED;
    }

    @Override
    public NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
        LocalSlot slot = claimSlot(true, buffer, offset, sizeBytes, "sizeBytes");
        return slot == null ? null : post(slot, buffer, offset, sizeBytes, tag);
    }

    @Override
    public NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                            MemoryRegistration mr) {
        LocalSlot slot = claimSlot(false, buffer, offset, capacityBytes, "capacityBytes");
        return slot == null ? null : post(slot, buffer, offset, capacityBytes, expectedTag);
    }

    private static void checkRange(MemorySegment buffer, long offset, long bytes, String what) {
        if (bytes < 0 || offset < 0) {
            throw new IllegalArgumentException("negative offset or " + what + ": " + offset + ", " + bytes);
        }
        if (bytes > 0) {
            Objects.requireNonNull(buffer, "buffer");
            if (offset > buffer.byteSize() - bytes) {
                throw new IndexOutOfBoundsException("range [" + offset + ", " + (offset + bytes)
                        + ") is outside the buffer of " + buffer.byteSize() + " bytes");
            }
        }
    }

    /**
     * Checks a request of this end's direction ({@code send}) and claims the slot of the next message for it.
     *
     * @return the slot, or null when it still holds an earlier message (too many in flight)
     */
    private LocalSlot claimSlot(boolean send, MemorySegment buffer, long offset, long bytes, String what) {
        if (send != sendSide) {
            throw new UnsupportedOperationException(sendSide ? "this is the sending end of the connection"
                    : "this is the receiving end of the connection");
        }
        checkRange(buffer, offset, bytes, what);
        if (!send && buffer != null && buffer.isReadOnly() && bytes > 0) {
            throw new IllegalArgumentException("receive buffer is read-only");
        }
        if (closed) {
            throw closedException(sendSide);
        }
        if (peerClosed()) {
            throw new NetException(NetException.Reason.PEER_CLOSED, "the peer closed the connection");
        }
        LocalSlot slot = channel.slot(nextSeq);
        if (slot.nextSeq() != nextSeq) {
            return null;   // the slot still holds message nextSeq - capacity: too many in flight
        }
        return slot;
    }

    /** Fills this end's half of {@code slot} and posts it: matches and copies when the other end posted first. */
    private NetRequest post(LocalSlot slot, MemorySegment buffer, long offset, long bytes, long tag) {
        (sendSide ? slot.send : slot.recv).set(buffer, offset, bytes, tag);
        LocalRequest req = requests[(int) (nextSeq & channel.mask)];
        req.slot = slot;
        req.seq = nextSeq;
        req.active = true;
        nextSeq++;
        while (true) {
            int st = slot.state();
            if ((st & otherPosted) != 0 && (st & LocalSlot.CANCELLED) == 0) {
                if (slot.cas(st, st | myPosted | LocalSlot.CLAIMED)) {
                    slot.matchAndCopy();
                    (sendSide ? channel.receiverSignal : channel.senderSignal).signal();
                    return req;
                }
            } else if (slot.cas(st, st | myPosted)) {
                return req;
            }
        }
    }

    void retire(LocalRequest req) {
        req.active = false;
        int old = req.slot.getAndOr(myRetired);
        if ((old & otherRetired) != 0) {
            req.slot.recycle(req.seq + channel.slots.length);
        }
        req.slot = null;
    }

    void retireFailed(LocalRequest req) {
        req.active = false;
        req.slot = null;
    }

    /** Cancels an unmatched request; false when the other side already claimed it (the copy will finish). */
    boolean cancel(LocalRequest req) {
        LocalSlot slot = req.slot;
        while (true) {
            int st = slot.state();
            if ((st & (LocalSlot.CLAIMED | LocalSlot.DONE)) != 0) {
                return false;
            }
            if ((st & LocalSlot.CANCELLED) != 0 || slot.cas(st, st | LocalSlot.CANCELLED)) {
                return true;
            }
        }
    }

    boolean peerClosed() {
        return sendSide ? channel.receiverClosed : channel.senderClosed;
    }

    NetException closedException(boolean forSendSide) {
        if (closed) {
            return new NetException(NetException.Reason.CLOSED, "the connection was closed on this side");
        }
        return new NetException(NetException.Reason.PEER_CLOSED, forSendSide
                ? "the receiving rank closed the connection" : "the sending rank closed the connection");
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (sendSide) {
            channel.senderClosed = true;
        } else {
            channel.receiverClosed = true;
        }
        // Cancel what the peer has not matched yet; wait out copies already in progress so that no byte is
        // written into (or read from) our memory after close returns.
        for (LocalRequest req : requests) {
            LocalSlot slot = req.slot;
            if (req.active && slot != null && !cancel(req)) {
                while ((slot.state() & LocalSlot.DONE) == 0) {
                    Thread.onSpinWait();
                }
            }
        }
        (sendSide ? channel.receiverSignal : channel.senderSignal).signal();
    }
}
