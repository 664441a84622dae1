package io.jccl.net.aeronipc;

import io.jccl.config.OptionReader;

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
        OptionReader o = OptionReader.of(options);
        int termBytes = (int) o.whole(TERM_BYTES, DEFAULT_TERM_BYTES,
                v -> Long.bitCount(v) == 1 && v >= MIN_TERM_BYTES && v <= MAX_TERM_BYTES,
                "a power of two number of bytes from " + MIN_TERM_BYTES + " (1 MiB) to " + MAX_TERM_BYTES + " (1 GiB)");
        return new AeronIpcOptions(directory(o), termBytes, o.choice(DRIVER_IDLE, DriverIdle.BACKOFF,
                DriverIdle.class));
    }

    /** @return the default directory: {@code /dev/shm/jccl-aeron-<user>}, or under {@code java.io.tmpdir} */
    static Path defaultDirectory() {
        String user = System.getProperty("user.name", "unknown").replaceAll("[^A-Za-z0-9._-]", "_");
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
                : Path.of(System.getProperty("java.io.tmpdir"));
        return parent.resolve("jccl-aeron-" + user).toAbsolutePath().normalize();
    }

    private static Path directory(OptionReader o) {
        if (!o.isSet(DIR)) {
            return defaultDirectory();
        }
        String value = o.string(DIR, null);
        if (value.isEmpty()) {
            throw o.invalid(DIR, "a directory");
        }
        Path dir;
        try {
            dir = Path.of(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw o.because(DIR, e.getMessage());
        }
        if (dir.getParent() == null || dir.getFileName() == null) {
            throw o.because(DIR, "the root directory cannot hold a media driver (its lock file lives next to the"
                    + " directory)");
        }
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw o.because(DIR, "it exists and is not a directory");
        }
        return dir;
    }
}
