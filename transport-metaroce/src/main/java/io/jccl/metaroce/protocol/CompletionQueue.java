package io.jccl.metaroce.protocol;

/**
 * Completions not yet polled: a FIFO ring in primitive arrays (kind and status as ordinals), so queueing one
 * allocates nothing. It grows, by doubling, only when more completions pile up than ever before. Not thread-safe: the
 * thread that drives the engine adds and polls.
 */
public final class CompletionQueue {
    private static final WorkKind[] KINDS = WorkKind.values();
    private static final CompletionStatus[] STATUSES = CompletionStatus.values();
    private static final int FIRST_CAPACITY = 64;

    private int[] connection = new int[FIRST_CAPACITY];
    private long[] work = new long[FIRST_CAPACITY];
    private byte[] kind = new byte[FIRST_CAPACITY];
    private byte[] status = new byte[FIRST_CAPACITY];
    private long[] bytes = new long[FIRST_CAPACITY];
    private int head;
    private int count;

    /** An empty queue. */
    public CompletionQueue() {
    }

    /** @return whether no completion is waiting */
    public boolean isEmpty() {
        return count == 0;
    }

    /**
     * Appends one completion.
     *
     * @param connectionId the local connection id
     * @param workId       the id {@code post*} returned
     * @param workKind     what was posted
     * @param workStatus   how it ended
     * @param byteCount    bytes written, sent or received
     */
    public void add(int connectionId, long workId, WorkKind workKind, CompletionStatus workStatus, long byteCount) {
        if (count == connection.length) {
            grow();
        }
        int at = (head + count) & (connection.length - 1);
        connection[at] = connectionId;
        work[at] = workId;
        kind[at] = (byte) workKind.ordinal();
        status[at] = (byte) workStatus.ordinal();
        bytes[at] = byteCount;
        count++;
    }

    /**
     * Hands the oldest completion to {@code handler} (taken off the queue before the call).
     *
     * @throws IllegalStateException when the queue is empty
     */
    public void pollOne(CompletionHandler handler) {
        if (count == 0) {
            throw new IllegalStateException("no completion waiting");
        }
        int i = head;
        head = (head + 1) & (connection.length - 1);
        count--;
        handler.onCompletion(connection[i], work[i], KINDS[kind[i]], STATUSES[status[i]], bytes[i]);
    }

    /**
     * Hands every completion to {@code handler}, oldest first, those it adds meanwhile included.
     *
     * @return how many
     */
    public int poll(CompletionHandler handler) {
        int n = 0;
        while (count > 0) {
            pollOne(handler);
            n++;
        }
        return n;
    }

    /** Doubles the ring, the oldest completion moved to index 0. */
    private void grow() {
        int n = connection.length * 2;
        connection = RingArrays.unwrap(connection, head, count, new int[n]);
        work = RingArrays.unwrap(work, head, count, new long[n]);
        kind = RingArrays.unwrap(kind, head, count, new byte[n]);
        status = RingArrays.unwrap(status, head, count, new byte[n]);
        bytes = RingArrays.unwrap(bytes, head, count, new long[n]);
        head = 0;
    }
}
