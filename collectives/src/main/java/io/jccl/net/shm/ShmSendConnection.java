package io.jccl.net.shm;

import io.jccl.net.BoxPeer;
import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvSink;
import io.jccl.net.RequestFifo;
import io.jccl.net.SendConnection;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The sending end of a connection: it writes {@link Records} into the ring of its slot in the receiver's segment.
 *
 * <p>Each send takes one path, chosen when its first record is written:
 * <ul>
 *   <li>up to the eager limit: one INLINE record, payload copied into the ring (one line, a fast box, up to 48
 *       bytes); the send completes when the record is published;</li>
 *   <li>native memory in this rank's registered heap: a REG descriptor; the receiver copies from its mapping of
 *       this rank's segment;</li>
 *   <li>other native memory, on a connection that uses cross-memory attach: a CMA descriptor; the receiver reads
 *       the message with {@code process_vm_readv}. Descriptor sends complete when the receiver acknowledges them,
 *       after its copy;</li>
 *   <li>everything else (heap arrays, or no cross-memory attach): START and MORE records, copied through the ring
 *       in chunks as it drains (each but the last a multiple of {@link #CHUNK_ALIGN_BYTES} long, so that a
 *       receive sink never sees an element split); the send completes when its last chunk is published.</li>
 * </ul>
 * Sends are written in posting order, each as far as the ring's free space allows; the receiver's consumed position
 * (head) is read only when the cached one leaves too little room. One line beyond every record is kept free and
 * zeroed before the record's stamp is published (see {@link Records}).
 *
 * <p>Closing publishes how many records were written ({@code S_SENDER_CLOSED}), after which the receiver fails
 * later receives with {@link NetException.Reason#PEER_CLOSED} once it took those records; it then waits while the
 * receiver is copying from this process's memory, so no byte of a send that did not complete is read after
 * {@code close()} returns.
 */
final class ShmSendConnection extends ShmConnection implements SendConnection {
    private static final VarHandle LONG = Layouts.LONG;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
    /** Smallest chunk written when the ring has no room for a whole one. */
    private static final long MIN_CHUNK = 4096;
    /**
     * Ring chunks but a message's last are multiples of this (a cache line; a multiple of
     * {@link RecvSink#ALIGN_BYTES}, so a receive sink never sees an element split).
     */
    static final long CHUNK_ALIGN_BYTES = 64;
    /** Longest a close waits for the receiver to finish a copy from this process's memory. */
    private static final long CLOSE_WAIT_NS = 10_000_000_000L;

    private final int peerRank;
    /** The peer's box lines in its mapped segment: sliced once, since a sleeper sums them each time it comes to sleep. */
    private final MemorySegment peerBoxLines;
    private final int mode;
    private final long eagerBytes;
    private final long chunkBytes;
    /** {@code JCCL_SHM_LARGE=cma}: every message beyond the eager limit is read in one copy, asked for or not. */
    private final boolean alwaysSingleCopy;
    private final long singleCopyMaxOpBytes;
    /** Addresses of this rank's registered heap: sends from there are REG descriptors. */
    private final long heapBase;
    private final long heapEnd;
    /** Sends not yet all in the ring, in posting order: the base class's queue. */
    private final RequestFifo<ShmRequest> unwritten = queue;
    private final RequestFifo<ShmRequest> awaitingAck = new RequestFifo<>(MAX_INFLIGHT_REQUESTS);
    /** Ring position (absolute, in bytes) of the next record. */
    private long tail;
    /** The receiver's head as last read. */
    private long cachedHead;
    private long nextRecord = 1;
    private long descriptorsPosted;
    private long acksSeen;

    ShmSendConnection(ShmTransport transport, String description, MemorySegment slot, Peer peer, int peerRank,
                      int mode, ShmOptions options, long heapBase, long heapBytes) {
        super(transport, description, slot, peer);
        this.peerRank = peerRank;
        this.peerBoxLines = peer.segment.memory.asSlice(Layout.H_BOX, BoxPeer.BOX_BYTES);
        this.mode = mode;
        this.eagerBytes = options.eagerBytes();
        this.chunkBytes = options.chunkBytes();
        this.alwaysSingleCopy = options.large() == ShmOptions.Large.CMA;
        this.singleCopyMaxOpBytes = mode == Layout.MODE_CMA ? options.singleCopyMaxBytes() : 0;
        this.heapBase = heapBase;
        this.heapEnd = heapBase + heapBytes;
    }

    @Override
    public NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
        return post(drivenByCaller(take(buffer, offset, sizeBytes, tag)), false);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: a message beyond the eager limit in native memory goes as a cross-memory descriptor where this
     * connection may use them ({@link Layout#MODE_CMA}); from the registered heap it goes as a heap descriptor in any
     * case.
     */
    @Override
    public NetRequest isendSingleCopy(MemorySegment buffer, long offset, long sizeBytes, long tag,
                                      MemoryRegistration mr) {
        return post(drivenByCaller(take(buffer, offset, sizeBytes, tag)), true);
    }

    /** @return {@code JCCL_SHM_SINGLE_COPY_BYTES} where this connection may read by cross-memory attach, else 0 */
    @Override
    public long singleCopyMaxOpBytes() {
        return singleCopyMaxOpBytes;
    }

    private NetRequest post(ShmRequest request, boolean singleCopy) {
        if (request == null) {
            return null;
        }
        request.singleCopy = singleCopy;
        unwritten.add(request);
        if (unwritten.size() == 1) {
            progress();
        }
        return request;
    }

    @Override
    public BoxPeer boxPeer() {
        MemorySegment peerSegment = peer.segment.memory;
        return new BoxPeer() {
            @Override
            public MemorySegment lines() {
                return peerBoxLines;
            }

            @Override
            public void wakeIfAsleep() {
                Doorbell.ringIfAsleep(peerSegment, scratch);   // ringing uses no scratch memory: any thread may
            }
        };
    }

    /** @return the peer's box lines as mapped here (the transport's sleepers look at them) */
    MemorySegment peerBoxLines() {
        return peerBoxLines;
    }

    /** @return the connection's large-message path: {@link Layout#MODE_CMA} or {@link Layout#MODE_RING} */
    int mode() {
        return mode;
    }

    @Override
    void step() {
        boolean progressed = false;
        if (!awaitingAck.isEmpty()) {
            long acks = (long) LONG.getAcquire(control, Layout.S_ACKS);
            if (acks != acksSeen) {
                if (acks < acksSeen || acks > descriptorsPosted) {
                    breakConnection(NetException.Reason.PROTOCOL_ERROR, description + ": " + peerName()
                            + " acknowledged " + acks + " messages read from this rank's memory; " + acksSeen
                            + " were acknowledged before and " + descriptorsPosted + " posted");
                    return;
                }
                while (acksSeen < acks) {
                    ShmRequest done = awaitingAck.pop();
                    acksSeen++;
                    done.complete(done.sizeBytes());
                }
                progressed = true;
            }
        }
        if ((long) LONG.getAcquire(control, Layout.S_RECEIVER_CLOSED) != 0) {
            breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: " + peerName()
                    + " closed its receiving end");
            return;
        }
        long firstRecord = nextRecord;
        while (!unwritten.isEmpty()) {
            ShmRequest request = unwritten.first();
            if (!write(request)) {
                break;
            }
            unwritten.pop();
            if (request.kind == Records.CMA || request.kind == Records.REG) {
                awaitingAck.add(request);
            } else {
                request.complete(request.sizeBytes());
            }
        }
        if (isBroken()) {
            return;
        }
        if (nextRecord != firstRecord) {
            Doorbell.ringIfAsleep(peer.segment.memory, scratch);
            progressed = true;
        }
        if (!progressed && hasPending()) {
            checkPeerAlive();
        }
    }

    /** @return true when the request is entirely in the ring; false when the ring has no room (or broke) */
    private boolean write(ShmRequest r) {
        if (!r.started) {
            r.kind = chooseKind(r);
        }
        switch (r.kind) {
            case Records.INLINE -> {
                long bytes = Records.lines(Records.INLINE_HEADER + r.sizeBytes());
                if (!reserve(bytes)) {
                    return false;
                }
                long pos = tail & ringMask;
                ring.set(WORD, pos + Records.TAG, r.tag());
                if (r.sizeBytes() > 0) {
                    MemorySegment.copy(r.segment(), r.offset(), ring, pos + Records.INLINE_HEADER, r.sizeBytes());
                }
                publish(pos, bytes, Records.INLINE, r.sizeBytes());
                r.started = true;
                r.movedBytes = r.sizeBytes();
                return true;
            }
            case Records.CMA, Records.REG -> {
                if (!reserve(Records.DESCRIPTOR_BYTES)) {
                    return false;
                }
                long pos = tail & ringMask;
                long address = r.segment().address() + r.offset();
                ring.set(WORD, pos + Records.TAG, r.tag());
                ring.set(WORD, pos + Records.TOTAL, r.sizeBytes());
                ring.set(WORD, pos + Records.ADDRESS, r.kind == Records.REG ? address - heapBase : address);
                publish(pos, Records.DESCRIPTOR_BYTES, r.kind, 0);
                r.started = true;
                r.movedBytes = r.sizeBytes();
                r.ackIndex = ++descriptorsPosted;
                return true;
            }
            default -> {
                return writeChunks(r);
            }
        }
    }

    /** Writes START and MORE records while the ring has room. @return true once the last chunk is written */
    private boolean writeChunks(ShmRequest r) {
        while (!r.started || r.movedBytes < r.sizeBytes()) {
            long header = r.started ? Records.MORE_HEADER : Records.START_HEADER;
            long remaining = r.sizeBytes() - r.movedBytes;
            long chunk = Math.min(remaining, chunkBytes);
            while (!reserve(Records.lines(header + chunk))) {
                if (chunk <= MIN_CHUNK || isBroken()) {
                    return false;
                }
                // Halved to a multiple of CHUNK_ALIGN_BYTES: every chunk but a message's last is one.
                chunk = Math.max(MIN_CHUNK, (chunk >>> 1) & -CHUNK_ALIGN_BYTES);
            }
            long pos = tail & ringMask;
            if (r.started) {
                ring.set(WORD, pos + Records.TAG, 0L);
            } else {
                ring.set(WORD, pos + Records.TAG, r.tag());
                ring.set(WORD, pos + Records.TOTAL, r.sizeBytes());
                ring.set(WORD, pos + Records.ADDRESS, 0L);
            }
            MemorySegment.copy(r.segment(), r.offset() + r.movedBytes, ring, pos + header, chunk);
            publish(pos, Records.lines(header + chunk), r.started ? Records.MORE : Records.START, chunk);
            r.started = true;
            r.movedBytes += chunk;
        }
        return true;
    }

    private int chooseKind(ShmRequest r) {
        if (r.sizeBytes() <= eagerBytes) {
            return Records.INLINE;
        }
        if (r.segment().isNative()) {
            long address = r.segment().address() + r.offset();
            if (address >= heapBase && address + r.sizeBytes() <= heapEnd) {
                return Records.REG;
            }
            if (mode == Layout.MODE_CMA && (r.singleCopy || alwaysSingleCopy)) {
                return Records.CMA;
            }
        }
        return Records.START;
    }

    /**
     * Makes room for a record of {@code bytes} at the tail, and one more line, writing a PAD record first when the
     * record would not fit before the ring's end.
     *
     * @return whether there is room now
     */
    private boolean reserve(long bytes) {
        long pos = tail & ringMask;
        long pad = pos + bytes > ringBytes ? ringBytes - pos : 0;
        long need = pad + bytes + Layout.LINE;
        if (tail + need - cachedHead > ringBytes) {
            long head = (long) LONG.getAcquire(control, Layout.S_HEAD);
            if (head < cachedHead || head > tail || (head & (Layout.LINE - 1)) != 0) {
                breakConnection(NetException.Reason.PROTOCOL_ERROR, description + ": " + peerName()
                        + " published ring position " + head + " (this side wrote up to " + tail + ", and it had"
                        + " reached " + cachedHead + ")");
                return false;
            }
            cachedHead = head;
            if (tail + need - cachedHead > ringBytes) {
                return false;
            }
        }
        if (pad > 0) {
            publish(pos, pad, Records.PAD, 0);
        }
        return true;
    }

    /** Zeroes the word where the next record will start, then publishes this record's stamp. */
    private void publish(long pos, long bytes, int kind, long length) {
        ring.set(WORD, (pos + bytes) & ringMask, 0L);
        LONG.setRelease(ring, pos, Records.stamp(nextRecord, kind, length));
        nextRecord++;
        tail += bytes;
    }

    @Override
    public boolean hasPending() {
        return !unwritten.isEmpty() || !awaitingAck.isEmpty();
    }

    @Override
    protected void failPending(NetException.Reason reason, String message, Throwable cause) {
        unwritten.failAll(reason, message, cause);
        awaitingAck.failAll(reason, message, cause);
    }

    @Override
    boolean hasNews() {
        if (isClosed() || isBroken() || !hasPending()) {
            return false;
        }
        if (!awaitingAck.isEmpty() && (long) LONG.getAcquire(control, Layout.S_ACKS) != acksSeen) {
            return true;
        }
        if (!unwritten.isEmpty() && (long) LONG.getAcquire(control, Layout.S_HEAD) != cachedHead) {
            return true;
        }
        return (long) LONG.getAcquire(control, Layout.S_RECEIVER_CLOSED) != 0;
    }

    @Override
    void closeShared() {
        LONG.setRelease(control, Layout.S_SENDER_CLOSED, nextRecord);
        VarHandle.fullFence();
        long deadline = System.nanoTime() + CLOSE_WAIT_NS;
        for (int spins = 0; (long) LONG.getVolatile(control, Layout.S_COPYING) != 0; spins++) {
            if (spins % 1024 == 1023 && (!peer.isAlive(scratch) || System.nanoTime() - deadline > 0)) {
                break;
            }
            if (spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        Doorbell.ringIfAsleep(peer.segment.memory, scratch);
    }

    @Override
    String peerName() {
        return "rank " + peerRank;
    }
}
