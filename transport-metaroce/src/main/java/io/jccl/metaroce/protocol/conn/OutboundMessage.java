package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.WorkKind;

import java.lang.foreign.MemorySegment;

/** A posted WRITE or SEND on the sending side: which chunks were sent, acknowledged, queued again. Reused. */
final class OutboundMessage extends ChunkedMessage {
    final int ref;
    WorkKind kind;
    int stream;          // SEND: stream id; WRITE: -1
    int regionKey;       // WRITE: the peer's region key
    long remoteBase;     // WRITE: offset in the region
    MemorySegment local;
    long localOffset;
    long length;
    int nextChunk;       // next chunk never sent
    int ackedChunks;
    long[] acked = new long[1];
    long[] queued = new long[1];   // lost and waiting in the retransmission queue
    int epoch;                     // bumped when the receiver was not ready: older packets no longer count
    long pausedUntilNs;
    boolean withImmediate;         // WRITE: its last packet carries the immediate
    boolean ackLazily;             // its last packet does not ask for an ACK at once (nobody waits for it)

    OutboundMessage(int ref) {
        this.ref = ref;
    }

    void reset(long workId, WorkKind kind, int stream, int regionKey, long remoteBase, MemorySegment local,
               long localOffset, long length, int seq, int payloadBytes) {
        start(workId, seq, chunkCount(length, payloadBytes));
        this.kind = kind;
        this.stream = stream;
        this.regionKey = regionKey;
        this.remoteBase = remoteBase;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        this.acked = cleared(acked, chunks);
        this.queued = cleared(queued, chunks);
        this.nextChunk = 0;
        this.ackedChunks = 0;
        this.epoch = 0;
        this.pausedUntilNs = 0;
        this.withImmediate = false;
        this.ackLazily = false;
    }

    /** The receiver was not ready: every chunk must be sent again (from the next epoch) after the pause. */
    void restart(long resumeAtNs) {
        epoch++;
        acked = cleared(acked, chunks);
        queued = cleared(queued, chunks);
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
