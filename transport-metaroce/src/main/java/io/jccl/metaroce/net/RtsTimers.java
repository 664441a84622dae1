package io.jccl.metaroce.net;

import java.util.Arrays;

/**
 * The send channels whose oldest send waits for its CTS, each with when it may ask for it by an RTS
 * ({@link MetaRoceSendConnection#RTS_DELAY_NS}); looked at by every duty cycle (driving thread only). A channel is
 * in at most once, so the array grows to the number of send channels at most (allocation during warm-up only).
 */
final class RtsTimers {
    private MetaRoceSendConnection[] channels = new MetaRoceSendConnection[4];
    private long[] dueNs = new long[4];
    private int count;

    /** Adds a channel that is not in yet. */
    void arm(MetaRoceSendConnection channel, long atNs) {
        if (count == channels.length) {
            channels = Arrays.copyOf(channels, 2 * count);
            dueNs = Arrays.copyOf(dueNs, 2 * count);
        }
        channels[count] = channel;
        dueNs[count++] = atNs;
    }

    /** @return whether any channel waits */
    boolean armed() {
        return count > 0;
    }

    /** @return the earliest due time, {@link Long#MAX_VALUE} when none waits */
    long earliestDueNs() {
        long earliest = Long.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            earliest = Math.min(earliest, dueNs[i]);
        }
        return earliest;
    }

    /** Fires the due ones (each leaves first; one still waiting arms again). @return how many fired */
    int poll(long nowNs) {
        int fired = 0;
        for (int i = count - 1; i >= 0; i--) {   // downwards: a channel that arms again is appended, past i
            if (nowNs - dueNs[i] >= 0) {
                MetaRoceSendConnection channel = channels[i];
                channels[i] = channels[--count];
                dueNs[i] = dueNs[count];
                channels[count] = null;
                channel.onRtsTimer();
                fired++;
            }
        }
        return fired;
    }
}
