package io.jccl.metaroce.protocol;

import java.lang.foreign.MemorySegment;

/**
 * The verbs-style surface of a transport endpoint (register memory, connect, post work, poll completions), on
 * top of the {@link Engine} contract its driver uses. The MetaRoCE {@code Endpoint} implements it; so does the
 * simulator's RoCEv2 go-back-N baseline, for comparison.
 */
public interface Verbs extends Engine {
    /** Returned by {@code post*} when the connection has {@link EndpointConfig#maxPendingWork()} items in flight. */
    long QUEUE_FULL = -1;

    /**
     * Registers memory that peers may write into (and that the core may read from for sends).
     *
     * @param memory         the memory (native or heap)
     * @param remoteWritable whether peers' WRITEs may land in it
     * @return the region key peers use in WRITEs
     */
    int registerRegion(MemorySegment memory, boolean remoteWritable);

    /**
     * Stops accepting WRITEs into a region; later WRITEs naming its key are dropped.
     *
     * @param key what {@link #registerRegion} returned
     */
    void deregisterRegion(int key);

    /**
     * Opens a connection to a peer endpoint; it is usable once {@link #isEstablished} says so (work may be posted
     * earlier and starts then).
     *
     * @param nowNs the driver's clock
     * @param peer  the peer, as the driver identifies it (see {@link Engine#onDatagram})
     * @return the local connection id
     */
    int connect(long nowNs, long peer);

    /**
     * @param peer a peer
     * @return the local id of the connection with that peer (opened by either side), or -1
     */
    int connectionTo(long peer);

    /**
     * @param connectionId a local connection id
     * @return true once the handshake completed and until the connection closes
     */
    boolean isEstablished(int connectionId);

    /**
     * Writes {@code length} bytes of {@code local} into the peer's region at {@code remoteOffset}.
     *
     * @return a work id, or {@link #QUEUE_FULL}
     */
    long postWrite(int connectionId, int regionKey, long remoteOffset, MemorySegment local, long offset, long length);

    /**
     * Writes like {@link #postWrite}, and when every byte is in place the peer's endpoint reports a completion of kind
     * {@link WorkKind#IMMEDIATE} carrying {@code immediate} (RDMA's write-with-immediate). This side's completion
     * comes, as for every WRITE, when all of it is acknowledged.
     *
     * @param immediate 32 bits for the peer's application
     * @return a work id, or {@link #QUEUE_FULL}
     * @throws UnsupportedOperationException where the transport has no such WRITE
     */
    default long postWriteImmediate(int connectionId, int regionKey, long remoteOffset, MemorySegment local,
                                    long offset, long length, int immediate) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no WRITE with immediate");
    }

    /**
     * Sends a message on a stream; it lands in the peer's receive posted for the same stream and position.
     *
     * @return a work id, or {@link #QUEUE_FULL}
     */
    long postSend(int connectionId, int stream, MemorySegment local, long offset, long length);

    /**
     * Posts a receive buffer for the next message of a stream.
     *
     * @return a work id, or {@link #QUEUE_FULL}
     */
    long postRecv(int connectionId, int stream, MemorySegment local, long offset, long capacity);

    /**
     * Hands completed work to {@code handler}, per stream in posting order.
     *
     * @return how many completions were handed over
     */
    int pollCompletions(CompletionHandler handler);

    /**
     * Closes a connection: pending work completes with {@link CompletionStatus#CONNECTION_CLOSED} and the peer
     * is told.
     *
     * @param nowNs        the driver's clock
     * @param connectionId the connection
     */
    void close(long nowNs, int connectionId);

    /** @return this endpoint's counters */
    Counters counters();
}
