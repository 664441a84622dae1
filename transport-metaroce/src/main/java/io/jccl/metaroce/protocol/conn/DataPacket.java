package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.metaroce.protocol.path.SenderPath;

import java.lang.foreign.MemorySegment;

/**
 * One DATA packet a connection asks its endpoint to build ({@link Connection.Context#sendData}): the header's
 * fields and where the payload lies. One per connection, filled just before each call and read during it only, so
 * nothing is allocated per packet.
 */
public final class DataPacket {
    private SenderPath path;
    private int psn;
    private long timestampNs;
    private boolean write;
    private int flags;
    private int message;
    private int target;
    private long offset;
    private long messageLength;
    private long base;
    private MemorySegment source;
    private long sourceOffset;
    private int payloadBytes;
    private int immediate;

    /** Describes chunk {@code chunk} of {@code m} going on {@code path} as {@code psn}. */
    void fill(SenderPath path, int psn, long nowNs, OutboundMessage m, int chunk, int flags, int payloadBytesPerChunk) {
        this.path = path;
        this.psn = psn;
        this.timestampNs = nowNs;
        this.write = m.kind == WorkKind.WRITE;
        this.flags = flags;
        this.message = m.seq;
        this.target = write ? m.regionKey : m.stream;
        this.offset = m.chunkOffset(chunk, payloadBytesPerChunk);
        this.messageLength = m.length;
        this.base = write ? m.remoteBase : 0;
        this.source = m.local;
        this.sourceOffset = m.localOffset + offset;
        this.payloadBytes = m.chunkLength(chunk, payloadBytesPerChunk);
        this.immediate = m.immediate;
    }

    /** @return the path it goes on */
    public SenderPath path() {
        return path;
    }

    /** @return its packet sequence number on that path */
    public int psn() {
        return psn;
    }

    /** @return the send time it carries (echoed in ACKs) */
    public long timestampNs() {
        return timestampNs;
    }

    /** @return a WRITE's packet (else a SEND's) */
    public boolean write() {
        return write;
    }

    /** @return the header's flags ({@code wire.Flags}) */
    public int flags() {
        return flags;
    }

    /** @return a WRITE's id, or a SEND's sequence on its stream */
    public int message() {
        return message;
    }

    /** @return a WRITE's region key, or a SEND's stream */
    public int target() {
        return target;
    }

    /** @return where its payload starts in the message */
    public long offset() {
        return offset;
    }

    /** @return the whole message's length */
    public long messageLength() {
        return messageLength;
    }

    /** @return a WRITE's offset in its region (0 for a SEND) */
    public long base() {
        return base;
    }

    /** @return the memory its payload is read from */
    public MemorySegment source() {
        return source;
    }

    /** @return where its payload starts in {@link #source()} */
    public long sourceOffset() {
        return sourceOffset;
    }

    /** @return its payload's length */
    public int payloadBytes() {
        return payloadBytes;
    }

    /** @return the immediate its last packet carries when {@code IMMEDIATE} is flagged */
    public int immediate() {
        return immediate;
    }
}
