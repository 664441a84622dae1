package io.jccl.metaroce.sim;

import java.util.Arrays;

/**
 * Time windows {@code [from, until)} in ns, in the order they were added: when a route is down, or a link a black
 * hole. Asking allocates nothing.
 */
final class TimeWindows {
    private long[] fromNs = new long[0];
    private long[] untilNs = new long[0];

    /** Adds {@code [fromNs, untilNs)}. */
    void add(long from, long until) {
        int n = fromNs.length;
        fromNs = Arrays.copyOf(fromNs, n + 1);
        untilNs = Arrays.copyOf(untilNs, n + 1);
        fromNs[n] = from;
        untilNs[n] = until;
    }

    /** @return whether a window holds {@code nowNs} */
    boolean contains(long nowNs) {
        long[] from = fromNs;
        for (int i = 0; i < from.length; i++) {
            if (nowNs >= from[i] && nowNs < untilNs[i]) {
                return true;
            }
        }
        return false;
    }
}
