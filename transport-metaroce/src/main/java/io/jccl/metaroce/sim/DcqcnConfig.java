package io.jccl.metaroce.sim;

import io.jccl.config.Arguments;

/**
 * Settings of DCQCN, RoCEv2's rate control (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015), as the go-back-N baseline runs it ({@link DcqcnRate}, {@link GoBackNConfig#dcqcn()}). The receiver
 * (notification point) answers ECN-marked data with a congestion notification packet (CNP), at most one per
 * connection per {@code cnpIntervalNs}; the sender (reaction point) cuts its rate on each CNP and recovers by timer and
 * byte counter.
 *
 * @param cnpIntervalNs        the least time between two CNPs of a connection (the paper's N: 50 µs)
 * @param gain                 the weight g of a CNP in the estimate alpha of the marked share (the paper's 1/256)
 * @param alphaPeriodNs        alpha decays by (1 - g) per period without a CNP (the paper's K: 55 µs)
 * @param increasePeriodNs     the rate-increase timer (the paper's T: 55 µs)
 * @param increaseBytes        the rate-increase byte counter (the paper's B: 10 MB)
 * @param fastRecoverySteps    increase events of fast recovery before additive increase (the paper's F: 5)
 * @param additiveIncreaseBitsPerSecond the additive step of the target rate (the paper's 40 Mbit/s at 40 Gbit/s: 0.1%
 *                             of the line rate)
 * @param hyperIncreaseBitsPerSecond    the hyper-increase step (10 times the additive one)
 * @param minRateBitsPerSecond the least rate a cut leaves (0.1% of the line rate)
 */
public record DcqcnConfig(long cnpIntervalNs, double gain, long alphaPeriodNs, long increasePeriodNs,
                          long increaseBytes, int fastRecoverySteps, long additiveIncreaseBitsPerSecond,
                          long hyperIncreaseBitsPerSecond, long minRateBitsPerSecond) {
    /** Checks every value. */
    public DcqcnConfig {
        if (cnpIntervalNs < 0 || alphaPeriodNs < 1 || increasePeriodNs < 1 || increaseBytes < 1) {
            throw new IllegalArgumentException("DCQCN needs a CNP interval >= 0 and alpha and increase periods and an "
                    + "increase byte count >= 1, not " + this);
        }
        if (!(gain > 0 && gain <= 1)) {
            throw new IllegalArgumentException("DCQCN gain=" + gain + " must be in (0, 1]");
        }
        if (fastRecoverySteps < 1 || additiveIncreaseBitsPerSecond < 1 || hyperIncreaseBitsPerSecond < 1
                || minRateBitsPerSecond < 1) {
            throw new IllegalArgumentException("DCQCN needs fast-recovery steps, increase steps and a minimum rate "
                    + ">= 1, not " + this);
        }
    }

    /**
     * @param lineRateBitsPerSecond the NIC's rate, which scales the increase steps and the minimum rate
     * @return the paper's settings: CNPs 50 µs apart, g = 1/256, alpha and increase periods 55 µs, 10 MB, F = 5,
     *         steps of 0.1% and 1% of the line rate, at least 0.1% of it
     */
    public static DcqcnConfig paper(long lineRateBitsPerSecond) {
        Arguments.atLeast("lineRateBitsPerSecond", lineRateBitsPerSecond, 1000);
        long step = lineRateBitsPerSecond / 1000;
        return new DcqcnConfig(50_000, 1.0 / 256, 55_000, 55_000, 10_000_000, 5, step, 10 * step, step);
    }
}
