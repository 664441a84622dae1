package io.jccl.net.aeronudp;

import io.jccl.config.OptionReader;

import java.util.Map;

/**
 * The aeron-udp transport's configuration, read from {@link io.jccl.net.TransportContext#options()}.
 *
 * @param mtuBytes          the MTU of each connection's publication: the largest UDP datagram Aeron sends
 * @param termBytes         the term length of each connection's log (three terms, on both hosts, sparse files)
 * @param socketBufferBytes the UDP socket send and receive buffers, and the receiver's flow-control window
 * @param peerTimeoutMs     how long a silent peer is tolerated: Aeron's image liveness timeout (receiver) and
 *                          publication connection timeout (sender)
 */
record AeronUdpOptions(int mtuBytes, int termBytes, int socketBufferBytes, long peerTimeoutMs) {
    /** Option naming the MTU in bytes. */
    static final String MTU = "JCCL_AERON_UDP_MTU";
    /** Option naming the term length of a connection's log in bytes. */
    static final String TERM_BYTES = "JCCL_AERON_UDP_TERM_BYTES";
    /** Option naming the socket buffer (and receive window) size in bytes. */
    static final String SOCKET_BUFFER_BYTES = "JCCL_AERON_UDP_SOCKET_BUFFER_BYTES";
    /** Option naming the peer timeout in milliseconds. */
    static final String PEER_TIMEOUT_MS = "JCCL_AERON_UDP_PEER_TIMEOUT_MS";

    /** Aeron's default MTU: fits a 1500-byte Ethernet frame with IP and UDP headers. */
    static final int DEFAULT_MTU = 1408;
    static final int MIN_MTU = 512;
    /** Aeron's largest MTU (a UDP payload of 64 KiB less headers). */
    static final int MAX_MTU = 65_504;
    static final int DEFAULT_TERM_BYTES = 8 << 20;
    static final int MIN_TERM_BYTES = 64 << 10;
    static final int MAX_TERM_BYTES = 1 << 30;
    static final int DEFAULT_SOCKET_BUFFER_BYTES = 2 << 20;
    static final int MIN_SOCKET_BUFFER_BYTES = 64 << 10;
    static final int MAX_SOCKET_BUFFER_BYTES = 1 << 30;
    static final long DEFAULT_PEER_TIMEOUT_MS = 3_000;
    static final long MIN_PEER_TIMEOUT_MS = 500;
    static final long MAX_PEER_TIMEOUT_MS = 600_000;

    AeronUdpOptions {
        if (mtuBytes < MIN_MTU || mtuBytes > MAX_MTU || mtuBytes % 32 != 0) {
            throw new IllegalArgumentException("mtuBytes must be a multiple of 32 from " + MIN_MTU + " to " + MAX_MTU);
        }
        if (Integer.bitCount(termBytes) != 1 || termBytes < MIN_TERM_BYTES || termBytes > MAX_TERM_BYTES) {
            throw new IllegalArgumentException("termBytes must be a power of two from " + MIN_TERM_BYTES + " to "
                    + MAX_TERM_BYTES);
        }
    }

    /**
     * @param options the configuration values; absent keys take their defaults
     * @return the parsed options
     * @throws IllegalArgumentException naming the key and the value when a value is invalid
     */
    static AeronUdpOptions parse(Map<String, String> options) {
        return parse(options, DEFAULT_MTU);
    }

    /**
     * @param options       the configuration values; absent keys take their defaults
     * @param defaultMtuBytes the MTU when {@link #MTU} is not set (see {@link #mtuForLink})
     * @return the parsed options
     * @throws IllegalArgumentException naming the key and the value when a value is invalid
     */
    static AeronUdpOptions parse(Map<String, String> options, int defaultMtuBytes) {
        OptionReader o = OptionReader.of(options);
        long mtu = o.whole(MTU, defaultMtuBytes, v -> v >= MIN_MTU && v <= MAX_MTU && v % 32 == 0,
                "a multiple of 32 from " + MIN_MTU + " to " + MAX_MTU);
        long term = o.whole(TERM_BYTES, DEFAULT_TERM_BYTES,
                v -> v >= MIN_TERM_BYTES && v <= MAX_TERM_BYTES && Long.bitCount(v) == 1,
                "a power of two from " + MIN_TERM_BYTES + " to " + MAX_TERM_BYTES);
        int buffer = o.intValue(SOCKET_BUFFER_BYTES, DEFAULT_SOCKET_BUFFER_BYTES, MIN_SOCKET_BUFFER_BYTES,
                MAX_SOCKET_BUFFER_BYTES, "bytes");
        long timeout = o.longValue(PEER_TIMEOUT_MS, DEFAULT_PEER_TIMEOUT_MS, MIN_PEER_TIMEOUT_MS, MAX_PEER_TIMEOUT_MS,
                "milliseconds");
        return new AeronUdpOptions((int) mtu, (int) term, buffer, timeout);
    }

    /**
     * The largest Aeron MTU whose datagrams fit the link unfragmented: the link MTU less the IP and UDP headers,
     * rounded down to Aeron's 32-byte frame alignment. A datagram that IP-fragments is lost whole when any fragment
     * is, and Aeron's 1408 default fragments on links under 1436 bytes (this VM's eth0 has 1400); on loopback
     * (65536) it allows 64 KiB datagrams, a fraction of the per-datagram costs.
     *
     * @param linkMtuBytes the interface's MTU, or 0 or less when unknown
     * @param ipv6         whether the datagrams go over IPv6 (40-byte header instead of 20)
     * @return the MTU to use: {@link #DEFAULT_MTU} when the link's is unknown
     */
    static int mtuForLink(int linkMtuBytes, boolean ipv6) {
        if (linkMtuBytes <= 0) {
            return DEFAULT_MTU;
        }
        int fits = (linkMtuBytes - (ipv6 ? 40 : 20) - 8) & ~31;
        return Math.max(MIN_MTU, Math.min(MAX_MTU, fits));
    }

    /** @return the receiver's window: the socket buffer, at most half a term (Aeron's own cap) */
    int windowBytes() {
        return Math.min(socketBufferBytes, termBytes / 2);
    }
}
