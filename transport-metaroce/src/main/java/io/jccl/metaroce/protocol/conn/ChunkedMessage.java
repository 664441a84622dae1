package io.jccl.metaroce.protocol.conn;

import java.util.Arrays;

/**
 * What a message being sent ({@link OutboundMessage}) and one being received ({@link InboundMessage}) both keep: its
 * work, its chunks (payload-sized pieces, one bit each in a bitmap of longs) and its completion. Reused; the
 * bitmap helpers are static and tiny, so they inline into the per-packet code.
 */
abstract class ChunkedMessage {
    long workId;
    int seq;             // SEND: message sequence on its stream; WRITE: write id
    int chunks;
    boolean done;
    boolean reported;
    int immediate;

    /** Starts another message: not done, not reported, no immediate yet. */
    final void start(long workId, int seq, int chunks) {
        this.workId = workId;
        this.seq = seq;
        this.chunks = chunks;
        done = false;
        reported = false;
        immediate = 0;
    }

    /** @return the chunks of a message of {@code length} bytes, at least one (an empty message has one) */
    static int chunkCount(long length, int payloadBytes) {
        return (int) Math.max(1, (length + payloadBytes - 1) / payloadBytes);
    }

    /** @return {@code bits} with its first {@code chunks} bits clear, or a new bitmap when it is too short */
    static long[] cleared(long[] bits, int chunks) {
        int words = (chunks + 63) >>> 6;
        if (bits.length < words) {
            return new long[words];
        }
        Arrays.fill(bits, 0, words, 0);
        return bits;
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
}
