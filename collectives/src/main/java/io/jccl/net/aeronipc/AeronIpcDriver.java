package io.jccl.net.aeronipc;

import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.driver.MediaDriver;
import io.jccl.net.NetException;
import io.jccl.net.aeron.AeronDriver;
import io.jccl.net.aeron.EmbeddedDrivers;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;

/**
 * The media driver of one directory as this JVM sees it: the Aeron client all of this JVM's aeron-ipc transports share,
 * and, in the one JVM per host that won the election, the embedded {@link MediaDriver} itself.
 *
 * <h2>Election</h2>
 * An OS file lock on {@code <dir>.lock}, next to the directory, decides who hosts the driver. The JVM whose
 * {@link FileChannel#tryLock()} succeeds writes its pid into the lock file, starts the driver with
 * {@code dirDeleteOnStart} (whatever an earlier owner left behind is stale: the OS releases a dead process's lock,
 * even after SIGKILL, so a free lock means no live driver) and holds the lock for as long as the driver runs. The
 * others wait, within the connect timeout, for a driver heartbeat in the directory and connect as clients.
 *
 * <h2>Lifetime</h2>
 * A driver lives until its JVM exits: other JVMs may depend on it long after this JVM's own transports closed. A
 * shutdown hook closes it and deletes the directory. A client is shared by reference count: the first transport
 * of the JVM connects it, the last one to close closes it. A client whose driver died (its owner's pid is gone,
 * or Aeron closed the client) is discarded by the next {@link #acquire}, which runs the election again, so
 * transports created after a crash start or join a fresh driver.
 */
final class AeronIpcDriver extends AeronDriver {
    private static final Logger LOG = JcclLog.logger(Subsystem.SHM, AeronIpcDriver.class);
    /** Aeron client: how long without a driver heartbeat before the client gives up (Aeron's default). */
    static final long DRIVER_TIMEOUT_MS = 10_000;
    /** Driver: how long a client may go without a keepalive before its resources are released (Aeron's default). */
    static final long CLIENT_LIVENESS_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    /** Driver: how long a closed publication's log lingers; short, logs are large and nothing retransmits on IPC. */
    static final long PUBLICATION_LINGER_NS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How often at most the owner process's liveness is looked up (one read of /proc). */
    static final long LIVENESS_CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final Map<Path, AeronIpcDriver> DRIVERS = new HashMap<>();
    private static final ThreadFactory DAEMONS = EmbeddedDrivers.daemons("jccl-aeron-ipc-driver");

    private final MediaDriver driver;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final long ownerPid;
    private final ProcessHandle owner;
    private int references;
    private volatile long lastCheckNs;
    private volatile boolean ownerDead;

    private AeronIpcDriver(Path directory, Aeron aeron, MediaDriver driver, FileChannel lockChannel, FileLock lock,
                      long ownerPid) {
        super(directory, aeron);
        this.driver = driver;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.ownerPid = ownerPid;
        this.owner = ownerPid > 0 ? ProcessHandle.of(ownerPid).orElse(null) : null;
        this.ownerDead = ownerPid > 0 && owner == null;
    }

    /**
     * Takes a reference to the driver of {@code options.directory()}, electing, starting or joining one as needed.
     *
     * @param options   the transport's options
     * @param timeoutNs how long to wait for another JVM's driver
     * @return the driver, referenced once more
     * @throws NetException with {@link NetException.Reason#IO_ERROR} when no driver can be started or joined
     */
    static synchronized AeronIpcDriver acquire(AeronIpcOptions options, long timeoutNs) {
        Path dir = options.directory();
        AeronIpcDriver current = DRIVERS.get(dir);
        if (current != null) {
            if (current.usable()) {
                current.references++;
                return current;
            }
            LOG.warn("the aeron-ipc media driver of {} (pid {}) is gone; electing a new one", dir, current.ownerPid);
            DRIVERS.remove(dir);
            current.discard();
        }
        AeronIpcDriver started = start(options, timeoutNs);
        started.references = 1;
        DRIVERS.put(dir, started);
        return started;
    }

