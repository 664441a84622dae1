package io.jccl.net.tcp;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * Applies the transport's socket options: {@code TCP_NODELAY} and the configured buffer sizes. When the kernel
 * grants smaller buffers than asked, it logs one warning per transport with both numbers.
 */
final class SocketTuning {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, SocketTuning.class);

    private final int bufferBytes;
    private final AtomicBoolean warned = new AtomicBoolean();

    /** @param bufferBytes the buffer size to ask for; 0 leaves the kernel's defaults */
    SocketTuning(int bufferBytes) {
        this.bufferBytes = bufferBytes;
    }

    /** Configures a listening socket before it is bound, so that accepted sockets inherit the receive buffer. */
    void configureListening(NetworkChannel server) throws IOException {
        if (bufferBytes > 0) {
            server.setOption(StandardSocketOptions.SO_RCVBUF, bufferBytes);
            check(server, StandardSocketOptions.SO_RCVBUF);
        }
    }

    /** Configures a connecting or accepted socket. */
    void configure(SocketChannel channel) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (bufferBytes > 0) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, bufferBytes);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, bufferBytes);
            check(channel, StandardSocketOptions.SO_SNDBUF);
            check(channel, StandardSocketOptions.SO_RCVBUF);
        }
    }

    private void check(NetworkChannel channel, SocketOption<Integer> option) throws IOException {
        int granted = channel.getOption(option);
        if (granted < bufferBytes && warned.compareAndSet(false, true)) {
            LOG.warn("{}={} asked for {} of {} bytes but the kernel granted only {} bytes; throughput may suffer."
                    + " Raise net.core.{}_max (sysctl) or lower {}", TcpOptions.SOCKET_BUFFER_BYTES, bufferBytes,
                    option.name(), bufferBytes, granted, option == StandardSocketOptions.SO_RCVBUF ? "rmem" : "wmem",
                    TcpOptions.SOCKET_BUFFER_BYTES);
        }
    }
}
