package io.jccl.metaroce.protocol;

import io.jccl.config.Arguments;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Settings of a MetaRoCE endpoint, checked when built. Times are nanoseconds, sizes bytes.
 *
 * @param paths                  logical paths per connection, 1-64 (default 8)
 * @param payloadBytes           most payload bytes per DATA packet, 256-65000 (default 4096)
 * @param initialWindowPackets   packets a path may have in flight at first, 1-256 (default 4: with 8 paths of
 *                               4 KiB packets a connection starts with about one bandwidth-delay product of a
 *                               100 Gbit/s, 10 µs fabric, so an incast does not begin by overflowing buffers)
 * @param rtoFloorNs             smallest retransmission timeout (default 50 µs, about 5 round trips of an idle
 *                               datacenter fabric; before the first RTT sample the timeout is 4 floors)
 * @param rtoMaxNs               largest retransmission timeout, the backoff cap (default 50 ms)
 * @param ackEveryPackets        a receiver acknowledges at least every this many DATA packets (default 4)
 * @param delayedAckNs           or after this long (default 20 µs)
 * @param inboundBytesPerSecond  what the receiver can take in, shared max-min among its senders by the rate
 *                               hints it returns (default 12.5e9, 100 Gbit/s)
 * @param failAfterRtos          consecutive RTO expiries that fail a path once the peer is known to have answered
 *                               packets sent after the path's on other paths (default 2); timeouts alone never
 *                               fail a path: a stalled peer makes every path time out at once
 * @param probeIntervalNs        how often a failed path is probed (default 200 µs)
 * @param probesToReadmit        consecutive answered probes that readmit it (default 2)
 * @param connectionDeadNs       the silence limit: a connection fails after this long with nothing at all received
 *                               from the peer on any path while it waited for an answer (default 10 s: seconds of
 *                               stall, a long GC pause or a descheduled process, must not break connections; a quarter
 *                               of it without answers starts moving paths to new routes one at a time). A stall of
 *                               this host counts only for its first rtoMaxNs
 * @param maxPendingWork         posted and unfinished work items per connection (default 4096)
 * @param rnrRetryNs             how long a sender waits before resending a SEND the receiver was not ready for
 *                               (default 50 µs)
 * @param handshakeKey           key that authenticates handshakes (derived from the rendezvous secret)
 */
