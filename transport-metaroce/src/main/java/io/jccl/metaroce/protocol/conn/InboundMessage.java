package io.jccl.metaroce.protocol.conn;

import java.lang.foreign.MemorySegment;

/**
 * Receiving side of one message: a posted receive (SEND) or a WRITE being assembled. Tracks which chunks are in
 * place so that duplicates are recognised and completion is exact. Reused.
 */
final class InboundMessage extends ChunkedMessage {
    MemorySegment buffer;     // posted receive (SEND); null for WRITEs
    long offset;
    long capacity;
    long messageLength = -1;  // learned from the first packet
    int received;
    long bytes;
    long[] got = new long[1];
    boolean truncated;
    boolean hasImmediate;     // WRITE: its last packet came with an immediate, reported at completion

    void reset(long workId, MemorySegment buffer, long offset, long capacity, int seq) {
        start(workId, seq, 0);
        this.buffer = buffer;
        this.offset = offset;
        this.capacity = capacity;
        this.messageLength = -1;
        this.received = 0;
        this.bytes = 0;
        this.truncated = false;
        this.hasImmediate = false;
    }

    /**
     * First packet of the message: size the chunk map — unless the message is longer than the posted receive
     * (truncated): nothing of it is placed, so it needs no map, and its length is only the sender's claim.
     */
    void learn(long length, int payloadBytes) {
        messageLength = length;
        truncated = buffer != null && length > capacity;
        if (truncated) {
            chunks = 1;
            return;
        }
        chunks = chunkCount(length, payloadBytes);
        got = cleared(got, chunks);
    }

    boolean has(int chunk) {
        return get(got, chunk);
    }

    /** @return true when this completed the message */
    boolean mark(int chunk, int payload) {
        set(got, chunk);
        received++;
        bytes += payload;
        if (received == chunks) {
            done = true;
        }
        return done;
    }
}
