package io.jccl.metaroce.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

/** How MetaRoCE's UDP pieces (the driver, the relay, the benchmark) open and describe their sockets. */
public final class UdpSockets {
    private UdpSockets() {
    }

    /**
     * Opens a non-blocking UDP socket on an ephemeral port.
     *
     * @param bindAddress  where it binds
     * @param bufferBytes  send and receive buffer size asked of the kernel (it may grant less)
     * @return the socket; closed again if any step fails
     * @throws IOException when it cannot be opened, sized or bound
     */
    public static DatagramChannel open(InetAddress bindAddress, int bufferBytes) throws IOException {
        return open(bindAddress, bufferBytes, 0, 0);
    }

    /**
     * Opens a non-blocking UDP socket on the lowest free port of {@code firstPort}-{@code lastPort} ({@code 0, 0}:
     * an ephemeral port).
     *
     * @throws IOException when it cannot be opened or sized, or no port of the range is free
     */
    public static DatagramChannel open(InetAddress bindAddress, int bufferBytes, int firstPort, int lastPort)
            throws IOException {
        DatagramChannel ch = DatagramChannel.open();
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, bufferBytes);
            ch.setOption(StandardSocketOptions.SO_SNDBUF, bufferBytes);
            for (int port = firstPort; ; port++) {
                try {
                    ch.bind(new InetSocketAddress(bindAddress, port));
                    return ch;
                } catch (java.net.BindException inUse) {
                    if (firstPort == 0 || port >= lastPort) {
                        throw new java.net.BindException("no free UDP port in " + firstPort + "-" + lastPort + " on "
                                + bindAddress.getHostAddress() + " (" + inUse.getMessage() + ")");
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** @return the bound address of each socket, in order */
    public static List<InetSocketAddress> localAddresses(DatagramChannel[] sockets) {
        List<InetSocketAddress> out = new ArrayList<>(sockets.length);
        for (DatagramChannel ch : sockets) {
            try {
                out.add((InetSocketAddress) ch.getLocalAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }
}
