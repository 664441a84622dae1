package io.jccl.net.tcp;

import io.jccl.config.OptionReader;

import java.util.Map;

/**
 * The TCP transport's configuration, read from {@link io.jccl.net.TransportContext#options()}.
 *
 * @param socketBufferBytes the {@code SO_SNDBUF}/{@code SO_RCVBUF} size to ask for on every socket, or 0 to leave
 *                          the kernel's defaults and autotuning alone
 * @param socketsPerConnection the sockets each connection this rank opens has, 1 to {@value Wire#MAX_SOCKETS}
 *                          (NCCL's {@code NCCL_NSOCKS_PERTHREAD} times {@code NCCL_SOCKET_NTHREADS})
 * @param minStripeBytes    the shortest stripe a message is split into: a message goes out in
 *                          {@code min(socketsPerConnection, length / minStripeBytes)} stripes, one per socket, so a
 *                          message shorter than twice this goes whole on socket 0
 * @param duplex            whether one socket carries both directions' headers and short messages between two
 *                          ranks ({@code JCCL_SOCKET_DUPLEX=1}, the default): this rank offers the sockets it opens
 *                          to the peer (one shared, then {@code socketsPerConnection} bulk sockets for each
 *                          direction, {@link SocketLayout}), and takes a peer's offered sockets when it connects
 *                          back. Each direction's short messages then carry the other's acknowledgements; messages
 *                          of at least {@code minStripeBytes} go on the direction's own bulk sockets
 */
record TcpOptions(int socketBufferBytes, int socketsPerConnection, long minStripeBytes, boolean duplex) {
    /** Option naming the socket buffer size in bytes; 0 keeps the kernel's defaults. */
    static final String SOCKET_BUFFER_BYTES = "JCCL_SOCKET_BUFFER_BYTES";
    /** Option naming the number of sockets per connection. */
    static final String NSOCKS = "JCCL_SOCKET_NSOCKS";
    /** Option naming the shortest stripe in bytes. */
    static final String MIN_STRIPE_BYTES = "JCCL_SOCKET_MIN_STRIPE_BYTES";
    /** Option naming whether one socket carries both directions between two ranks (1) or not (0). */
    static final String DUPLEX = "JCCL_SOCKET_DUPLEX";

    /** Default socket buffer size: 4 MiB. */
    static final int DEFAULT_SOCKET_BUFFER_BYTES = 4 << 20;
    /** Smallest nonzero socket buffer size accepted. */
    static final int MIN_SOCKET_BUFFER_BYTES = 4096;
    /**
     * Default sockets per connection: 1, as NCCL outside cloud VMs. Loopback on a 2-core host gains nothing from
     * more (docs/performance.md, "TCP transport: multi-socket"); networks whose single flows are capped (cloud
     * VMs, ECMP fabrics) do, and set {@code JCCL_SOCKET_NSOCKS}.
     */
    static final int DEFAULT_SOCKETS_PER_CONNECTION = 1;
    /** Default shortest stripe: 64 KiB, NCCL's {@code MIN_CHUNKSIZE} for its socket tasks. */
    static final long DEFAULT_MIN_STRIPE_BYTES = 64 << 10;
    /**
     * Default: connections offered for both directions (where {@link #socketsPerConnection} allows it). An 8-byte
     * all-reduce at 2 ranks took 0.81-0.86x Open MPI tcp's time with it against 0.84-1.12x without; 1 and 8 MiB
     * measured alike (docs/performance.md).
     */
    static final boolean DEFAULT_DUPLEX = true;
    /** Most sockets per connection with {@link #duplex}: an offered connection has {@code 1 + 2n} sockets. */
    static final int MAX_DUPLEX_SOCKETS_PER_CONNECTION = (Wire.MAX_SOCKETS - 1) / 2;
    /** Largest shortest stripe accepted: 1 GiB (larger would never split anything worth splitting). */
    static final long MAX_MIN_STRIPE_BYTES = 1L << 30;

    TcpOptions {
        if (socketBufferBytes != 0 && socketBufferBytes < MIN_SOCKET_BUFFER_BYTES) {
            throw new IllegalArgumentException("socketBufferBytes must be 0 or at least " + MIN_SOCKET_BUFFER_BYTES
                    + ", not " + socketBufferBytes);
        }
        if (socketsPerConnection < 1 || socketsPerConnection > Wire.MAX_SOCKETS) {
            throw new IllegalArgumentException("socketsPerConnection must be 1 to " + Wire.MAX_SOCKETS + ", not "
                    + socketsPerConnection);
        }
        if (minStripeBytes < Wire.MIN_STRIPE_BYTES || minStripeBytes > MAX_MIN_STRIPE_BYTES) {
            throw new IllegalArgumentException("minStripeBytes must be " + Wire.MIN_STRIPE_BYTES + " to "
                    + MAX_MIN_STRIPE_BYTES + ", not " + minStripeBytes);
        }
        if (duplex && socketsPerConnection > MAX_DUPLEX_SOCKETS_PER_CONNECTION) {
            throw new IllegalArgumentException("socketsPerConnection must be 1 to " + MAX_DUPLEX_SOCKETS_PER_CONNECTION
                    + " with duplex, not " + socketsPerConnection);
        }
    }

    /**
     * @param options the configuration values; absent keys take their defaults
     * @return the parsed options
     * @throws IllegalArgumentException naming the key and the value when a value is invalid
     */
    static TcpOptions parse(Map<String, String> options) {
        OptionReader o = OptionReader.of(options);
        long buffer = o.whole(SOCKET_BUFFER_BYTES, DEFAULT_SOCKET_BUFFER_BYTES,
                v -> v == 0 || v >= MIN_SOCKET_BUFFER_BYTES && v <= Integer.MAX_VALUE, "a whole number of bytes, 0"
                        + " (keep the kernel's defaults) or " + MIN_SOCKET_BUFFER_BYTES + " to " + Integer.MAX_VALUE);
        int sockets = o.intValue(NSOCKS, DEFAULT_SOCKETS_PER_CONNECTION, 1, Wire.MAX_SOCKETS,
                "sockets per connection");
        long stripe = o.longValue(MIN_STRIPE_BYTES, DEFAULT_MIN_STRIPE_BYTES, Wire.MIN_STRIPE_BYTES,
                MAX_MIN_STRIPE_BYTES, "bytes");
        // By default on, unless more sockets were asked for than an offered connection can have.
        boolean duplex = o.flag(DUPLEX, DEFAULT_DUPLEX && sockets <= MAX_DUPLEX_SOCKETS_PER_CONNECTION);
        if (duplex && sockets > MAX_DUPLEX_SOCKETS_PER_CONNECTION) {
            throw o.invalid(NSOCKS, "1 to " + MAX_DUPLEX_SOCKETS_PER_CONNECTION + " with " + DUPLEX
                    + "=1 (two ranks then share 1 + 2 x " + NSOCKS + " sockets, at most " + Wire.MAX_SOCKETS + ")");
        }
        return new TcpOptions((int) buffer, sockets, stripe, duplex);
    }

    /**
     * The stripes a message of {@code length} bytes is sent in.
     *
     * @return 1 to {@link #socketsPerConnection()}
     */
    int stripesFor(long length) {
        return stripesFor(length, socketsPerConnection);
    }

    /**
     * The stripes a message of {@code length} bytes is sent in over {@code sockets} sockets: one per whole
     * {@link #minStripeBytes} it holds, at most one per socket, at least one.
     *
     * @return 1 to {@code sockets}
     */
    int stripesFor(long length, int sockets) {
        return (int) Math.max(1, Math.min(sockets, length / minStripeBytes));
    }
}
