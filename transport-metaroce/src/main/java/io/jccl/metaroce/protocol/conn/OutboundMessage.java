package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.WorkKind;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** A posted WRITE or SEND on the sending side: which chunks were sent, acknowledged, queued again. Reused. */
final class OutboundMessage {
    final int ref;
    long workId;
    WorkKind kind;
    int stream;          // SEND: stream id; WRITE: -1
    int regionKey;       // WRITE: the peer's region key
    long remoteBase;     // WRITE: offset in the region
    MemorySegment local;
    long localOffset;
    long length;
    int seq;             // SEND: message sequence on its stream; WRITE: write id
    int chunks;
    int nextChunk;       // next chunk never sent
    int ackedChunks;
    long[] acked = new long[1];
    long[] queued = new long[1];   // lost and waiting in the retransmission queue
    int epoch;                     // bumped when the receiver was not ready: older packets no longer count
    long pausedUntilNs;
    boolean done;
    boolean reported;
    boolean withImmediate;         // WRITE: its last packet carries the immediate
    int immediate;
    boolean ackLazily;             // its last packet does not ask for an ACK at once (nobody waits for it)

    OutboundMessage(int ref) {
        this.ref = ref;
    }

    void reset(long workId, WorkKind kind, int stream, int regionKey, long remoteBase, MemorySegment local,
               long localOffset, long length, int seq, int payloadBytes) {
        this.workId = workId;
        this.kind = kind;
        this.stream = stream;
        this.regionKey = regionKey;
        this.remoteBase = remoteBase;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.seq = seq;
        this.chunks = (int) Math.max(1, (length + payloadBytes - 1) / payloadBytes);
        int words = (chunks + 63) >>> 6;
        if (acked.length < words) {
            acked = new long[words];
            queued = new long[words];
        } else {
            Arrays.fill(acked, 0, words, 0);
            Arrays.fill(queued, 0, words, 0);
        }
        this.nextChunk = 0;
        this.ackedChunks = 0;
        this.epoch = 0;
        this.pausedUntilNs = 0;
        this.done = false;
        this.reported = false;
        this.withImmediate = false;
        this.immediate = 0;
        this.ackLazily = false;
    }

    static boolean get(long[] bits, int i) {
        return (bits[i >>> 6] >>> (i & 63) & 1) != 0;
    }

    static void set(long[] bits, int i) {
        bits[i >>> 6] |= 1L << (i & 63);
    }

    static void clear(long[] bits, int i) {
        bits[i >>> 6] &= ~(1L << (i & 63));
    }

    /** The receiver was not ready: every chunk must be sent again (from the next epoch) after the pause. */
    void restart(long resumeAtNs) {
        epoch++;
        int words = (chunks + 63) >>> 6;
        Arrays.fill(acked, 0, words, 0);
        Arrays.fill(queued, 0, words, 0);
        ackedChunks = 0;
        nextChunk = 0;
        pausedUntilNs = resumeAtNs;
    }

    long chunkOffset(int chunk, int payloadBytes) {
        return (long) chunk * payloadBytes;
    }

    int chunkLength(int chunk, int payloadBytes) {
        return (int) Math.min(payloadBytes, length - (long) chunk * payloadBytes);
    }
}
