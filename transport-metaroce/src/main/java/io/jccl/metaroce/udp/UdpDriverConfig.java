package io.jccl.metaroce.udp;

import java.net.InetAddress;
import java.util.Objects;

/**
 * Socket settings of a {@link UdpDriver}.
 *
 * @param bindAddress        local address every path socket binds to (each on its own ephemeral port)
 * @param socketBufferBytes  send and receive buffer size asked of the kernel per socket (it may grant less: see
 *                           {@link UdpDriver#grantedReceiveBufferBytes()}), 64 KiB to 1 GiB
 * @param receiveBatch       most datagrams read from one socket per {@link UdpDriver#doWork()}, 1 to 4096
 */
public record UdpDriverConfig(InetAddress bindAddress, int socketBufferBytes, int receiveBatch) {
    /** Checks every field. */
    public UdpDriverConfig {
        Objects.requireNonNull(bindAddress, "bindAddress");
        if (socketBufferBytes < 64 << 10 || socketBufferBytes > 1 << 30) {
            throw new IllegalArgumentException("socketBufferBytes=" + socketBufferBytes + " is out of range (64 KiB-1 GiB)");
        }
        if (receiveBatch < 1 || receiveBatch > 4096) {
            throw new IllegalArgumentException("receiveBatch=" + receiveBatch + " is out of range (1-4096)");
        }
    }

    /**
     * @param bindAddress where the sockets bind
     * @return 4 MiB socket buffers, batches of 64
     */
    public static UdpDriverConfig defaults(InetAddress bindAddress) {
        return new UdpDriverConfig(bindAddress, 4 << 20, 64);
    }
}
