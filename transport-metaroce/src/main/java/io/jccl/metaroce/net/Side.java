package io.jccl.metaroce.net;

import io.jccl.metaroce.offload.MetaRoceDataPath;
import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.MemorySegment;

/**
 * One MetaRoCE endpoint of a transport and its data path (the UDP driver, or an offload provider's), with the book
 * of who posted each piece of work. A transport has two: one that only accepts (its listener's) and one that only
 * initiates, so two ranks connecting to each other at the same moment never make crossing handshakes. Driving
 * thread only.
 */
final class Side {
    final MetaRoceDataPath driver;
    final Endpoint endpoint;
    private final Long2ObjectHashMap<WorkOwner> owners = new Long2ObjectHashMap<>();
    /** Who waits for each immediate (a receive, by its region's key) a peer's WRITE may bring. */
    private final org.agrona.collections.Int2ObjectHashMap<WorkOwner> immediateOwners =
            new org.agrona.collections.Int2ObjectHashMap<>();
    /** The peer rank of each connection, once a channel named it (-1: not known). */
    final org.agrona.collections.Int2IntHashMap peerRanks = new org.agrona.collections.Int2IntHashMap(-1);
    private final CompletionHandler dispatch = this::onCompletion;

    Side(MetaRoceDataPath driver) {
        this.driver = driver;
        this.endpoint = driver.endpoint();
    }

    /** @return the work id, or {@link Verbs#QUEUE_FULL} */
    long postSend(WorkOwner owner, int connectionId, int stream, MemorySegment local, long offset, long length) {
        return own(owner, endpoint.postSend(connectionId, stream, local, offset, length));
    }

    /**
     * A send nobody waits for: its receiver acknowledges it lazily ({@link Endpoint#postSend(int, int,
     * MemorySegment, long, long, boolean)}).
     *
     * @return the work id, or {@link Verbs#QUEUE_FULL}
     */
    long postSendAckedLazily(WorkOwner owner, int connectionId, int stream, MemorySegment local, long offset,
                             long length) {
        return own(owner, endpoint.postSend(connectionId, stream, local, offset, length, true));
    }

    /** @return the work id, or {@link Verbs#QUEUE_FULL} */
    long postRecv(WorkOwner owner, int connectionId, int stream, MemorySegment local, long offset, long capacity) {
        return own(owner, endpoint.postRecv(connectionId, stream, local, offset, capacity));
    }

    /** @return the work id, or {@link Verbs#QUEUE_FULL} */
    long postWrite(WorkOwner owner, int connectionId, int regionKey, long remoteOffset, MemorySegment local,
                   long offset, long length) {
        return own(owner, endpoint.postWrite(connectionId, regionKey, remoteOffset, local, offset, length));
    }

    /** @return the work id, or {@link Verbs#QUEUE_FULL} */
    long postWriteImmediate(WorkOwner owner, int connectionId, int regionKey, long remoteOffset, MemorySegment local,
                            long offset, long length, int immediate) {
        return own(owner, endpoint.postWriteImmediate(connectionId, regionKey, remoteOffset, local, offset, length,
                immediate));
    }

    /** Hands the completion of a peer's WRITE carrying {@code immediate} to {@code owner} (once). */
    void expectImmediate(int immediate, WorkOwner owner) {
        immediateOwners.put(immediate, owner);
    }

    /** No WRITE with {@code immediate} is awaited any more; one that still comes goes to nobody. */
    void forgetImmediate(int immediate) {
        immediateOwners.remove(immediate);
    }

    private long own(WorkOwner owner, long workId) {
        if (workId != Verbs.QUEUE_FULL) {
            owners.put(workId, owner);
        }
        return workId;
    }

    /**
     * Forgets who posted a piece of work: its completion, when it comes, goes to nobody. For work whose outcome
     * became known otherwise (a receive's CTS is proven delivered by the sender's FIN).
     */
    void disown(long workId) {
        owners.remove(workId);
    }

    /** Withdraws a WRITE that is not complete yet; its completion goes to nobody. */
    void cancelWrite(int connectionId, long workId) {
        owners.remove(workId);
        endpoint.cancelWrite(connectionId, workId);
    }

    /** Hands completed work to its owners. */
    int pollCompletions() {
        return endpoint.pollCompletions(dispatch);
    }

    private void onCompletion(int connectionId, long workId, WorkKind kind, CompletionStatus status, long bytes) {
        WorkOwner owner = kind == WorkKind.IMMEDIATE ? immediateOwners.remove((int) workId) : owners.remove(workId);
        if (owner != null) {
            owner.onWork(kind, status, bytes);
        }
    }
}
