package io.jccl.net;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;

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
}
