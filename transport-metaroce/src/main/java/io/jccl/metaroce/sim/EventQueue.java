package io.jccl.metaroce.sim;

import java.util.Arrays;

/**
 * A binary min-heap of events ordered by virtual time, then by insertion sequence, so events at the same
 * nanosecond run in the order they were scheduled (stable, hence deterministic). An event is a time and a
 * 64-bit payload whose meaning belongs to the caller; both live in primitive arrays that only grow, so pushing and
 * popping allocate nothing once the queue has reached its working size.
 */
public final class EventQueue {
    private long[] timeNs;
    private long[] sequence;
    private long[] payload;
    private int size;
    private long nextSequence;

    /**
     * @param initialCapacity events the queue holds before it first grows (at least 1)
     */
    public EventQueue(int initialCapacity) {
        int n = Math.max(1, initialCapacity);
        timeNs = new long[n];
        sequence = new long[n];
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
        if (size == timeNs.length) {
            int n = timeNs.length * 2;
            timeNs = Arrays.copyOf(timeNs, n);
            sequence = Arrays.copyOf(sequence, n);
            payload = Arrays.copyOf(payload, n);
        }
        long seq = nextSequence++;
        int i = size++;
        // Sift up: move parents down until the slot for the new event is found.
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            long pt = timeNs[parent];
            if (pt < atNs || (pt == atNs && sequence[parent] < seq)) {
                break;
            }
            timeNs[i] = pt;
            sequence[i] = sequence[parent];
            payload[i] = payload[parent];
            i = parent;
        }
        timeNs[i] = atNs;
        sequence[i] = seq;
        payload[i] = eventPayload;
    }

    /** @return the time of the earliest event; undefined when empty */
    public long peekTimeNs() {
        return timeNs[0];
    }

    /** @return the payload of the earliest event; undefined when empty */
    public long peekPayload() {
        return payload[0];
    }

    /** @return the insertion sequence of the earliest event; undefined when empty */
    public long peekSequence() {
        return sequence[0];
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
        long t = timeNs[last];
        long s = sequence[last];
        long p = payload[last];
        int i = 0;
        int half = last >>> 1;
        // Sift down the former last element from the root.
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            long ct = timeNs[child];
            long cs = sequence[child];
            if (right < last) {
                long rt = timeNs[right];
                if (rt < ct || (rt == ct && sequence[right] < cs)) {
                    child = right;
                    ct = rt;
                    cs = sequence[right];
                }
            }
            if (t < ct || (t == ct && s < cs)) {
                break;
            }
            timeNs[i] = ct;
            sequence[i] = cs;
            payload[i] = payload[child];
            i = child;
        }
        timeNs[i] = t;
        sequence[i] = s;
        payload[i] = p;
    }

    /** Removes every event (the sequence keeps counting). */
    public void clear() {
        size = 0;
    }
}
