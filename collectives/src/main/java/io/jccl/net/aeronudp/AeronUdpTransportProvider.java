package io.jccl.net.aeronudp;

import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;

import java.util.Map;

/**
 * The {@code aeron-udp} transport: Aeron UDP publications and subscriptions between ranks in different JVMs, on
 * one host or many. A baseline and fallback: priority {@value #PRIORITY}, below every other transport, so it is
 * only used when {@code JCCL_NET=aeron-udp} (or {@code --transport aeron-udp}) names it.
 *
 * <p>Options read from {@link TransportContext#options()}: {@code JCCL_AERON_UDP_MTU} (default: the bind interface's MTU less IP and UDP headers, 1408 when unknown),
 * {@code JCCL_AERON_UDP_TERM_BYTES} (default 8 MiB), {@code JCCL_AERON_UDP_SOCKET_BUFFER_BYTES} (default 2 MiB)
 * and {@code JCCL_AERON_UDP_PEER_TIMEOUT_MS} (default 3000); see {@code docs/transports.md}.
 */
public final class AeronUdpTransportProvider implements NetTransportProvider {
    /** The name users select it by. */
    public static final String NAME = "aeron-udp";
    /** Its priority among providers: the lowest. */
    public static final int PRIORITY = 5;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public AeronUdpTransportProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /** @return true for ranks in different JVMs, on any hosts */
    @Override
    public boolean canConnect(PeerIdentity a, PeerIdentity b) {
        return !(a.hostId().equals(b.hostId()) && a.jvmId().equals(b.jvmId()));
    }

    /**
     * @throws IllegalArgumentException when an option is invalid; the message names the key and the value
     * @throws io.jccl.net.NetException when the media driver cannot be started
     */
    @Override
    public NetTransport create(TransportContext context) {
        return new AeronUdpTransport(context);
    }

    /** Checks the {@code JCCL_AERON_UDP_*} options. */
    @Override
    public void checkOptions(Map<String, String> options) {
        AeronUdpOptions.parse(options);
    }
}
