package io.jccl.metaroce.fabric;

import java.nio.ByteBuffer;

/**
 * A rate-limited queue ({@link RateLimit}): a ring of bytes and a ring of slots, drained by a token bucket kept as a
 * virtual clock (the time by which everything sent so far has left at the rate; it may lag the real clock by at most
 * one bucket, {@link #BUCKET_NS}). The rings start small and double when a datagram does not fit, up to what the
 * queue limit needs, so a relay with many flows does not reserve the whole limit for each; once grown there is no
 * allocation per datagram. Used only on the relay's thread.
 */
final class PacedQueue {
    /** Offer outcomes. */
    static final int DROPPED = 0;
    static final int QUEUED = 1;
    static final int QUEUED_MARKED = 2;
    /** IP TOS ECN codepoints. */
    static final int ECT0 = 0x02;
    static final int CE = 0x03;
    /** The bucket's depth in time: how much sending an idle queue may do at once. */
    static final long BUCKET_NS = 200_000;
    private static final int MAX_DATAGRAM = 65536;

    private final long bytesPerSecond;
    private final int limitBytes;
    private final int ecnThresholdBytes;
    private final int maxDataBytes;
    private final int maxSlots;
    private byte[] data;
    private int[] offsets;
    private int[] lengths;
    private byte[] tos;
    private int head;
    private int count;
    private int writeEnd;
    private long queuedBytes;
    private long virtualNs = Long.MIN_VALUE / 2;

    PacedQueue(RateLimit limit) {
        this.bytesPerSecond = limit.bytesPerSecond();
        this.limitBytes = limit.queueLimitBytes();
        this.ecnThresholdBytes = limit.ecnThresholdBytes();
        this.maxDataBytes = limitBytes + MAX_DATAGRAM + 1;
        this.maxSlots = Math.clamp(limitBytes / 32 + 1, 16, 1 << 16);
        this.data = new byte[Math.min(maxDataBytes, 4 * MAX_DATAGRAM)];
        this.offsets = new int[16];
        this.lengths = new int[16];
        this.tos = new byte[16];
    }

    /** @return the bytes the ring holds now (it grows on demand) */
    int capacityBytes() {
        return data.length;
    }

    /**
     * Enqueues {@code src[0, length)} at the tail, or drops it.
     *
     * @return {@link #DROPPED}, {@link #QUEUED} or {@link #QUEUED_MARKED}
     */
    int offer(ByteBuffer src, int length) {
        if (count > 0 && queuedBytes + length > limitBytes) {
            return DROPPED;
        }
        if (count == offsets.length && !grow(data.length, 2 * offsets.length)) {
            return DROPPED;
        }
        int at = place(length);
        if (at < 0 && grow(2 * data.length, offsets.length)) {
            at = place(length);
        }
        if (at < 0) {
            return DROPPED;
        }
        boolean mark = queuedBytes > ecnThresholdBytes;
        int slot = (head + count) % offsets.length;
        src.get(0, data, at, length);
        offsets[slot] = at;
        lengths[slot] = length;
        tos[slot] = (byte) (mark ? CE : ECT0);
        writeEnd = at + length;
        queuedBytes += length;
        count++;
        return mark ? QUEUED_MARKED : QUEUED;
    }

    /** Moves the queue, in order, to the start of rings of (up to) these sizes; false when already at the most. */
    private boolean grow(int dataBytes, int slots) {
        int newDataBytes = Math.min(dataBytes, maxDataBytes);
        int newSlots = Math.min(slots, maxSlots);
        if (newDataBytes == data.length && newSlots == offsets.length) {
            return false;
        }
        byte[] newData = new byte[newDataBytes];
        int[] newOffsets = new int[newSlots];
        int[] newLengths = new int[newSlots];
        byte[] newTos = new byte[newSlots];
        int at = 0;
        for (int i = 0; i < count; i++) {
            int slot = (head + i) % offsets.length;
            System.arraycopy(data, offsets[slot], newData, at, lengths[slot]);
            newOffsets[i] = at;
            newLengths[i] = lengths[slot];
            newTos[i] = tos[slot];
            at += lengths[slot];
        }
        data = newData;
        offsets = newOffsets;
        lengths = newLengths;
        tos = newTos;
        head = 0;
        writeEnd = at;
        return true;
    }

    /** @return where a datagram of this length fits contiguously, or -1 */
    private int place(int length) {
        if (count == 0) {
            return 0;
        }
        int start = offsets[head];
        if (writeEnd >= start) {   // not wrapped: the bytes are [start, writeEnd)
            if (data.length - writeEnd >= length) {
                return writeEnd;
            }
            return length < start ? 0 : -1;
        }
        return writeEnd + length < start ? writeEnd : -1;   // wrapped: [start, end) and [0, writeEnd)
    }

    /** @return true when the head may leave at {@code nowNs} */
    boolean ready(long nowNs) {
        return count > 0 && virtualNs <= nowNs;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** @return the IP TOS byte the head leaves with */
    int headTos() {
        return tos[head];
    }

    /**
     * Moves the head into {@code dst[0, length)} (cleared first, limit set to the length) and charges the bucket.
     *
     * @return its length
     */
    int poll(ByteBuffer dst, long nowNs) {
        int length = lengths[head];
        dst.clear();
        dst.put(data, offsets[head], length).flip();
        head = (head + 1) % offsets.length;
        count--;
        queuedBytes -= length;
        if (count == 0) {
            writeEnd = 0;
        }
        virtualNs = Math.max(virtualNs, nowNs - BUCKET_NS) + length * 1_000_000_000L / bytesPerSecond;
        return length;
    }
}
