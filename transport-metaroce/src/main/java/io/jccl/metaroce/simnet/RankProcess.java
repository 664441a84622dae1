package io.jccl.metaroce.simnet;

/**
 * What a simulated rank runs above its transport: stepped on the simulating thread after every interaction with
 * either of its endpoints (a datagram, a timer, a wake-up), and at its own deadlines.
 */
public interface RankProcess {
    /**
     * Makes whatever progress is possible now without blocking.
     *
     * @param nowNs virtual time
     * @return how much work was done (0: nothing changed, so nothing new needs transmitting)
     */
    int step(long nowNs);

    /** @return when the rank next needs a step with nothing arriving (a timeout); {@link Long#MAX_VALUE} for never */
    long nextDeadlineNs();
}
