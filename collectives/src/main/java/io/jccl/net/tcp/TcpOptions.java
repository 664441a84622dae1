package io.jccl.net.tcp;

import java.util.Map;

/**
 * The TCP transport's configuration, read from {@link io.jccl.net.TransportContext#options()}.
 *
 * @param socketBufferBytes the {@code SO_SNDBUF}/{@code SO_RCVBUF} size to ask for, or 0 to leave the kernel's
 *                          defaults and autotuning alone
 */
record TcpOptions(int socketBufferBytes) {
    /** Option naming the socket buffer size in bytes; 0 keeps the kernel's defaults. */
    static final String SOCKET_BUFFER_BYTES = "JCCL_SOCKET_BUFFER_BYTES";
    /** Default socket buffer size: 4 MiB. */
    static final int DEFAULT_SOCKET_BUFFER_BYTES = 4 << 20;
    /** Smallest nonzero socket buffer size accepted. */
    static final int MIN_SOCKET_BUFFER_BYTES = 4096;

    TcpOptions {
        if (socketBufferBytes != 0 && socketBufferBytes < MIN_SOCKET_BUFFER_BYTES) {
            throw new IllegalArgumentException("socketBufferBytes must be 0 or at least " + MIN_SOCKET_BUFFER_BYTES
                    + ", not " + socketBufferBytes);
        }
    }

    /**
     * @param options the configuration values; absent keys take their defaults
     * @return the parsed options
     * @throws IllegalArgumentException naming the key and the value when a value is invalid
     */
    static TcpOptions parse(Map<String, String> options) {
        String raw = options == null ? null : options.get(SOCKET_BUFFER_BYTES);
        if (raw == null) {
            return new TcpOptions(DEFAULT_SOCKET_BUFFER_BYTES);
        }
        long value;
        try {
            value = Long.parseLong(raw.strip());
        } catch (NumberFormatException e) {
            throw invalid(raw);
        }
        if (value != 0 && (value < MIN_SOCKET_BUFFER_BYTES || value > Integer.MAX_VALUE)) {
            throw invalid(raw);
        }
        return new TcpOptions((int) value);
    }

    private static IllegalArgumentException invalid(String raw) {
        return new IllegalArgumentException(SOCKET_BUFFER_BYTES + "='" + raw + "' is invalid: it must be a whole number"
                + " of bytes, 0 (keep the kernel's defaults) or " + MIN_SOCKET_BUFFER_BYTES + " to " + Integer.MAX_VALUE);
    }
}
