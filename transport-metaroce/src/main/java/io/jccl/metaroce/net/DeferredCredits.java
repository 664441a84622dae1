package io.jccl.metaroce.net;

import java.util.Arrays;

/**
 * The receive channels whose freed FIN boxes are due to be reported to their senders, held until the driving thread
 * finds a duty cycle with nothing else to do (driving thread only). A credit report is not urgent while the sender
 * still holds credits, and sent from the cycle that reposts the box it lands on the critical path of small messages:
 * an 8 B all-reduce's every 16th call took 5 to 11 us longer, a CREDIT datagram out (and in at the peer) before the
 * next FIN (docs/performance.md). A channel is in at most once, so the array grows to the number of receive channels
 * at most (allocation during warm-up only).
 */
final class DeferredCredits {
    private MetaRoceRecvConnection[] channels = new MetaRoceRecvConnection[4];
    private int count;

    /** Adds a channel that is not in yet. */
    void defer(MetaRoceRecvConnection channel) {
        if (count == channels.length) {
            channels = Arrays.copyOf(channels, 2 * count);
        }
        channels[count++] = channel;
    }

    /** @return whether any channel has a report waiting */
    boolean any() {
        return count > 0;
    }

    /** Sends every waiting report (a channel that reported at once since, or closed, sends nothing). @return how many */
    int flush() {
        int n = count;
        for (int i = n - 1; i >= 0; i--) {   // downwards: a report that finds no free box defers itself again, past i
            MetaRoceRecvConnection channel = channels[i];
            channels[i] = channels[--count];
            channels[count] = null;
            channel.sendDeferredCredits();
        }
        return n;
    }
}
