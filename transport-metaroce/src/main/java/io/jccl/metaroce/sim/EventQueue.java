package io.jccl.metaroce.sim;

import java.util.Arrays;

/**
 * A binary min-heap of events ordered by virtual time, then by insertion sequence, so events at the same
 * nanosecond run in the order they were scheduled (stable, hence deterministic). An event is a time and a
 * 64-bit payload whose meaning belongs to the caller; both live in primitive arrays that only grow, so pushing and
 * popping allocate nothing once the queue has reached its working size.
 */
public final class EventQueue {
    // Heap slot i: keys[2i] = time, keys[2i + 1] = insertion sequence (side by side: one cache line per comparison),
    // payload[i] = the event.
    private long[] keys;
    private long[] payload;
    private int size;
    private long nextSequence;

    /**
     * @param initialCapacity events the queue holds before it first grows (at least 1)
     */
    public EventQueue(int initialCapacity) {
        int n = Math.max(1, initialCapacity);
        keys = new long[2 * n];
        payload = new long[n];
    }

    /** @return events waiting */
    public int size() {
        return size;
    }

    /** @return true when no event waits */
    public boolean isEmpty() {
        return size == 0;
    }

    /** @return events pushed so far (the next insertion sequence number) */
    public long pushed() {
        return nextSequence;
    }

    /**
     * Schedules an event.
     *
     * @param atNs        when it happens (virtual time)
     * @param eventPayload what it is (the caller's encoding)
     */
    public void push(long atNs, long eventPayload) {
        if (size == payload.length) {
            int n = payload.length * 2;
            keys = Arrays.copyOf(keys, 2 * n);
            payload = Arrays.copyOf(payload, n);
        }
        final long[] k = keys;
        final long seq = nextSequence++;
        int i = size++;
        // Sift up: move parents down until the slot for the new event is found.
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            long pt = k[2 * parent];
            if (pt < atNs || (pt == atNs && k[2 * parent + 1] < seq)) {
                break;
            }
            place(i, pt, k[2 * parent + 1], payload[parent]);
            i = parent;
        }
        place(i, atNs, seq, eventPayload);
    }

    /** Puts an event in heap slot {@code i}: its time and sequence (the key) and its payload. */
    private void place(int i, long timeNs, long sequence, long eventPayload) {
        keys[2 * i] = timeNs;
        keys[2 * i + 1] = sequence;
        payload[i] = eventPayload;
    }

    /** @return the time of the earliest event; undefined when empty */
    public long peekTimeNs() {
        return keys[0];
    }

    /** @return the payload of the earliest event; undefined when empty */
    public long peekPayload() {
        return payload[0];
    }

    /** @return the insertion sequence of the earliest event; undefined when empty */
    public long peekSequence() {
        return keys[1];
    }

    /** Removes the earliest event (read it first with {@link #peekTimeNs} and {@link #peekPayload}). */
    public void pop() {
        if (size == 0) {
            throw new IllegalStateException("pop from an empty event queue");
        }
        int last = --size;
        if (last == 0) {
            return;
        }
        final long[] k = keys;
        long t = k[2 * last];
        long s = k[2 * last + 1];
        long p = payload[last];
        int i = 0;
        int half = last >>> 1;
        // Sift down the former last element from the root.
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            long ct = k[2 * child];
            long cs = k[2 * child + 1];
            if (right < last) {
                long rt = k[2 * right];
                if (rt < ct || (rt == ct && k[2 * right + 1] < cs)) {
                    child = right;
                    ct = rt;
                    cs = k[2 * right + 1];
                }
            }
            if (t < ct || (t == ct && s < cs)) {
                break;
            }
            place(i, ct, cs, payload[child]);
            i = child;
        }
        place(i, t, s, p);
    }

    /** Removes every event (the sequence keeps counting). */
    public void clear() {
        size = 0;
    }
}
