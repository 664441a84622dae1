package io.jccl.metaroce.protocol;

import java.lang.reflect.Array;

/**
 * Growing the primitive arrays of a FIFO ring (a ring of parallel arrays, one per field, indexed alike): each array's
 * live entries are copied into a larger array, oldest first, so that the ring starts again at index 0.
 */
public final class RingArrays {
    private RingArrays() {
    }

    /**
     * Copies a ring's live entries into a larger array of the same type, oldest first: the entries from {@code head}
     * to the end of {@code from}, then those that wrapped to its start.
     *
     * @param from  the ring's array (an array of any primitive or reference type)
     * @param head  where the oldest entry lies
     * @param count how many entries are live
     * @param to    the new array, at least {@code count} long, of the same type
     * @param <A>   the array type
     * @return {@code to}, whose entries 0 to {@code count - 1} are the ring's, oldest first
     */
    public static <A> A unwrap(A from, int head, int count, A to) {
        int first = Math.min(count, Array.getLength(from) - head);
        System.arraycopy(from, head, to, 0, first);
        System.arraycopy(from, 0, to, first, count - first);
        return to;
    }
}
