package io.jccl.net.aeronipc;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The aeron-ipc transport's configuration, read from {@link io.jccl.net.TransportContext#options()}.
 *
 * @param directory  the media driver's directory; every rank on a host must name the same one
 * @param termBytes  the term length of each connection's IPC log (three terms per log, sparse files)
 * @param driverIdle how the media driver's thread waits when it has nothing to do (only the JVM that starts the
 *                   driver applies it)
 */
record AeronIpcOptions(Path directory, int termBytes, DriverIdle driverIdle) {
    /** Option naming the media driver directory. */
    static final String DIR = "JCCL_AERON_IPC_DIR";
    /** Option naming the term length of a connection's log in bytes. */
    static final String TERM_BYTES = "JCCL_AERON_IPC_TERM_BYTES";
    /** Option naming the driver's idle strategy. */
    static final String DRIVER_IDLE = "JCCL_AERON_IPC_DRIVER_IDLE";
    /** Default term length: 16 MiB, so a sender may run up to 16 MiB ahead of its receiver. */
    static final int DEFAULT_TERM_BYTES = 16 << 20;
    /** Smallest term length accepted (Aeron's minimum is 64 KiB; a frame of 64 KiB must fit many times). */
    static final int MIN_TERM_BYTES = 1 << 20;
    /** Largest term length accepted: Aeron's maximum, 1 GiB. */
    static final int MAX_TERM_BYTES = 1 << 30;

    /** How the media driver's one thread waits for work. */
    enum DriverIdle {
        /** Spin briefly, yield, then park for up to 1 ms: little CPU when idle (default). */
        BACKOFF,
        /** Never sleep: lowest latency for window updates, one core busy per host. */
        SPIN
    }

    AeronIpcOptions {
        if (!directory.isAbsolute()) {
            throw new IllegalArgumentException("directory must be absolute, not " + directory);
        }
        if (Integer.bitCount(termBytes) != 1 || termBytes < MIN_TERM_BYTES || termBytes > MAX_TERM_BYTES) {
            throw new IllegalArgumentException("termBytes must be a power of two from " + MIN_TERM_BYTES + " to "
                    + MAX_TERM_BYTES + ", not " + termBytes);
        }
    }

    /**
     * @param options the configuration values; absent keys take their defaults
     * @return the parsed options
     * @throws IllegalArgumentException naming the key and the value when a value is invalid
     */
    static AeronIpcOptions parse(Map<String, String> options) {
        Map<String, String> o = options == null ? Map.of() : options;
        return new AeronIpcOptions(directory(o.get(DIR)), termBytes(o.get(TERM_BYTES)), driverIdle(o.get(DRIVER_IDLE)));
    }

    /** @return the default directory: {@code /dev/shm/jccl-aeron-<user>}, or under {@code java.io.tmpdir} */
    static Path defaultDirectory() {
        String user = System.getProperty("user.name", "unknown").replaceAll("[^A-Za-z0-9._-]", "_");
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
                : Path.of(System.getProperty("java.io.tmpdir"));
        return parent.resolve("jccl-aeron-" + user).toAbsolutePath().normalize();
    }

    private static Path directory(String raw) {
        if (raw == null) {
            return defaultDirectory();
        }
        String value = raw.strip();
        if (value.isEmpty()) {
            throw new IllegalArgumentException(DIR + "='" + raw + "' is invalid: it must name a directory");
        }
        Path dir;
        try {
            dir = Path.of(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(DIR + "='" + raw + "' is invalid: " + e.getMessage(), e);
        }
        if (dir.getParent() == null || dir.getFileName() == null) {
            throw new IllegalArgumentException(DIR + "='" + raw + "' is invalid: the root directory cannot hold a"
                    + " media driver (its lock file lives next to the directory)");
        }
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(DIR + "='" + raw + "' is invalid: it exists and is not a directory");
        }
        return dir;
    }

    private static int termBytes(String raw) {
        if (raw == null) {
            return DEFAULT_TERM_BYTES;
        }
        long value;
        try {
            value = Long.parseLong(raw.strip());
        } catch (NumberFormatException e) {
            throw invalidTerm(raw);
        }
        if (Long.bitCount(value) != 1 || value < MIN_TERM_BYTES || value > MAX_TERM_BYTES) {
            throw invalidTerm(raw);
        }
        return (int) value;
    }

    private static IllegalArgumentException invalidTerm(String raw) {
        return new IllegalArgumentException(TERM_BYTES + "='" + raw + "' is invalid: it must be a power of two"
                + " number of bytes from " + MIN_TERM_BYTES + " (1 MiB) to " + MAX_TERM_BYTES + " (1 GiB)");
    }

    private static DriverIdle driverIdle(String raw) {
        if (raw == null) {
            return DriverIdle.BACKOFF;
        }
        return switch (raw.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "backoff" -> DriverIdle.BACKOFF;
            case "spin" -> DriverIdle.SPIN;
            default -> throw new IllegalArgumentException(DRIVER_IDLE + "='" + raw + "' is invalid: it must be"
                    + " backoff or spin");
        };
    }
}
