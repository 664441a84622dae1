package io.jccl.metaroce.sim;

import io.jccl.config.Arguments;

/**
 * The sending rate of one connection under DCQCN's reaction point (see {@link DcqcnConfig}), as a state machine with
 * injected time. It starts at the line rate and stays there, with no timers, until the first CNP. A CNP makes the
 * target rate the current one, cuts the current rate by alpha/2 and raises alpha; without CNPs alpha decays each alpha
 * period. Increase events come from a timer and a byte counter; the first {@code fastRecoverySteps} of each kind
 * halve the distance to the target (fast recovery), then the target grows by the additive step (while either count is
 * below the steps) or by the hyper step times the events past them; the rate never exceeds the line rate, and once
 * back at it the connection is unlimited again.
 */
public final class DcqcnRate {
    private final DcqcnConfig config;
    private final double lineRateBps;
    private double rateBps;
    private double targetBps;
    private double alpha = 1;
    private boolean limited;
    private boolean cnpInAlphaPeriod;
    private long nextAlphaNs = Long.MAX_VALUE;
    private long nextIncreaseNs = Long.MAX_VALUE;
    private long bytesSinceIncrease;
    private int timerEvents;
    private int byteEvents;
    private long cuts;

    /**
     * @param config                DCQCN's settings
     * @param lineRateBitsPerSecond the NIC's rate: where a connection starts and the most it gets back to
     */
    public DcqcnRate(DcqcnConfig config, long lineRateBitsPerSecond) {
        this.config = java.util.Objects.requireNonNull(config, "config");
        Arguments.atLeast("lineRateBitsPerSecond", lineRateBitsPerSecond, 1);
        this.lineRateBps = lineRateBitsPerSecond;
        this.rateBps = lineRateBps;
        this.targetBps = lineRateBps;
    }

    /** @return the current rate in bits per second */
    public double rateBitsPerSecond() {
        return rateBps;
    }

    /** @return whether the rate is below the line rate (the connection is paced by its own rate) */
    public boolean limited() {
        return limited;
    }

    /** @return the estimate of the share of marked packets */
    public double alpha() {
        return alpha;
    }

    /** @return CNPs that cut the rate */
    public long cuts() {
        return cuts;
    }

    /** A CNP arrived: cut the rate. */
    public void onCnp(long nowNs) {
        targetBps = rateBps;
        rateBps = Math.max(config.minRateBitsPerSecond(), rateBps * (1 - alpha / 2));
        alpha = (1 - config.gain()) * alpha + config.gain();
        cnpInAlphaPeriod = true;
        timerEvents = 0;
        byteEvents = 0;
        bytesSinceIncrease = 0;
        cuts++;
        if (!limited) {
            limited = true;
            nextAlphaNs = nowNs + config.alphaPeriodNs();
        }
        nextIncreaseNs = nowNs + config.increasePeriodNs();
    }

    /** {@code bytes} left on the wire: counts toward a byte-counter increase. */
    public void onSent(long bytes) {
        if (!limited) {
            return;
        }
        bytesSinceIncrease += bytes;
        if (bytesSinceIncrease >= config.increaseBytes()) {
            bytesSinceIncrease = 0;
            byteEvents++;
            increase();
        }
    }

    /** @return when {@link #onTimer} is next due (Long.MAX_VALUE: not while unlimited) */
    public long nextTimerNs() {
        return limited ? Math.min(nextAlphaNs, nextIncreaseNs) : Long.MAX_VALUE;
    }

    /** Runs the alpha and increase timers that are due at {@code nowNs}. */
    public void onTimer(long nowNs) {
        while (limited && nextAlphaNs <= nowNs) {
            if (!cnpInAlphaPeriod) {
                alpha *= 1 - config.gain();
            }
            cnpInAlphaPeriod = false;
            nextAlphaNs += config.alphaPeriodNs();
        }
        while (limited && nextIncreaseNs <= nowNs) {
            nextIncreaseNs += config.increasePeriodNs();
            timerEvents++;
            increase();
        }
    }

    private void increase() {
        int f = config.fastRecoverySteps();
        if (Math.max(timerEvents, byteEvents) > f) {
            if (Math.min(timerEvents, byteEvents) > f) {
                int past = Math.min(timerEvents, byteEvents) - f;
                targetBps += past * (double) config.hyperIncreaseBitsPerSecond();
            } else {
                targetBps += config.additiveIncreaseBitsPerSecond();
            }
        }
        targetBps = Math.min(targetBps, lineRateBps);
        rateBps = (rateBps + targetBps) / 2;
        if (lineRateBps - rateBps < lineRateBps * 1e-6) {
            rateBps = lineRateBps;
            targetBps = lineRateBps;
            limited = false;
            nextAlphaNs = Long.MAX_VALUE;
            nextIncreaseNs = Long.MAX_VALUE;
            timerEvents = 0;
            byteEvents = 0;
            bytesSinceIncrease = 0;
        }
    }
}
