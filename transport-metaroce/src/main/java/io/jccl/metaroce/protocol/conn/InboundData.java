package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.wire.DataFlyweight;
import org.agrona.DirectBuffer;

/**
 * One DATA packet (a WRITE's or a SEND's) arriving for a connection ({@link Connection#onData}): the header's fields,
 * the path it came on, and where its payload lies in the datagram. The receiving side's counterpart of
 * {@link DataPacket}: one per endpoint, filled by it for each packet and read during the call only, so that nothing
 * is allocated per packet and the connection's entry point takes one argument instead of sixteen.
 */
public final class InboundData {
    /** The datagram. */
    DirectBuffer buffer;
    /** A WRITE's packet (else a SEND's). */
    boolean write;
    /** The logical path it came on. */
    int pathIndex;
    /** Its packet sequence number on that path. */
    int psn;
    /** The header's flags ({@code wire.Flags}). */
    int flags;
    /** The send time it carries (echoed in the ACK). */
    long timestampNs;
    /** A WRITE's id, or a SEND's sequence on its stream. */
    int message;
    /** A WRITE's region key, or a SEND's stream. */
    int target;
    /** Where its payload starts in the message. */
    long offset;
    /** The whole message's length. */
    long messageLength;
    /** A WRITE's offset in its region. */
    long base;
    /** Where its payload starts in {@link #buffer}. */
    int payloadOffset;
    /** Its payload's length. */
    int payload;
    /** Whether it arrived ECN-marked. */
    boolean ecnMarked;

    /**
     * Takes the fields of one packet.
     *
     * @param data      the packet, structure checked
     * @param pathIndex the path it came on
     * @param ecnMarked whether it arrived ECN-marked
     * @return this
     */
    public InboundData fill(DataFlyweight data, int pathIndex, boolean ecnMarked) {
        this.buffer = data.buffer();
        this.write = data.isWrite();
        this.pathIndex = pathIndex;
        this.psn = data.psn();
        this.flags = data.flags();
        this.timestampNs = data.timestampNs();
        this.message = data.message();
        this.target = data.target();
        this.offset = data.messageOffset();
        this.messageLength = data.messageLength();
        this.base = data.base();
        this.payloadOffset = data.offset() + DataFlyweight.PAYLOAD_FIELD_OFFSET;
        this.payload = data.payloadLength();
        this.ecnMarked = ecnMarked;
        return this;
    }
}
