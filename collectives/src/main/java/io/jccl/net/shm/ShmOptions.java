package io.jccl.net.shm;

import io.jccl.config.OptionReader;

import java.util.Locale;
import java.util.Map;

/**
 * The shm transport's configuration, read from {@link io.jccl.net.TransportContext#options()}.
 *
 * @param ringBytes       bytes of each connection's ring (a power of two): small messages, message headers and, when
 *                        cross-memory attach is not used, large messages in pipelined chunks
 * @param eagerBytes      the largest message copied through the ring in one record; longer ones take the large-message
 *                        path
 * @param large           how large messages travel
 * @param registeredBytes bytes of this rank's registered-memory heap ({@code Communicator.allocate}), 0 for none
 * @param singleCopyMaxBytes the largest operation (bytes per rank) whose large messages the receiver reads in one
 *                        cross-memory copy when the algorithm asks for it ({@link
 *                        io.jccl.net.SendConnection#isendSingleCopy}); 0: never asked
 */
record ShmOptions(long ringBytes, long eagerBytes, Large large, long registeredBytes, long singleCopyMaxBytes) {
    /** Option naming the ring size. */
    static final String RING_BYTES = "JCCL_SHM_RING_BYTES";
    /** Option naming the eager limit. */
    static final String EAGER_BYTES = "JCCL_SHM_EAGER_BYTES";
    /** Option naming the large-message mode. */
    static final String LARGE = "JCCL_SHM_LARGE";
    /** Option naming the registered-memory heap size. */
    static final String REGISTERED_BYTES = "JCCL_SHM_REGISTERED_BYTES";
    /** Option naming the largest operation read in one copy. */
    static final String SINGLE_COPY_BYTES = "JCCL_SHM_SINGLE_COPY_BYTES";

    static final long DEFAULT_RING_BYTES = 4 << 20;
    static final long MIN_RING_BYTES = 64 << 10;
    static final long MAX_RING_BYTES = 256L << 20;
    static final long DEFAULT_EAGER_BYTES = 16 << 10;
    /** The largest eager limit: a message that size takes at most a quarter of the ring in one record. */
    static final long MAX_EAGER_BYTES = 1 << 20;
    static final long DEFAULT_REGISTERED_BYTES = 1L << 30;
    static final long MAX_REGISTERED_BYTES = 64L << 30;
    /**
     * Far apart (cores sharing no cache, the usual placement on the VMs measured) one copy took 1.6-1.9x less time
     * than the pipelined ring at 1-4 MiB and more at 8 MiB; on cores sharing a cache twice as much at 1 MiB. The
     * default stays at the size measured in both placements (docs/performance.md).
     */
    static final long DEFAULT_SINGLE_COPY_BYTES = 1 << 20;
    static final long MAX_SINGLE_COPY_BYTES = 1L << 40;

    /** How messages longer than the eager limit travel. */
    enum Large {
        /**
         * Cross-memory attach where the kernel allows it, for the messages the algorithm asks to be read in one copy
         * (operations up to {@code JCCL_SHM_SINGLE_COPY_BYTES}); the pipelined copy for the others, and for all where
         * the kernel refuses it (default).
         */
        AUTO,
        /** Cross-memory attach for every large message: a connection where it is refused fails to connect. */
        CMA,
        /** Always the pipelined copy through the ring. */
        RING;

        String optionValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    ShmOptions {
        if (Long.bitCount(ringBytes) != 1 || ringBytes < MIN_RING_BYTES || ringBytes > MAX_RING_BYTES) {
            throw new IllegalArgumentException("ringBytes must be a power of two from " + MIN_RING_BYTES + " to "
                    + MAX_RING_BYTES + ", not " + ringBytes);
        }
        if (eagerBytes < 0 || eagerBytes > maxEagerBytes(ringBytes)) {
            throw new IllegalArgumentException("eagerBytes must be from 0 to " + maxEagerBytes(ringBytes) + ", not "
                    + eagerBytes);
        }
        if (registeredBytes < 0 || registeredBytes > MAX_REGISTERED_BYTES || registeredBytes % Layout.PAGE != 0) {
            throw new IllegalArgumentException("registeredBytes must be a multiple of " + Layout.PAGE + " from 0 to "
                    + MAX_REGISTERED_BYTES + ", not " + registeredBytes);
        }
        if (singleCopyMaxBytes < 0 || singleCopyMaxBytes > MAX_SINGLE_COPY_BYTES) {
            throw new IllegalArgumentException("singleCopyMaxBytes must be from 0 to " + MAX_SINGLE_COPY_BYTES
                    + ", not " + singleCopyMaxBytes);
        }
    }

    /**
     * @param options the configuration values; absent keys take their defaults
     * @return the parsed options
     * @throws IllegalArgumentException naming the key and the value when a value is invalid
     */
    static ShmOptions parse(Map<String, String> options) {
        OptionReader o = OptionReader.of(options);
        long ring = o.whole(RING_BYTES, DEFAULT_RING_BYTES,
                v -> Long.bitCount(v) == 1 && v >= MIN_RING_BYTES && v <= MAX_RING_BYTES,
                "a power of two number of bytes from " + MIN_RING_BYTES + " (64 KiB) to " + MAX_RING_BYTES
                        + " (256 MiB)");
        long maxEager = maxEagerBytes(ring);
        long eager = o.whole(EAGER_BYTES, Math.min(DEFAULT_EAGER_BYTES, maxEager), v -> v >= 0 && v <= maxEager,
                "a whole number of bytes from 0 to " + maxEager + " (a quarter of " + RING_BYTES + ", at most 1 MiB)");
        long registered = o.whole(REGISTERED_BYTES, DEFAULT_REGISTERED_BYTES, v -> v >= 0 && v <= MAX_REGISTERED_BYTES,
                "a whole number of bytes from 0 to " + MAX_REGISTERED_BYTES + " (64 GiB)");
        long singleCopy = o.whole(SINGLE_COPY_BYTES, DEFAULT_SINGLE_COPY_BYTES,
                v -> v >= 0 && v <= MAX_SINGLE_COPY_BYTES,
                "a whole number of bytes from 0 (never) to " + MAX_SINGLE_COPY_BYTES + " (1 TiB)");
        return new ShmOptions(ring, eager, o.choice(LARGE, Large.AUTO, Large.class),
                (registered + Layout.PAGE - 1) / Layout.PAGE * Layout.PAGE, singleCopy);
    }

    /** @return the largest eager limit for a ring of {@code ringBytes} */
    static long maxEagerBytes(long ringBytes) {
        return Math.min(ringBytes / 4, MAX_EAGER_BYTES);
    }

    /** @return the chunk of a pipelined message: a sixteenth of the ring, from 4 KiB to 256 KiB */
    long chunkBytes() {
        return Math.max(4096, Math.min(256 << 10, ringBytes / 16));
    }
}