    /** Drops a reference; the last one closes the client (a driver this JVM hosts keeps running). */
    void release() {
        synchronized (AeronIpcDriver.class) {
            if (--references > 0) {
                return;
            }
            if (driver == null || DRIVERS.get(directory) != this) {
                DRIVERS.remove(directory, this);
                discard();
            }
        }
    }

    /**
     * For tests: stops the driver this JVM hosts for {@code directory} once no transport uses it.
     *
     * @return true when a driver was stopped
     */
    static boolean shutdownIfUnused(Path directory) {
        synchronized (AeronIpcDriver.class) {
            AeronIpcDriver d = DRIVERS.get(directory.toAbsolutePath().normalize());
            if (d == null || d.references > 0) {
                return false;
            }
            DRIVERS.remove(d.directory);
            d.discard();
            return true;
        }
    }

    /** @return whether this JVM hosts the driver */
    boolean hostsDriver() {
        return driver != null;
    }

    /** @return the pid of the process that hosts the driver, or -1 when unknown */
    long ownerPid() {
        return ownerPid;
    }

    /** @return false once the client is closed or the driver's host process is known to be gone */
    boolean usable() {
        return !aeron.isClosed() && ownerAlive(System.nanoTime());
    }

    /**
     * Rate-limited: looks the owner process up at most every {@link #LIVENESS_CHECK_INTERVAL_NS}.
     *
     * @param nowNs the current {@link System#nanoTime()}
     * @return false once the process hosting the driver is known to be gone
     */
    boolean ownerAlive(long nowNs) {
        if (driver != null || owner == null) {
            return !ownerDead;
        }
        if (!ownerDead && nowNs - lastCheckNs > LIVENESS_CHECK_INTERVAL_NS) {
            lastCheckNs = nowNs;
            ownerDead = !owner.isAlive();
        }
        return !ownerDead;
    }

    private void discard() {
        try {
            aeron.close();
        } catch (RuntimeException e) {
            LOG.debug("closing the Aeron client of {} failed", directory, e);
        }
        if (driver != null) {
            try {
                driver.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the aeron-ipc media driver of {} failed", directory, e);
            }
            releaseLock(lockChannel, lock);
        }
    }

