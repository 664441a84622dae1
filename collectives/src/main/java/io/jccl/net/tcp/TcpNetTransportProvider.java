package io.jccl.net.tcp;

import io.jccl.net.AbstractNetTransportProvider;

/**
 * The {@code tcp} transport: connects any two ranks over TCP sockets. Priority {@value #PRIORITY}, below
 * in-JVM transports, so it serves the pairs nothing faster can.
 *
 * <p>Options read from {@link io.jccl.net.TransportContext#options()}: {@code JCCL_SOCKET_BUFFER_BYTES}, the socket send and
 * receive buffer size in bytes (default 4 MiB; 0 keeps the kernel's defaults and autotuning);
 * {@code JCCL_SOCKET_NSOCKS}, the sockets of each connection this rank opens for its own long messages, 1 to 7
 * (1 to 16 with {@code JCCL_SOCKET_DUPLEX=0}; default 1), across which they are striped;
 * {@code JCCL_SOCKET_MIN_STRIPE_BYTES}, the shortest stripe, 4096 to 1073741824 bytes (default 65536);
 * {@code JCCL_SOCKET_DUPLEX}, 1 (the default) for one socket carrying both directions' headers and short messages
 * between two ranks, 0 for one-way connections.
 */
public final class TcpNetTransportProvider extends AbstractNetTransportProvider {
    /** The name users select it by. */
    public static final String NAME = "tcp";
    /** Its priority among providers. */
    public static final int PRIORITY = 10;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public TcpNetTransportProvider() {
        super(NAME, PRIORITY, Reach.ANY, TcpNetTransport::new, TcpOptions::parse);
    }
}
