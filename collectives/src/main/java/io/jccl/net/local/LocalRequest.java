package io.jccl.net.local;

import io.jccl.net.NetException;
import io.jccl.net.NetRequest;

/** A posted send or receive on one slot; one object per slot and side, reused. */
final class LocalRequest implements NetRequest {
    private final LocalEndpoint endpoint;
    private final boolean sendSide;
    LocalSlot slot;
    long seq;
    boolean active;

    LocalRequest(LocalEndpoint endpoint, boolean sendSide) {
        this.endpoint = endpoint;
        this.sendSide = sendSide;
    }

    @Override
    public long test() {
        if (!active) {
            throw new IllegalStateException("request already completed");
        }
        LocalSlot s = slot;
        int st = s.state();
        if ((st & LocalSlot.DONE) != 0) {
            int outcome = s.outcome;
            long bytes = s.send.bytes;
            long expectedTag = s.recv.tag;
            long actualTag = s.send.tag;
            long capacity = s.recv.bytes;
            RuntimeException copyFailure = s.failure;
            endpoint.retire(this);
            return switch (outcome) {
                case LocalSlot.OUTCOME_OK -> bytes;
                case LocalSlot.OUTCOME_TAG_MISMATCH -> throw NetException.tagMismatch(expectedTag, actualTag);
                case LocalSlot.OUTCOME_COPY_FAILED -> throw new NetException(NetException.Reason.IO_ERROR,
                        "copying the message failed: " + copyFailure, copyFailure);
                default -> throw new NetException(NetException.Reason.TRUNCATED,
                        "message of " + bytes + " bytes does not fit the receive buffer of " + capacity + " bytes");
            };
        }
        if ((st & LocalSlot.CANCELLED) != 0) {
            endpoint.retireFailed(this);
            throw endpoint.closedException(sendSide);
        }
        if (endpoint.peerClosed() && (st & LocalSlot.CLAIMED) == 0 && endpoint.cancel(this)) {
            endpoint.retireFailed(this);
            throw new NetException(NetException.Reason.PEER_CLOSED, sendSide
                    ? "the receiving rank closed the connection before taking this message"
                    : "the sending rank closed the connection before sending this message");
        }
        return NOT_DONE;
    }
}
