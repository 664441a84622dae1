package io.jccl.net;

import java.lang.foreign.MemorySegment;

/**
 * One rank's instance of a transport. Created by a {@link NetTransportProvider}; closed with its communicator.
 */
public interface NetTransport extends AutoCloseable {
    /** @return what this transport can do */
    NetProperties properties();

    /**
     * Starts listening for this rank's incoming connections; one listener serves all peers.
     *
     * @param signal called when an accepted connection completes a request on another thread
     * @return the listener
     * @throws NetException when the transport cannot listen
     */
    Listener listen(ProgressSignal signal);

    /**
     * Starts connecting to a peer's listener.
     *
     * @param peerHandle the peer's {@link Listener#handle()}
     * @param signal     called when this connection completes a request on another thread
     * @return the attempt, to be polled
     * @throws NetException when the handle is malformed or the attempt cannot start
     */
    PendingConnect connect(byte[] peerHandle, ProgressSignal signal);

    /**
     * Registers memory for use in requests (NCCL's {@code regMr}).
     *
     * @param segment the memory
     * @return the registration
     */
    default MemoryRegistration register(MemorySegment segment) {
        return () -> segment;
    }

    /**
     * Releases a registration (NCCL's {@code deregMr}).
     *
     * @param registration what {@link #register} returned
     */
    default void deregister(MemoryRegistration registration) {
    }

    /** Closes the transport and everything it still holds. */
    @Override
    void close();
}
