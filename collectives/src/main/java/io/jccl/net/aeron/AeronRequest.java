package io.jccl.net.aeron;

import io.jccl.net.PooledRequest;

/**
 * A send or receive on one {@link AeronConnection}, from the connection's pool. Fields are driven by the owning
 * connection on the thread that drives it.
 */
final class AeronRequest extends PooledRequest {
    /** Payload bytes written to the log (send) or copied out of it (receive). */
    long movedBytes;
    /** Send: whether the first frame is in the log. Receive: whether its message's first frame was matched. */
    boolean started;
    /** Receive: the matched message's length. */
    long messageBytes;

    @Override
    protected void onStart() {
        movedBytes = 0;
        started = false;
        messageBytes = -1;
    }
}
