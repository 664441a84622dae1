package io.jccl.net.shm;

import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvConnection;
import io.jccl.net.RecvSink;
import io.jccl.net.RequestFifo;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * The receiving end of a connection: it reads {@link Records} from the ring of its slot in this rank's segment, in
 * order, and matches each message to the oldest posted receive.
 *
 * <p>A message whose tag differs from the receive's, or that is longer than its capacity, fails that receive
 * ({@link NetException.Reason#TAG_MISMATCH} or {@link NetException.Reason#TRUNCATED}) before anything is written; its
 * chunks are skipped (a descriptor is acknowledged without reading) and the next receive matches the next message. A
 * message with no receive posted stays in the ring, so the ring is the only buffering and its sender stops when it is
 * full.
 *
 * <p>Every field read from the ring is checked before it is used: a record number other than the next one, an
 * unknown kind, a record running past the ring's end, a length beyond the message, a new message inside another, a
 * heap offset outside the sender's heap, or an address the kernel refuses break the connection with
 * {@link NetException.Reason#PROTOCOL_ERROR}; nothing a peer writes can move this rank's reads or writes outside the
 * ring, the sender's heap or the posted receive.
 *
 * <p>Descriptors are copied straight from the sender's memory into the receive: from this process's mapping of the
 * sender's registered heap (REG), or with {@code process_vm_readv} (CMA; into a bounce buffer first for a heap
 * receive). Before each piece the receiver raises {@code S_COPYING} and reads the sender's close mark after a full
 * fence; a closing sender raises its mark, fences and waits while {@code S_COPYING} is up: so either the receiver sees
 * the close and reads nothing (the receive fails with {@link NetException.Reason#PEER_CLOSED}) or the sender waits
 * for the piece. After a CMA piece the sender's process is looked up once more: a pid that died meanwhile may have
 * been reused, so the data read cannot be trusted and the receive fails.
 */
final class ShmRecvConnection extends ShmConnection implements RecvConnection {
    private static final VarHandle LONG = Layouts.LONG;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
    /** Records taken per step at most, so that one test() stays short. */
    private static final int RECORDS_PER_STEP = 64;
    /** Bytes of a descriptor's message copied per step at most. */
    static final long COPY_SLICE_BYTES = 16L << 20;
    /** Bounce buffer for cross-memory reads into heap receives. */
    private static final long BOUNCE_BYTES = 256 << 10;

    private final int peerRank;
    private final int mode;
    /** The posted receives, in posting order: the base class's queue. */
    private final RequestFifo<ShmRequest> posted = queue;
    /** Ring position (absolute) of the next record. */
    private long head;
    private long publishedHead;
    private long nextRecord = 1;
    private long acks;
    private long publishedAcks;
    /** The receive taking a pipelined message's chunks, or null. */
    private ShmRequest inMessage;
    /** Bytes of a rejected pipelined message still to skip. */
    private long discardBytes;
    /** The receive whose descriptor is being copied, or null. */
    private ShmRequest copying;
    private MemorySegment bounce;

    ShmRecvConnection(ShmTransport transport, String description, MemorySegment slot, Peer peer, int peerRank,
                      int mode) {
        super(transport, description, slot, peer);
        this.peerRank = peerRank;
        this.mode = mode;
    }

    @Override
    public NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                            MemoryRegistration mr) {
        if (buffer != null && buffer.isReadOnly()) {
            throw new IllegalArgumentException("receive buffer is read-only");
        }
        return post(drivenByCaller(take(buffer, offset, capacityBytes, expectedTag)));
    }

    /** Queues a taken receive (null: the in-flight limit was reached) and, when it is the only one, looks for it. */
    private NetRequest post(ShmRequest request) {
        if (request == null) {
            return null;
        }
        posted.add(request);
        if (posted.size() == 1) {
            progress();
        }
        return request;
    }

    @Override
    public boolean acceptsSinks() {
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The sink reads pipelined chunks and inline payloads in the ring, registered-heap messages in this process's
     * mapping of the sender's heap, and cross-memory messages in a bounce buffer they are read into.
     */
    @Override
    public NetRequest irecv(RecvSink sink, long capacityBytes, long expectedTag) {
        Objects.requireNonNull(sink, "sink");
        if (capacityBytes < 0 || capacityBytes > ShmTransport.MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("receive capacity of " + capacityBytes + " bytes is outside 0 to "
                    + ShmTransport.MAX_MESSAGE_BYTES);
        }
        ShmRequest request = drivenByCaller(takeForSink(capacityBytes, expectedTag));
        if (request != null) {
            request.sink = sink;
        }
        return post(request);
    }

    /** @return the connection's large-message path: {@link Layout#MODE_CMA} or {@link Layout#MODE_RING} */
    int mode() {
        return mode;
    }

    @Override
    void step() {
        boolean progressed = false;
        for (int records = 0; records < RECORDS_PER_STEP && !isBroken(); records++) {
            if (copying != null) {
                if (!copyPiece()) {
                    break;
                }
                progressed = true;
                continue;
            }
            long pos = head & ringMask;
            long stamp = (long) LONG.getAcquire(ring, pos);
            if (stamp == 0) {
                break;
            }
            if (Records.number(stamp) != (int) nextRecord) {
                protocolError("record number " + Integer.toUnsignedString(Records.number(stamp)) + " at ring offset "
                        + pos + " where record " + (nextRecord & 0xFFFF_FFFFL) + " was due");
                break;
            }
            if (!take(pos, stamp)) {
                break;
            }
            progressed = true;
        }
        if (head != publishedHead) {
            LONG.setRelease(control, Layout.S_HEAD, head);
            publishedHead = head;
        }
        if (acks != publishedAcks) {
            LONG.setRelease(control, Layout.S_ACKS, acks);
            publishedAcks = acks;
        }
        if (progressed) {
            Doorbell.ringIfAsleep(peer.segment.memory, scratch);
        } else if (!isBroken() && !posted.isEmpty()) {
            idle();
        }
    }

    /** Nothing new arrived while receives wait: has the sender closed, or died? */
    private void idle() {
        long closedAt = (long) LONG.getAcquire(control, Layout.S_SENDER_CLOSED);
        if (closedAt != 0 && nextRecord >= closedAt) {
            breakConnection(NetException.Reason.PEER_CLOSED, peerName() + " closed " + description
                    + (inMessage != null ? " in the middle of a message" : ""));
            return;
        }
        if (closedAt == 0) {
            checkPeerAlive();
        }
    }

    /**
     * Takes the record at {@code pos}, whose stamp was read.
     *
     * @return false when it must wait (no receive posted) or the connection broke
     */
    private boolean take(long pos, long stamp) {
        int kind = Records.kind(stamp);
        long length = Records.length(stamp);
        long room = ringBytes - pos;
        switch (kind) {
            case Records.PAD -> {
                advance(room);
                return true;
            }
            case Records.INLINE -> {
                long bytes = Records.lines(Records.INLINE_HEADER + length);
                if (bytes > room) {
                    return protocolError("an INLINE record of " + length + " bytes at ring offset " + pos
                            + " runs past the ring's end");
                }
                if (!startsMessage(kind) || posted.isEmpty()) {
                    return false;
                }
                ShmRequest r = posted.first();
                long tag = ring.get(WORD, pos + Records.TAG);
                if (accepts(r, tag, length)) {
                    if (length > 0) {
                        place(r, ring, pos + Records.INLINE_HEADER, 0, length);
                    }
                    posted.pop();
                    r.complete(length);
                }
                advance(bytes);
                return true;
            }
            case Records.START -> {
                long bytes = Records.lines(Records.START_HEADER + length);
                long total = ring.get(WORD, pos + Records.TOTAL);
                if (bytes > room || total < length || total > ShmTransport.MAX_MESSAGE_BYTES) {
                    return protocolError("a START record of " + length + " bytes for a message of " + total
                            + " bytes at ring offset " + pos);
                }
                if (!startsMessage(kind) || posted.isEmpty()) {
                    return false;
                }
                ShmRequest r = posted.first();
                long tag = ring.get(WORD, pos + Records.TAG);
                if (accepts(r, tag, total)) {
                    r.messageBytes = total;
                    if (!deliverChunk(r, pos + Records.START_HEADER, length)) {
                        return false;
                    }
                } else {
                    discardBytes = total - length;
                }
                advance(bytes);
                return true;
            }
            case Records.MORE -> {
                long bytes = Records.lines(Records.MORE_HEADER + length);
                if (bytes > room) {
                    return protocolError("a MORE record of " + length + " bytes at ring offset " + pos
                            + " runs past the ring's end");
                }
                if (discardBytes > 0) {
                    if (length > discardBytes) {
                        return protocolError("more payload than its message header announced");
                    }
                    discardBytes -= length;
                } else if (inMessage != null) {
                    if (length > inMessage.messageBytes - inMessage.movedBytes) {
                        return protocolError("more payload than its message header announced");
                    }
                    if (!deliverChunk(inMessage, pos + Records.MORE_HEADER, length)) {
                        return false;
                    }
                } else {
                    return protocolError("a continuation record outside any message");
                }
                advance(bytes);
                return true;
            }
            case Records.CMA, Records.REG -> {
                if (Records.DESCRIPTOR_BYTES > room || length != 0) {
                    return protocolError("a malformed " + Records.kindName(kind) + " record at ring offset " + pos);
                }
                long total = ring.get(WORD, pos + Records.TOTAL);
                long source = ring.get(WORD, pos + Records.ADDRESS);
                if (total < 0 || total > ShmTransport.MAX_MESSAGE_BYTES) {
                    return protocolError("a message of " + total + " bytes");
                }
                if (kind == Records.REG && (source < 0 || source > peer.segment.heapBytes - total)) {
                    return protocolError("a message of " + total + " bytes at offset " + source + " of its registered"
                            + " heap of " + peer.segment.heapBytes + " bytes");
                }
                if (kind == Records.CMA && (mode != Layout.MODE_CMA || source + total < source)) {
                    return protocolError(mode != Layout.MODE_CMA ? "a cross-memory descriptor on a connection that"
                            + " does not use cross-memory attach" : "a message at address " + source
                            + " that wraps around");
                }
                if (!startsMessage(kind) || posted.isEmpty()) {
                    return false;
                }
                ShmRequest r = posted.first();
                long tag = ring.get(WORD, pos + Records.TAG);
                advance(Records.DESCRIPTOR_BYTES);
                if (accepts(r, tag, total)) {
                    r.kind = kind;
                    r.source = source;
                    r.messageBytes = total;
                    copying = r;
                } else {
                    acks++;
                }
                return true;
            }
            default -> {
                return protocolError("a record of unknown kind " + kind + " at ring offset " + pos);
            }
        }
    }

    /** @return whether a record of this kind may start here: not inside another message */
    private boolean startsMessage(int kind) {
        if (inMessage != null || discardBytes > 0) {
            protocolError("a new " + Records.kindName(kind) + " message before the previous one ended");
            return false;
        }
        return true;
    }

    /** Matches a message against a receive; a mismatch fails the receive (nothing written). */
    private boolean accepts(ShmRequest r, long tag, long messageBytes) {
        if (tag != r.tag()) {
            posted.pop();
            r.fail(NetException.tagMismatch(r.tag(), tag));
            return false;
        }
        if (messageBytes > r.sizeBytes()) {
            posted.pop();
            r.fail(new NetException(NetException.Reason.TRUNCATED, "message of " + messageBytes
                    + " bytes does not fit the receive's capacity of " + r.sizeBytes() + " bytes on " + description));
            return false;
        }
        return true;
    }

    /** @return false when the chunk broke the protocol */
    private boolean deliverChunk(ShmRequest r, long at, long length) {
        if (r.sink != null && length % ShmSendConnection.CHUNK_ALIGN_BYTES != 0
                && r.movedBytes + length != r.messageBytes) {
            return protocolError("a chunk of " + length + " bytes in the middle of a message (only a message's last"
                    + " chunk may be other than a multiple of " + ShmSendConnection.CHUNK_ALIGN_BYTES + " bytes)");
        }
        if (length > 0) {
            place(r, ring, at, r.movedBytes, length);
            r.movedBytes += length;
        }
        if (r.movedBytes == r.messageBytes) {
            posted.pop();
            inMessage = null;
            r.complete(r.messageBytes);
        } else {
            inMessage = r;
        }
        return true;
    }

    /** Hands bytes of a message to the receive: its sink, or a copy into its memory. */
    private static void place(ShmRequest r, MemorySegment from, long fromOffset, long messageOffset, long bytes) {
        if (r.sink != null) {
            r.sink.accept(from, fromOffset, messageOffset, bytes);
        } else {
            MemorySegment.copy(from, fromOffset, r.segment(), r.offset() + messageOffset, bytes);
        }
    }

    private void advance(long bytes) {
        head += bytes;
        nextRecord++;
    }

    /** Copies the next piece of the descriptor being read. @return false when the connection broke */
    private boolean copyPiece() {
        ShmRequest r = copying;
        long piece = Math.min(r.messageBytes - r.movedBytes, COPY_SLICE_BYTES);
        LONG.setVolatile(control, Layout.S_COPYING, 1L);
        try {
            if ((long) LONG.getVolatile(control, Layout.S_SENDER_CLOSED) != 0) {
                breakConnection(NetException.Reason.PEER_CLOSED, peerName() + " closed " + description
                        + " before the message's data was read");
                return false;
            }
            if (piece > 0) {
                if (r.kind == Records.REG) {
                    place(r, peer.segment.memory, peer.segment.heapOffset + r.source + r.movedBytes, r.movedBytes,
                            piece);
                } else if (!readCrossMemory(r, piece)) {
                    return false;
                }
            }
        } finally {
            LONG.setRelease(control, Layout.S_COPYING, 0L);
        }
        if (r.kind == Records.CMA && !peer.isAlive(scratch)) {
            breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: " + peerName() + " (pid "
                    + peer.pid + ") died while its message was read");
            return false;
        }
        r.movedBytes += piece;
        if (r.movedBytes == r.messageBytes) {
            copying = null;
            posted.pop();
            acks++;
            r.complete(r.messageBytes);
        }
        return true;
    }

    /** Reads {@code piece} bytes of a CMA message with {@code process_vm_readv}. @return false when it broke */
    private boolean readCrossMemory(ShmRequest r, long piece) {
        long done = 0;
        while (done < piece) {
            long remote = r.source + r.movedBytes + done;
            long n;
            if (r.sink == null && r.segment().isNative()) {
                n = readv(r.segment().address() + r.offset() + r.movedBytes + done, remote, piece - done);
            } else {
                if (bounce == null) {
                    bounce = transport.bounceBuffer(BOUNCE_BYTES);
                }
                // A sink takes whole bounce buffers (a short read is completed first), so that its pieces keep
                // RecvSink.ALIGN_BYTES (and the cache lines of ShmSendConnection.CHUNK_ALIGN_BYTES).
                long want = Math.min(piece - done, BOUNCE_BYTES);
                n = readv(bounce.address(), remote, want);
                while (r.sink != null && n > 0 && n < want) {
                    long more = readv(bounce.address() + n, remote + n, want - n);
                    if (more <= 0) {
                        n = more;
                        break;
                    }
                    n += more;
                }
                if (n > 0) {
                    place(r, bounce, 0, r.movedBytes + done, n);
                }
            }
            if (n <= 0) {
                int errno = n < 0 ? readvErrno() : LinuxCalls.EFAULT;
                if (errno == LinuxCalls.EINTR || errno == LinuxCalls.EAGAIN) {
                    continue;
                }
                if (errno == LinuxCalls.ESRCH) {
                    breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: " + peerName()
                            + " (pid " + peer.pid + ") is gone");
                } else if (errno == LinuxCalls.EFAULT) {
                    protocolError("a message at address 0x" + Long.toHexString(remote) + " that its process does"
                            + " not have");
                } else {
                    breakConnection(NetException.Reason.IO_ERROR, description + ": process_vm_readv from "
                            + peerName() + " (pid " + peer.pid + ") failed: " + LinuxCalls.errnoName(errno));
                }
                return false;
            }
            done += n;
        }
        return true;
    }

    private long readv(long localAddress, long remoteAddress, long bytes) {
        scratch.localIov.set(WORD, 0, localAddress);
        scratch.localIov.set(WORD, 8, bytes);
        scratch.remoteIov.set(WORD, 0, remoteAddress);
        scratch.remoteIov.set(WORD, 8, bytes);
        return LinuxCalls.processVmReadvFast((int) peer.pid, scratch.localIov.address(), 1,
                scratch.remoteIov.address(), 1);
    }

    /** Repeats a failed read (its iovecs are still in the scratch memory) to learn its {@code errno}. */
    private int readvErrno() {
        long n = LinuxCalls.processVmReadv(scratch.callState, (int) peer.pid, scratch.localIov.address(), 1,
                scratch.remoteIov.address(), 1);
        return n < 0 ? scratch.errno() : LinuxCalls.EAGAIN;
    }

    private boolean protocolError(String what) {
        breakConnection(NetException.Reason.PROTOCOL_ERROR, description + ": " + peerName() + " sent " + what);
        return false;
    }

    @Override
    protected void pendingFailed() {
        inMessage = null;
        copying = null;
        discardBytes = 0;
    }

    @Override
    boolean hasNews() {
        if (isClosed() || isBroken() || posted.isEmpty()) {
            return false;
        }
        return copying != null || (long) LONG.getAcquire(ring, head & ringMask) != 0
                || (long) LONG.getAcquire(control, Layout.S_SENDER_CLOSED) != 0;
    }

    @Override
    void closeShared() {
        LONG.setRelease(control, Layout.S_RECEIVER_CLOSED, 1L);
        Doorbell.ringIfAsleep(peer.segment.memory, scratch);
    }

    @Override
    String peerName() {
        return "rank " + peerRank;
    }
}
