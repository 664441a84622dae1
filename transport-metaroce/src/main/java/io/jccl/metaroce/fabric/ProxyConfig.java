package io.jccl.metaroce.fabric;

import io.jccl.config.Arguments;
import io.jccl.metaroce.impair.Impairments;

import java.net.InetAddress;
import java.util.Objects;

/**
 * Settings of an {@link ImpairmentProxy}; every value is checked here.
 *
 * @param bindAddress       where the control, front and flow sockets bind: an address the endpoints can reach (not
 *                          the wildcard, since fronts are published to peers)
 * @param controlPort       the control socket's port, 0: an ephemeral one ({@link ImpairmentProxy#controlAddress()})
 * @param impairments       what every flow suffers, both ways
 * @param baseDelayNs       delay added to every datagram, 0-10 s
 * @param rateLimit         every flow's bottleneck, each way, or {@link RateLimit#NONE}
 * @param seed              seed of every flow's random streams (with the flow's identity)
 * @param maxEndpoints      registrations it accepts, 1-1024 (each holds a socket per path)
 * @param maxFlows          flows open at once, 1-65536 (each holds a socket)
 * @param flowIdleTimeoutNs a flow that carried nothing for this long is forgotten (its socket closed), 1 ms-1 h
 */
public record ProxyConfig(InetAddress bindAddress, int controlPort, Impairments impairments, long baseDelayNs,
                          RateLimit rateLimit, long seed, int maxEndpoints, int maxFlows, long flowIdleTimeoutNs) {
    /** Checks every value. */
    public ProxyConfig {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(impairments, "impairments");
        Objects.requireNonNull(rateLimit, "rateLimit");
        if (bindAddress.isAnyLocalAddress()) {
            throw new IllegalArgumentException("bindAddress: the proxy publishes its sockets' addresses, so it needs "
                    + "an address the endpoints can reach, not the wildcard " + bindAddress.getHostAddress());
        }
        Arguments.inRange("controlPort", controlPort, 0, 65535);
        Forwarder.checkBaseDelay(baseDelayNs);
        Arguments.inRange("maxEndpoints", maxEndpoints, 1, 1024);
        Arguments.inRange("maxFlows", maxFlows, 1, 65536);
        Arguments.require(flowIdleTimeoutNs >= 1_000_000 && flowIdleTimeoutNs <= 3_600_000_000_000L,
                "flowIdleTimeoutNs", flowIdleTimeoutNs, "1 ms to 1 h");
    }

    /**
     * @return no impairment, an ephemeral control port, seed 1, 64 endpoints, 4096 flows idle for 10 minutes at most
     *         (an endpoint that re-routes often leaves many flows behind; a full table makes room from flows idle
     *         for 100 ms); long, because MetaRoCE has no keepalive and a forgotten flow strands a quiet pair
     */
    public static ProxyConfig defaults(InetAddress bindAddress) {
        return new ProxyConfig(bindAddress, 0, Impairments.NONE, 0, RateLimit.NONE, 1, 64, 4096, 600_000_000_000L);
    }

    /** @return a copy with another control port */
    public ProxyConfig withControlPort(int port) {
        return new ProxyConfig(bindAddress, port, impairments, baseDelayNs, rateLimit, seed, maxEndpoints, maxFlows,
                flowIdleTimeoutNs);
    }

    /** @return a copy with other impairments */
    public ProxyConfig withImpairments(Impairments im) {
        return new ProxyConfig(bindAddress, controlPort, im, baseDelayNs, rateLimit, seed, maxEndpoints, maxFlows,
                flowIdleTimeoutNs);
    }

    /** @return a copy with another base delay */
    public ProxyConfig withBaseDelayNs(long ns) {
        return new ProxyConfig(bindAddress, controlPort, impairments, ns, rateLimit, seed, maxEndpoints, maxFlows,
                flowIdleTimeoutNs);
    }

    /** @return a copy with another rate limit */
    public ProxyConfig withRateLimit(RateLimit limit) {
        return new ProxyConfig(bindAddress, controlPort, impairments, baseDelayNs, limit, seed, maxEndpoints, maxFlows,
                flowIdleTimeoutNs);
    }

    /** @return a copy with another seed */
    public ProxyConfig withSeed(long s) {
        return new ProxyConfig(bindAddress, controlPort, impairments, baseDelayNs, rateLimit, s, maxEndpoints, maxFlows,
                flowIdleTimeoutNs);
    }

    /** @return a copy with other limits */
    public ProxyConfig withLimits(int endpoints, int flows, long idleTimeoutNs) {
        return new ProxyConfig(bindAddress, controlPort, impairments, baseDelayNs, rateLimit, seed, endpoints, flows,
                idleTimeoutNs);
    }
}
