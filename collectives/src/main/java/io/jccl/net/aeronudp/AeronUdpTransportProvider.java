package io.jccl.net.aeronudp;

import io.jccl.net.AbstractNetTransportProvider;

/**
 * The {@code aeron-udp} transport: Aeron UDP publications and subscriptions between ranks in different JVMs, on
 * one host or many. A baseline and fallback: priority {@value #PRIORITY}, below every other transport, so it is
 * only used when {@code JCCL_NET=aeron-udp} (or {@code --transport aeron-udp}) names it.
 *
 * <p>Options read from {@link io.jccl.net.TransportContext#options()}: {@code JCCL_AERON_UDP_MTU} (default: the bind interface's MTU less IP and UDP headers, 1408 when unknown),
 * {@code JCCL_AERON_UDP_TERM_BYTES} (default 8 MiB), {@code JCCL_AERON_UDP_SOCKET_BUFFER_BYTES} (default 2 MiB)
 * and {@code JCCL_AERON_UDP_PEER_TIMEOUT_MS} (default 3000); see {@code docs/transports.md}. Creating the transport
 * fails with a {@link io.jccl.net.NetException} when the media driver cannot be started.
 */
public final class AeronUdpTransportProvider extends AbstractNetTransportProvider {
    /** The name users select it by. */
    public static final String NAME = "aeron-udp";
    /** Its priority among providers: the lowest. */
    public static final int PRIORITY = 5;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public AeronUdpTransportProvider() {
        super(NAME, PRIORITY, Reach.OTHER_JVM, AeronUdpTransport::new, AeronUdpOptions::parse);
    }
}
