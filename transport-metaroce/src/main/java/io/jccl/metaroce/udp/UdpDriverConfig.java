package io.jccl.metaroce.udp;

import io.jccl.config.Arguments;

import java.net.InetAddress;
import java.util.Objects;

/**
 * Socket settings of a {@link UdpDriver}.
 *
 * @param bindAddress       local address every path socket binds to (each on its own ephemeral port)
 * @param socketBufferBytes send and receive buffer size asked of the kernel per socket (it may grant less: see
 *                          {@link UdpDriver#grantedReceiveBufferBytes()}), 64 KiB to 1 GiB
 * @param receiveBatch      most datagrams read from one socket per {@link UdpDriver#doWork()}, 1 to 4096 (with GRO
 *                          the last coalesced read may carry a few more)
 * @param io                the I/O method: {@link IoMethod#AUTO} picks native where available
 * @param gso               native only: send runs of equal-sized datagrams to one destination as one UDP GSO message
 *                          (when the kernel supports it; off after the first refusal)
 * @param gro               native only: let the kernel coalesce arriving datagrams (UDP GRO); the driver splits them
 * @param sendBatch         native only: most datagrams queued per socket before a {@code sendmmsg}, 1 to 1024 (the
 *                          queue is also flushed at the end of every {@link UdpDriver#doWork()})
 * @param firstPort         lowest port a socket may bind to, or 0 for ephemeral ports (see {@link #withPorts})
 * @param lastPort          highest port a socket may bind to, or 0 for ephemeral ports
 */
public record UdpDriverConfig(InetAddress bindAddress, int socketBufferBytes, int receiveBatch, IoMethod io,
                              boolean gso, boolean gro, int sendBatch, int firstPort, int lastPort) {
    /** The default {@link #sendBatch}. */
    public static final int DEFAULT_SEND_BATCH = 64;

    /** Checks every field. */
    public UdpDriverConfig {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(io, "io");
        Arguments.require(socketBufferBytes >= 64 << 10 && socketBufferBytes <= 1 << 30, "socketBufferBytes",
                socketBufferBytes, "64 KiB-1 GiB");
        Arguments.inRange("receiveBatch", receiveBatch, 1, 4096);
        Arguments.inRange("sendBatch", sendBatch, 1, 1024);
        if (!(firstPort == 0 && lastPort == 0) && (firstPort < 1 || lastPort > 65535 || firstPort > lastPort)) {
            throw new IllegalArgumentException("ports " + firstPort + "-" + lastPort + " are not a range of 1-65535"
                    + " (0-0: ephemeral ports)");
        }
    }

    /** @return whether sockets bind to ports the kernel picks (no {@link #withPorts range} was given) */
    public boolean ephemeralPorts() {
        return firstPort == 0;
    }

    /**
     * The first cut's settings, with the I/O method chosen automatically, GSO and GRO on.
     *
     * @param bindAddress       where the sockets bind
     * @param socketBufferBytes buffer size asked of the kernel per socket
     * @param receiveBatch      most datagrams read per socket per round
     */
    public UdpDriverConfig(InetAddress bindAddress, int socketBufferBytes, int receiveBatch) {
        this(bindAddress, socketBufferBytes, receiveBatch, IoMethod.AUTO, true, true, DEFAULT_SEND_BATCH, 0, 0);
    }

    /**
     * @param bindAddress where the sockets bind
     * @return 4 MiB socket buffers, batches of 64, I/O method {@link IoMethod#AUTO}, GSO and GRO on
     */
    public static UdpDriverConfig defaults(InetAddress bindAddress) {
        return new UdpDriverConfig(bindAddress, 4 << 20, 64);
    }

    /** @return a copy with this I/O method */
    public UdpDriverConfig withIo(IoMethod method) {
        return new UdpDriverConfig(bindAddress, socketBufferBytes, receiveBatch, method, gso, gro, sendBatch,
                firstPort, lastPort);
    }

    /** @return a copy with UDP GSO on or off */
    public UdpDriverConfig withGso(boolean on) {
        return new UdpDriverConfig(bindAddress, socketBufferBytes, receiveBatch, io, on, gro, sendBatch,
                firstPort, lastPort);
    }

    /** @return a copy with UDP GRO on or off */
    public UdpDriverConfig withGro(boolean on) {
        return new UdpDriverConfig(bindAddress, socketBufferBytes, receiveBatch, io, gso, on, sendBatch,
                firstPort, lastPort);
    }

    /**
     * Binds every path socket (and every socket a re-route opens) to a free port of {@code first}-{@code last},
     * lowest first, for firewalls that open a known range; {@code 0, 0} for ephemeral ports.
     *
     * @return a copy with this port range
     */
    public UdpDriverConfig withPorts(int first, int last) {
        return new UdpDriverConfig(bindAddress, socketBufferBytes, receiveBatch, io, gso, gro, sendBatch, first, last);
    }

    /** @return a copy with this send batch */
    public UdpDriverConfig withSendBatch(int datagrams) {
        return new UdpDriverConfig(bindAddress, socketBufferBytes, receiveBatch, io, gso, gro, datagrams,
                firstPort, lastPort);
    }
}
