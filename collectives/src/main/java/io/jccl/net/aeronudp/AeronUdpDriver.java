package io.jccl.net.aeronudp;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.NetException;
import io.jccl.net.aeron.AeronDriver;
import io.jccl.net.aeron.EmbeddedDrivers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;

/**
 * The embedded media driver of this JVM for aeron-udp, and its one Aeron client.
 *
 * <p>UDP needs no driver shared between processes, so every JVM runs its own ({@link ThreadingMode#SHARED}: one
 * daemon thread, backoff idle) in a directory of its own, {@code jccl-aeron-udp-<user>-<pid>-<n>} under
 * {@code /dev/shm} (or {@code java.io.tmpdir}): no election, no lock, and a JVM's death takes its driver with it,
 * which is exactly what its peers must notice. Socket buffers, the receive window and the peer timeouts are
 * driver-wide, so each distinct combination of them gets a driver; a driver lives until the JVM exits (a shutdown
 * hook closes it and deletes its directory). Directories left behind by killed JVMs are deleted when the next
 * driver starts.
 */
final class AeronUdpDriver extends AeronDriver {
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, AeronUdpDriver.class);
    private static final Map<String, AeronUdpDriver> DRIVERS = new HashMap<>();
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final long PUBLICATION_LINGER_NS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * How long a sender ignores repeated NAKs for a range it retransmitted: Aeron's 60 ms default turns a lost
     * retransmission into a 60 ms stall; 2 ms is still several loopback round trips.
     */
    private static final long RETRANSMIT_LINGER_NS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final ThreadFactory DAEMONS = EmbeddedDrivers.daemons("jccl-aeron-udp-driver");

    private final MediaDriver driver;

    private AeronUdpDriver(Path directory, MediaDriver driver, Aeron aeron) {
        super(directory, aeron);
        this.driver = driver;
    }

    /** @return the driver for these options, started on first use */
    static synchronized AeronUdpDriver acquire(AeronUdpOptions options) {
        String key = options.socketBufferBytes() + "/" + options.peerTimeoutMs();
        AeronUdpDriver existing = DRIVERS.get(key);
        if (existing != null && !existing.aeron.isClosed()) {
            return existing;
        }
        AeronUdpDriver started = start(options);
        DRIVERS.put(key, started);
        return started;
    }

    private static AeronUdpDriver start(AeronUdpOptions options) {
        Path parent = parent();
        String prefix = "jccl-aeron-udp-" + System.getProperty("user.name", "unknown")
                .replaceAll("[^A-Za-z0-9._]", "_") + "-";
        deleteStale(parent, prefix);
        Path dir = parent.resolve(prefix + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet());
        long peerTimeoutNs = TimeUnit.MILLISECONDS.toNanos(options.peerTimeoutMs());
        MediaDriver driver = null;
        try {
            MediaDriver.Context ctx = EmbeddedDrivers.sharedContext(dir.toString(), new BackoffIdleStrategy(64, 16,
                            TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1)), DAEMONS)
                    .socketSndbufLength(options.socketBufferBytes())
                    .socketRcvbufLength(options.socketBufferBytes())
                    .initialWindowLength(options.socketBufferBytes())
                    .imageLivenessTimeoutNs(peerTimeoutNs)
                    .publicationConnectionTimeoutNs(peerTimeoutNs)
                    .publicationLingerTimeoutNs(PUBLICATION_LINGER_NS)
                    .retransmitUnicastLingerNs(RETRANSMIT_LINGER_NS)
                    .errorHandler(e -> LOG.warn("aeron-udp media driver error", e));
            driver = MediaDriver.launch(ctx);
            Aeron aeron = Aeron.connect(new Aeron.Context()
                    .aeronDirectoryName(dir.toString())
                    .threadFactory(DAEMONS)
                    .idleStrategy(new SleepingMillisIdleStrategy(1))
                    .errorHandler(e -> LOG.warn("aeron-udp Aeron client error in {}", dir, e)));
            AeronUdpDriver started = new AeronUdpDriver(dir, driver, aeron);
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "jccl-aeron-udp-driver-shutdown"));
            LOG.debug("started the aeron-udp media driver in {}", dir);
            return started;
        } catch (RuntimeException e) {
            if (driver != null) {
                driver.close();
            }
            throw new NetException(NetException.Reason.IO_ERROR, "cannot start the aeron-udp media driver in " + dir
                    + ": " + e, e);
        }
    }

    private static Path parent() {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Deletes the driver directories of this user's processes that are gone (killed before their hook ran). */
    private static void deleteStale(Path parent, String prefix) {
        try (Stream<Path> entries = Files.list(parent)) {
            entries.filter(p -> p.getFileName().toString().startsWith(prefix)).forEach(p -> {
                String rest = p.getFileName().toString().substring(prefix.length());
                int dash = rest.indexOf('-');
                if (dash <= 0 || !rest.substring(0, dash).matches("[0-9]{1,18}")) {
                    return;
                }
                long pid = Long.parseLong(rest.substring(0, dash));
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    return;
                }
                try (Stream<Path> tree = Files.walk(p)) {
                    tree.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                } catch (IOException | RuntimeException ignored) {
                    // another JVM may be deleting it too
                }
            });
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot look for stale aeron-udp driver directories in {}: {}", parent, e.toString());
        }
    }

    private void close() {
        try {
            aeron.close();
        } finally {
            driver.close();
        }
    }
}
