package io.jccl.metaroce.offload;

import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.verbs.RdmaDevice;
import org.agrona.concurrent.NanoClock;

import java.net.InetAddress;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * What an {@link OffloadProvider} gets to open one {@link MetaRoceDataPath}: the device its probe chose, and what the
 * software driver gets too.
 *
 * @param device         the device the provider's probe accepted
 * @param endpointConfig the protocol settings of the endpoint to create (paths, payload per packet, handshake key,
 *                       timers)
 * @param bindAddress    the local address the rank communicates on ({@code JCCL_SOCKET_IFNAME}'s choice)
 * @param random         the endpoint's random source (a {@link java.security.SecureRandom})
 * @param clock          the clock the endpoint runs on
 */
public record DataPathSpec(RdmaDevice device, EndpointConfig endpointConfig, InetAddress bindAddress,
                           RandomGenerator random, NanoClock clock) {
    /** Checks that nothing is missing. */
    public DataPathSpec {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(endpointConfig, "endpointConfig");
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(clock, "clock");
    }
}
