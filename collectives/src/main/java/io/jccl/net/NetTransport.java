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
     * Whether a {@link #connect} to a peer from which this transport already accepted a connection may send over
     * that connection's channel instead of opening one (the tcp transport: one socket carries both directions, so
     * each direction's data carries the other's acknowledgements). A caller that connects both ways between two
     * ranks then lets one side connect first and the other connect only once it accepted that connection. The
     * default is false: connecting order makes no difference.
     *
     * @return whether connecting after accepting saves a channel
     */
    default boolean reusesAcceptedConnections() {
        return false;
    }

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

    /**
     * Allocates memory that this transport's peers can reach directly, for buffers of the communicator's operations
     * (NCCL's {@code ncclMemAlloc} followed by window registration). A send from such memory may skip copies or
     * system calls that ordinary memory needs; any memory still works in every request.
     *
     * <p>The memory is zeroed and valid until {@link #freeMemory} or {@link #close()}; afterwards an access throws
     * {@link IllegalStateException}. The default, for transports without memory of their own, returns null (the
     * communicator then allocates ordinary memory).
     *
     * @param bytes the size, at least 1
     * @return the memory, or null when this transport has no memory of its own
     * @throws NetException when it has, but cannot give that much
     */
    default MemorySegment allocateMemory(long bytes) {
        return null;
    }

    /**
     * Frees memory {@link #allocateMemory} returned.
     *
     * @param segment the segment it returned
     * @return true when it was this transport's and is now freed; false when it is not this transport's
     */
    default boolean freeMemory(MemorySegment segment) {
        return false;
    }

    /**
     * Blocks the calling thread until a peer may have made progress possible on this transport's connections (data
     * or an acknowledgement arrived, ring space freed, a peer closed), {@code timeoutNs} passed, or {@link #wakeUp()}
     * was called; spurious returns are allowed. For transports that progress inside {@link NetRequest#test()}
     * ({@code signalsCompletion = false}): a caller that has polled every pending request without progress may sleep
     * here instead of parking blindly, then polls again. Peer death wakes nobody: callers bound the timeout and poll.
     *
     * <p>Called by one thread at a time, right after it drove the transport's connections; another thread may start
     * driving them while it sleeps (a caller that comes to wait for its operation), so the transport only looks at
     * its connections here, never moves data, and must tolerate their state changing meanwhile: a stale look may
     * only cost a spurious return or a sleep until {@link #wakeUp()} or the timeout. The default returns false at
     * once: the transport cannot wait this way.
     *
     * @param timeoutNs the longest wait
     * @return true when the transport can wait this way (whether it waited or found news at once); false when it
     *         cannot, and the caller must wait on its own
     */
    default boolean awaitProgress(long timeoutNs) {
        return false;
    }

    /**
     * How long a thread that found nothing to do keeps polling, parking briefly between polls, before it sleeps in
     * {@link #awaitProgress}: where a wake-up from the kernel reaches the sleeper late (a socket's readiness on a
     * small, busy host) short waits are better polled, and only long ones slept through. The default is 0: sleep
     * at once.
     *
     * @return nanoseconds, 0 or more
     */
    default long pollBeforeAwaitNs() {
        return 0;
    }

    /**
     * Ends a concurrent {@link #awaitProgress} early, or makes the next one return at once. Cheap, never blocks;
     * callable from any thread (e.g. when an operation is queued or another transport signals).
     */
    default void wakeUp() {
    }

    /**
     * Moves this transport's protocol once on the calling thread, for a transport that has no thread of its own and
     * moves only when its requests, pending connects or listeners are polled (metaroce's invoker threading): a rank
     * that waits outside the transport — in the bootstrap while a communicator is created — polls this to keep
     * answering peers that still wait for it (an acknowledgement to send again, a message sent again). Never
     * blocks; callable from any thread.
     *
     * @return true when polling this way moves the protocol; false (the default) when the transport moves without
     *         callers, and polling it is pointless
     */
    default boolean progress() {
        return false;
    }

    /** Closes the transport and everything it still holds. */
    @Override
    void close();

    /**
     * This rank's box lines, which peers read in place through {@link SendConnection#boxPeer()}: {@link
     * BoxPeer#BOX_BYTES} bytes of memory they map, zeroed at creation, written by this rank only. While a thread of
     * this rank sleeps in {@link #awaitProgress}, a change a peer makes to its own lines (as this transport's
     * connections see them) wakes it.
     *
     * @return the lines, or null where peers cannot read this rank's memory (the default)
     */
    default MemorySegment boxLines() {
        return null;
    }
}
