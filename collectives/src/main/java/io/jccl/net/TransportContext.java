package io.jccl.net;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What a provider gets to create a transport for one rank.
 *
 * @param self          this rank's identity
 * @param size          the number of ranks in the communicator
 * @param bindAddress   the local address chosen for network traffic ({@code JCCL_SOCKET_IFNAME} rules)
 * @param connectTimeout how long connection attempts may take in all
 * @param options       configuration values ({@code JCCL_*} environment variables and communicator options)
 */
public record TransportContext(PeerIdentity self, int size, InetAddress bindAddress, Duration connectTimeout,
                               Map<String, String> options) {
    /** The longest connect timeout a transport waits: a longer one is cut to this (a year is forever here). */
    public static final Duration MAX_CONNECT_TIMEOUT = Duration.ofDays(365);

    /**
     * @return the connect timeout in nanoseconds, at most {@link #MAX_CONNECT_TIMEOUT}'s
     * @throws NullPointerException     when there is none
     * @throws IllegalArgumentException when it is not positive
     */
    public long connectTimeoutNanos() {
        Objects.requireNonNull(connectTimeout, "context.connectTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connect timeout must be positive, not " + connectTimeout);
        }
        return connectTimeout.compareTo(MAX_CONNECT_TIMEOUT) > 0 ? MAX_CONNECT_TIMEOUT.toNanos()
                : connectTimeout.toNanos();
    }
}