    private static AeronIpcDriver start(AeronIpcOptions options, long timeoutNs) {
        Path dir = options.directory();
        Path lockPath = dir.resolveSibling(dir.getFileName() + ".lock");
        FileChannel channel;
        try {
            Files.createDirectories(dir.getParent());
            channel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new NetException(NetException.Reason.IO_ERROR, "cannot open the aeron-ipc driver lock file " + lockPath
                    + " (" + AeronIpcOptions.DIR + "): " + e, e);
        }
        long startNs = System.nanoTime();
        String lastProblem = "no driver heartbeat";
        while (true) {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (IOException | OverlappingFileLockException e) {
                closeQuietly(channel);
                throw new NetException(NetException.Reason.IO_ERROR, "cannot lock " + lockPath + ": " + e, e);
            }
            if (lock != null) {
                return host(options, channel, lock);
            }
            long ownerPid = readOwnerPid(channel);
            // The owner writes its pid only once its driver runs, so a live pid means a live driver. A dead pid
            // means the lock changed hands and the new owner is still starting: the directory then holds the dead
            // driver's files, whose heartbeat can look fresh for a while, so joining it now would hang.
            boolean ownerAlive = ownerPid > 0 && ProcessHandle.of(ownerPid).map(ProcessHandle::isAlive).orElse(false);
            if (!ownerAlive) {
                lastProblem = ownerPid > 0 ? "its owner pid " + ownerPid + " is gone and no new owner has a driver up"
                        : "its owner has not started a driver yet";
            } else if (CommonContext.isDriverActive(dir.toFile(), DRIVER_TIMEOUT_MS, message -> { })) {
                try {
                    Aeron aeron = Aeron.connect(clientContext(dir, Math.max(1000,
                            TimeUnit.NANOSECONDS.toMillis(timeoutNs - (System.nanoTime() - startNs)))));
                    closeQuietly(channel);
                    LOG.debug("joined the aeron-ipc media driver of {} hosted by pid {}", dir, ownerPid);
                    return new AeronIpcDriver(dir, aeron, null, null, null, ownerPid);
                } catch (RuntimeException e) {
                    lastProblem = "connecting to it failed: " + e;
                }
            }
            if (System.nanoTime() - startNs > timeoutNs) {
                closeQuietly(channel);
                throw new NetException(NetException.Reason.IO_ERROR, "no aeron-ipc media driver in " + dir + " after "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) + " ms: its lock " + lockPath
                        + " is held by pid " + ownerPid + " but " + lastProblem);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static AeronIpcDriver host(AeronIpcOptions options, FileChannel channel, FileLock lock) {
        Path dir = options.directory();
        long pid = ProcessHandle.current().pid();
        MediaDriver driver = null;
        try {
            channel.truncate(0);   // the dead owner's pid must not be read while this driver starts
            channel.force(false);
            IdleStrategy idle = options.driverIdle() == AeronIpcOptions.DriverIdle.SPIN ? new BusySpinIdleStrategy()
                    : new BackoffIdleStrategy(64, 16, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
            MediaDriver.Context ctx = EmbeddedDrivers.sharedContext(dir.toString(), idle, DAEMONS)
                    .clientLivenessTimeoutNs(CLIENT_LIVENESS_TIMEOUT_NS)
                    .publicationLingerTimeoutNs(PUBLICATION_LINGER_NS)
                    .errorHandler(e -> LOG.warn("aeron-ipc media driver error", e));
            driver = MediaDriver.launch(ctx);
            channel.write(ByteBuffer.wrap((pid + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            channel.force(false);
            Aeron aeron = Aeron.connect(clientContext(dir, DRIVER_TIMEOUT_MS));
            AeronIpcDriver hosted = new AeronIpcDriver(dir, aeron, driver, channel, lock, pid);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                synchronized (AeronIpcDriver.class) {
                    if (DRIVERS.get(dir) == hosted) {
                        DRIVERS.remove(dir);
                        hosted.discard();
                    }
                }
            }, "jccl-aeron-ipc-driver-shutdown"));
            LOG.debug("hosting the aeron-ipc media driver of {}", dir);
            return hosted;
        } catch (IOException | RuntimeException e) {
            if (driver != null) {
                driver.close();
            }
            releaseLock(channel, lock);
            throw new NetException(NetException.Reason.IO_ERROR, "cannot start the aeron-ipc media driver in " + dir
                    + " (" + AeronIpcOptions.DIR + "): " + e, e);
        }
    }

    private static Aeron.Context clientContext(Path dir, long driverTimeoutMs) {
        return new Aeron.Context()
                .aeronDirectoryName(dir.toString())
                .driverTimeoutMs(Math.max(driverTimeoutMs, DRIVER_TIMEOUT_MS))
                .threadFactory(DAEMONS)
                // The client's thread only handles driver responses and keepalives; 1 ms is quick enough for setup.
                .idleStrategy(new SleepingMillisIdleStrategy(1))
                .errorHandler(e -> LOG.warn("aeron-ipc Aeron client error in {}", dir, e));
    }

    private static long readOwnerPid(FileChannel channel) {
        try {
            ByteBuffer buf = ByteBuffer.allocate(32);
            int n = channel.read(buf, 0);
            if (n <= 0) {
                return -1;
            }
            String text = new String(buf.array(), 0, n, StandardCharsets.US_ASCII).strip();
            return Optional.of(text).filter(s -> s.matches("[0-9]{1,18}")).map(Long::parseLong).orElse(-1L);
        } catch (IOException e) {
            return -1;
        }
    }

    private static void releaseLock(FileChannel channel, FileLock lock) {
        try {
            if (lock != null) {
                lock.release();
            }
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public String toString() {
        return "aeron-ipc media driver " + directory + (driver != null ? " (hosted here)" : " (pid " + ownerPid + ")");
    }
}
