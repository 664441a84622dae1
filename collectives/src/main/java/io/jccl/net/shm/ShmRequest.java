package io.jccl.net.shm;

import io.jccl.net.PooledRequest;
import io.jccl.net.RecvSink;

/**
 * A send or receive on one {@link ShmConnection}, from the connection's pool. Fields are driven by the owning
 * connection on the thread that drives it.
 */
final class ShmRequest extends PooledRequest {
    /** Receive: takes the message's bytes where the ring or the sender's memory holds them, instead of segment. */
    RecvSink sink;
    /** Payload bytes written to the ring (send) or into the receive (receive). */
    long movedBytes;
    /** Send: whether its first record is in the ring. */
    boolean started;
    /** Send: the sender asked for the receiver to read it where it lies ({@code isendSingleCopy}). */
    boolean singleCopy;
    /** The record kind carrying the message ({@link Records}), once chosen (send) or matched (receive). */
    int kind;
    /** Receive: the matched message's length. */
    long messageBytes;
    /** Receive of a descriptor: where the message lies in the sender's memory (address or heap offset). */
    long source;
    /** Send of a descriptor: the acknowledgement count that completes it. */
    long ackIndex;

    @Override
    protected void onStart() {
        sink = null;
        movedBytes = 0;
        started = false;
        singleCopy = false;
        kind = 0;
        messageBytes = -1;
        source = 0;
        ackIndex = 0;
    }

    @Override
    protected void onFinish() {
        sink = null;
    }
}
