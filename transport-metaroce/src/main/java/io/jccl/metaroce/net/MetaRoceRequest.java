package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.metaroce.protocol.region.RegionSink;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvSink;

import java.lang.foreign.MemorySegment;

/**
 * One of a connection's fixed request slots, reused for every send or receive posted on it: nothing is allocated
 * per request. The posting thread fills it and hands it to the driving thread; the driving thread reports the
 * outcome through {@link #state}, which the posting thread reads in {@link #test()}.
 */
final class MetaRoceRequest implements NetRequest, WorkOwner {
    static final int FREE = 0;
    static final int POSTED = 1;
    static final int DONE = 2;
    static final int FAILED = 3;

    private final Channel channel;
    /** Room for this request's CTS (a receive) or FIN (a send); stays valid while the SEND carrying it is out. */
    final MemorySegment control;

    /** Written by whichever thread owns the slot at the time; the write of DONE/FAILED publishes the outcome. */
    volatile int state = FREE;

    /** What a receive's region hands each placed payload to: {@link #sink}, made once per slot. */
    final RegionSink regionSink = (from, fromOffset, regionOffset, bytes) ->
            this.sink.accept(from, fromOffset, regionOffset, bytes);

    // Filled by the posting thread before the hand-over.
    MemorySegment buffer;
    /** A receive's sink, which takes the message's bytes instead of {@link #buffer}; null otherwise. */
    RecvSink sink;
    long offset;
    long sizeBytes;
    long tag;

    // Driving thread only.
    long result;
    NetException failure;
    int regionKey = -1;
    int outstandingWork;
    /** A send's FIN status once known (its WRITE done, or a mismatch found); -1 before. */
    int finStatus = -1;
    /** The message's number on its channel (the n-th send pairs with the n-th receive), from 0, wrapping. */
    int message;
    /** A receive sent its CTS; a send waits for its CTS ({@link #rtsQueued}: and announced itself by an RTS). */
    boolean ctsSent;
    boolean waitingForCts;
    boolean rtsQueued;
    /** Send: when it began to wait for its CTS with nothing else holding it ({@link #NOT_WAITING}: not yet). */
    long ctsWaitSinceNs = NOT_WAITING;
    /** See {@link #ctsWaitSinceNs}. */
    static final long NOT_WAITING = Long.MIN_VALUE;
    /**
     * A send whose receive its WRITE with immediate completed before the receiving end closed: it completes when
     * the WRITE does, whatever happens to the channel meanwhile.
     */
    boolean deliveredAwaitingAck;
    /** A send's FIN goes eagerly (without a CTS), holding a credit. */
    boolean eagerFin;
    /** A receive's CTS while it is unacknowledged (its work id); -1 otherwise. */
    long ctsWorkId = -1;
    /** A send's WRITE while it is incomplete (its work id); -1 otherwise. */
    long writeWorkId = -1;
    boolean reported;

    MetaRoceRequest(Channel channel, MemorySegment control) {
        this.channel = channel;
        this.control = control;
    }

    Channel channel() {
        return channel;
    }

    @Override
    public long test() {
        int s = state;
        if (s == FREE) {
            throw new IllegalStateException("this request was already reported complete; its slot is reused");
        }
        if (s == POSTED) {
            channel.transport().driveFromCaller();
            s = state;
            if (s == POSTED) {
                return NOT_DONE;
            }
        }
        long bytes = result;
        NetException failed = failure;
        failure = null;
        buffer = null;
        sink = null;
        state = FREE;
        if (s == FAILED) {
            throw failed;
        }
        return bytes;
    }

    /** Driving thread: clears what the slot's previous request left, as it takes a new one. */
    void resetForPost() {
        reported = false;
        failure = null;
        outstandingWork = 0;
        regionKey = -1;
        finStatus = -1;
        ctsWorkId = -1;
        writeWorkId = -1;
        ctsSent = false;
        waitingForCts = false;
        rtsQueued = false;
        ctsWaitSinceNs = NOT_WAITING;
        eagerFin = false;
        deliveredAwaitingAck = false;
    }

    /** Driving thread: reports success to the poster (once). */
    void succeed(long bytes) {
        if (!reported) {
            result = bytes;
            report(DONE);
        }
    }

    /** Driving thread: reports a failure to the poster (once). */
    void fail(NetException e) {
        if (!reported) {
            failure = e;
            report(FAILED);
        }
    }

    /** Publishes the outcome ({@link #DONE} or {@link #FAILED}) whose result or failure is set, and wakes the poster. */
    private void report(int outcome) {
        reported = true;
        state = outcome;
        channel.signal();
    }

    @Override
    public void onWork(WorkKind kind, CompletionStatus status, long bytes) {
        channel.onRequestWork(this, kind, status, bytes);
    }
}