public record EndpointConfig(int paths, int payloadBytes, int initialWindowPackets, long rtoFloorNs, long rtoMaxNs,
                             int ackEveryPackets, long delayedAckNs, double inboundBytesPerSecond,
                             int failAfterRtos, long probeIntervalNs, int probesToReadmit, long connectionDeadNs,
                             int maxPendingWork, long rnrRetryNs, byte[] handshakeKey) {
    /** Most paths per connection. */
    public static final int MAX_PATHS = 64;
    /** Most packets a path may have outstanding (the SACK window). */
    public static final int MAX_OUTSTANDING_PER_PATH = 256;

    /** Checks every value. */
    public EndpointConfig {
        Arguments.inRange("paths", paths, 1, MAX_PATHS);
        Arguments.inRange("payloadBytes", payloadBytes, 256, 65000);
        Arguments.inRange("initialWindowPackets", initialWindowPackets, 1, MAX_OUTSTANDING_PER_PATH);
        Arguments.require(rtoFloorNs > 0 && rtoMaxNs >= rtoFloorNs, "rtoFloorNs/rtoMaxNs",
                rtoFloorNs + "/" + rtoMaxNs, "0 < floor <= max");
        Arguments.inRange("ackEveryPackets", ackEveryPackets, 1, 64);
        Arguments.positive("delayedAckNs", delayedAckNs);
        Arguments.positive("inboundBytesPerSecond", inboundBytesPerSecond);
        Arguments.atLeast("failAfterRtos", failAfterRtos, 1);
        Arguments.positive("probeIntervalNs", probeIntervalNs);
        Arguments.atLeast("probesToReadmit", probesToReadmit, 1);
        Arguments.positive("connectionDeadNs", connectionDeadNs);
        Arguments.inRange("maxPendingWork", maxPendingWork, 1, 1 << 20);
        Arguments.positive("rnrRetryNs", rnrRetryNs);
        Objects.requireNonNull(handshakeKey, "handshakeKey");
        Arguments.require(handshakeKey.length >= 16, "handshakeKey", handshakeKey.length + " bytes", ">= 16 bytes");
        handshakeKey = handshakeKey.clone();
    }

    /**
     * @param handshakeKey the handshake key (at least 16 bytes)
     * @return the defaults
     */
    public static EndpointConfig defaults(byte[] handshakeKey) {
        return new EndpointConfig(8, 4096, 4, 50_000, 50_000_000, 4, 20_000, 12.5e9, 2, 200_000, 2,
                10_000_000_000L, 4096, 50_000, handshakeKey);
    }

    /** @return a copy with another number of paths */
    public EndpointConfig withPaths(int n) {
        return with(c -> c.paths = n);
    }

    /** @return a copy with another payload size */
    public EndpointConfig withPayloadBytes(int bytes) {
        return with(c -> c.payloadBytes = bytes);
    }

    /** @return a copy with another initial window per path */
    public EndpointConfig withInitialWindowPackets(int packets) {
        return with(c -> c.initialWindowPackets = packets);
    }

    /** @return a copy with another inbound capacity */
    public EndpointConfig withInboundBytesPerSecond(double bytesPerSecond) {
        return with(c -> c.inboundBytesPerSecond = bytesPerSecond);
    }

    /** @return a copy with other retransmission timeout bounds */
    public EndpointConfig withRto(long floorNs, long maxNs) {
        return with(c -> {
            c.rtoFloorNs = floorNs;
            c.rtoMaxNs = maxNs;
        });
    }

    /** @return a copy with another silence limit ({@code connectionDeadNs}) */
    public EndpointConfig withConnectionDeadNs(long deadNs) {
        return with(c -> c.connectionDeadNs = deadNs);
    }

    /** @return a copy that probes a failed path every {@code ns} */
    public EndpointConfig withProbeIntervalNs(long ns) {
        return with(c -> c.probeIntervalNs = ns);
    }

    /** @return a copy whose receivers hold an ACK at most {@code ns} (unless asked for one at once) */
    public EndpointConfig withDelayedAckNs(long ns) {
        return with(c -> c.delayedAckNs = ns);
    }

    /** @return a copy that holds at most {@code n} posted and unfinished work items per connection */
    public EndpointConfig withMaxPendingWork(int n) {
        return with(c -> c.maxPendingWork = n);
    }

    /** One place that lists every component for the copies above, so a new setting is added once, not per copy. */
    private EndpointConfig with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return new EndpointConfig(d.paths, d.payloadBytes, d.initialWindowPackets, d.rtoFloorNs, d.rtoMaxNs,
                d.ackEveryPackets, d.delayedAckNs, d.inboundBytesPerSecond, d.failAfterRtos, d.probeIntervalNs,
                d.probesToReadmit, d.connectionDeadNs, d.maxPendingWork, d.rnrRetryNs, d.handshakeKey);
    }

    /** The components of a config being copied, open to change until the copy is built (and checked). */
    private static final class Draft {
        int paths;
        int payloadBytes;
        int initialWindowPackets;
        long rtoFloorNs;
        long rtoMaxNs;
        int ackEveryPackets;
        long delayedAckNs;
        double inboundBytesPerSecond;
        int failAfterRtos;
        long probeIntervalNs;
        int probesToReadmit;
        long connectionDeadNs;
        int maxPendingWork;
        long rnrRetryNs;
        final byte[] handshakeKey;

        Draft(EndpointConfig c) {
            paths = c.paths;
            payloadBytes = c.payloadBytes;
            initialWindowPackets = c.initialWindowPackets;
            rtoFloorNs = c.rtoFloorNs;
            rtoMaxNs = c.rtoMaxNs;
            ackEveryPackets = c.ackEveryPackets;
            delayedAckNs = c.delayedAckNs;
            inboundBytesPerSecond = c.inboundBytesPerSecond;
            failAfterRtos = c.failAfterRtos;
            probeIntervalNs = c.probeIntervalNs;
            probesToReadmit = c.probesToReadmit;
            connectionDeadNs = c.connectionDeadNs;
            maxPendingWork = c.maxPendingWork;
            rnrRetryNs = c.rnrRetryNs;
            handshakeKey = c.handshakeKey;
        }
    }

    @Override
    public byte[] handshakeKey() {
        return handshakeKey.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EndpointConfig c && c.paths == paths && c.payloadBytes == payloadBytes
                && c.initialWindowPackets == initialWindowPackets && c.rtoFloorNs == rtoFloorNs
                && c.rtoMaxNs == rtoMaxNs && c.ackEveryPackets == ackEveryPackets && c.delayedAckNs == delayedAckNs
                && Double.compare(c.inboundBytesPerSecond, inboundBytesPerSecond) == 0
                && c.failAfterRtos == failAfterRtos && c.probeIntervalNs == probeIntervalNs
                && c.probesToReadmit == probesToReadmit && c.connectionDeadNs == connectionDeadNs
                && c.maxPendingWork == maxPendingWork && c.rnrRetryNs == rnrRetryNs
                && Arrays.equals(c.handshakeKey, handshakeKey);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hash(paths, payloadBytes, initialWindowPackets, rtoFloorNs, rtoMaxNs, ackEveryPackets,
                delayedAckNs, inboundBytesPerSecond, failAfterRtos, probeIntervalNs, probesToReadmit,
                connectionDeadNs, maxPendingWork, rnrRetryNs) + Arrays.hashCode(handshakeKey);
    }

    /** The key is left out: it is a secret. */
    @Override
    public String toString() {
        return "EndpointConfig[paths=" + paths + ", payloadBytes=" + payloadBytes + ", initialWindowPackets="
                + initialWindowPackets + ", rtoFloorNs=" + rtoFloorNs + ", rtoMaxNs=" + rtoMaxNs + ", ackEveryPackets="
                + ackEveryPackets + ", delayedAckNs=" + delayedAckNs + ", inboundBytesPerSecond="
                + inboundBytesPerSecond + ", failAfterRtos=" + failAfterRtos + ", probeIntervalNs=" + probeIntervalNs
                + ", probesToReadmit=" + probesToReadmit + ", connectionDeadNs=" + connectionDeadNs
                + ", maxPendingWork=" + maxPendingWork + ", rnrRetryNs=" + rnrRetryNs + "]";
    }
}
