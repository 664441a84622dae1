package io.jccl.metaroce.fabric;

import io.jccl.config.Arguments;

/**
 * A relay's bottleneck, per path and direction (per flow direction in proxy mode): datagrams wait in a queue drained
 * at {@code bytesPerSecond} by a token bucket; one that would take the queue past {@code queueLimitBytes} is dropped
 * at the tail (a queue always takes one datagram when empty); one enqueued while the queue already holds more than
 * {@code ecnThresholdBytes} leaves with the IP ECN field set to CE ({@code 0b11}), every other one with ECT(0)
 * ({@code 0b10}), as a switch port that marks instead of dropping early would.
 *
 * @param bytesPerSecond    drain rate; 0: no rate limit (the other fields are ignored)
 * @param queueLimitBytes   queue size at which the tail drops, 1 KiB to 1 GiB
 * @param ecnThresholdBytes queue depth above which datagrams are marked; {@link #NO_ECN}: never
 */
public record RateLimit(long bytesPerSecond, int queueLimitBytes, int ecnThresholdBytes) {
    /** No rate limit. */
    public static final RateLimit NONE = new RateLimit(0, 0, 0);
    /** An {@code ecnThresholdBytes} that never marks. */
    public static final int NO_ECN = Integer.MAX_VALUE;

    /** Checks every value. */
    public RateLimit {
        Arguments.require(bytesPerSecond >= 0 && bytesPerSecond <= 1_000_000_000_000L, "bytesPerSecond",
                bytesPerSecond, "0 (none) to 1e12");
        Arguments.require(bytesPerSecond == 0 || queueLimitBytes >= 1024 && queueLimitBytes <= 1 << 30,
                "queueLimitBytes", queueLimitBytes, "1 KiB to 1 GiB");
        Arguments.atLeast("ecnThresholdBytes", ecnThresholdBytes, 0);
    }

    /** @return a rate limit that never marks ECN */
    public static RateLimit of(long bytesPerSecond, int queueLimitBytes) {
        return new RateLimit(bytesPerSecond, queueLimitBytes, NO_ECN);
    }

    /** @return a copy that marks above this depth */
    public RateLimit withEcnThresholdBytes(int bytes) {
        return new RateLimit(bytesPerSecond, queueLimitBytes, bytes);
    }

    /** @return true when there is no rate limit */
    public boolean isNone() {
        return bytesPerSecond == 0;
    }
}
