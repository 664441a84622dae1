package io.jccl.metaroce.protocol.conn;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Receiving side of one message: a posted receive (SEND) or a WRITE being assembled. Tracks which chunks are in
 * place so that duplicates are recognised and completion is exact. Reused.
 */
final class InboundMessage {
    long workId;
    MemorySegment buffer;     // posted receive (SEND); null for WRITEs
    long offset;
    long capacity;
    int seq;
    long messageLength = -1;  // learned from the first packet
    int chunks;
    int received;
    long bytes;
    long[] got = new long[1];
    boolean truncated;
    boolean done;
    boolean reported;
    boolean hasImmediate;     // WRITE: its last packet came with an immediate, reported at completion
    int immediate;

    void reset(long workId, MemorySegment buffer, long offset, long capacity, int seq) {
        this.workId = workId;
        this.buffer = buffer;
        this.offset = offset;
        this.capacity = capacity;
        this.seq = seq;
        this.messageLength = -1;
        this.chunks = 0;
        this.received = 0;
        this.bytes = 0;
        this.truncated = false;
        this.done = false;
        this.reported = false;
        this.hasImmediate = false;
        this.immediate = 0;
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
        chunks = (int) Math.max(1, (length + payloadBytes - 1) / payloadBytes);
        int words = (chunks + 63) >>> 6;
        if (got.length < words) {
            got = new long[words];
        } else {
            Arrays.fill(got, 0, words, 0);
        }
    }

    boolean has(int chunk) {
        return (got[chunk >>> 6] >>> (chunk & 63) & 1) != 0;
    }

    /** @return true when this completed the message */
    boolean mark(int chunk, int payload) {
        got[chunk >>> 6] |= 1L << (chunk & 63);
        received++;
        bytes += payload;
        if (received == chunks) {
            done = true;
        }
        return done;
    }
}
