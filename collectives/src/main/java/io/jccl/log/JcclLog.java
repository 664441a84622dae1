package io.jccl.log;

import java.io.IOException;
import java.io.InputStream;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where every JCCL class gets its logger, and the process-wide {@code JCCL_DEBUG} / {@code JCCL_DEBUG_SUBSYS}
 * settings behind them, read once from the environment when this class is first used.
 *
 * <pre>{@code
 * private static final Logger LOG = JcclLog.logger(Subsystem.NET, TcpListener.class);
 * }</pre>
 *
 * <p>The logger keeps the class's name, so the SLF4J backend's configuration (logback, log4j, slf4j-simple) applies
 * to it as to any logger, after the gate; its messages start with the subsystem, e.g. {@code [NET] }. A bad value of
 * either variable leaves the defaults in force here, logs a warning, and fails communicator creation with
 * {@code INVALID_ARGUMENT} naming it ({@code CommConfig.resolve}).
 */
public final class JcclLog {
    private static final Logger VERSION_LOG = LoggerFactory.getLogger(JcclLog.class);
    private static final AtomicBoolean VERSION_LOGGED = new AtomicBoolean();
    private static final String VERSION = readVersion();
    private static volatile LogSettings settings = LogSettings.DEFAULT;

    static {
        try {
            settings = LogSettings.fromEnvironment(System.getenv());
        } catch (IllegalArgumentException e) {
            VERSION_LOG.warn("[INIT] {}; logging warnings only", e.getMessage());
        }
    }

    private JcclLog() {
    }

    /**
     * The logger of a JCCL class.
     *
     * @param subsystem the subsystem its messages belong to
     * @param owner     the class; the logger has its name
     * @return a logger whose TRACE, DEBUG and INFO pass only when {@code JCCL_DEBUG} and {@code JCCL_DEBUG_SUBSYS}
     *         ask for them, and then only as far as the backend allows
     */
    public static Logger logger(Subsystem subsystem, Class<?> owner) {
        return logger(EnumSet.of(subsystem), owner);
    }

    /**
     * The logger of a JCCL class whose messages belong to several subsystems (as NCCL's {@code INFO(NCCL_INIT|NCCL_NET,
     * ...)}): a message below WARN passes when any of them is selected.
     *
     * @param subsystems one or more subsystems
     * @param owner      the class; the logger has its name
     * @return the gated logger
     */
    public static Logger logger(Set<Subsystem> subsystems, Class<?> owner) {
        Objects.requireNonNull(owner, "owner");
        if (subsystems.isEmpty()) {
            throw new IllegalArgumentException("a logger needs at least one subsystem");
        }
        int mask = 0;
        StringJoiner prefix = new StringJoiner("|", "[", "] ");
        for (Subsystem s : subsystems) {
            mask |= s.bit();
            prefix.add(s.name());
        }
        return new GatedLogger(LoggerFactory.getLogger(owner), mask, prefix.toString());
    }

    /** @return the settings in force */
    public static LogSettings settings() {
        return settings;
    }

    /** The settings for the loggers' checks: one volatile read. */
    static LogSettings current() {
        return settings;
    }

    /**
     * Re-reads {@code JCCL_DEBUG} and {@code JCCL_DEBUG_SUBSYS} from {@code environment}, for tests and for programs
     * that cannot set the process environment. Loggers already handed out follow at once.
     *
     * @param environment the variables (others are ignored)
     * @return the settings now in force
     * @throws IllegalArgumentException for a bad value, naming the variable; the settings stay as they were
     */
    public static LogSettings configure(Map<String, String> environment) {
        LogSettings s = LogSettings.fromEnvironment(environment);
        settings = s;
        return s;
    }

    /** Puts {@code s} in force (tests). */
    static void configure(LogSettings s) {
        settings = Objects.requireNonNull(s);
    }

    /** @return JCCL's version, from the build, or {@code unknown} */
    public static String version() {
        return VERSION;
    }

    /**
     * Logs the version line ({@code [INIT] JCCL version ...}, SLF4J INFO) the first time it is called with
     * {@code JCCL_DEBUG} at VERSION or above, whatever {@code JCCL_DEBUG_SUBSYS} says, as NCCL does. Communicator
     * creation calls it.
     */
    public static void logVersionOnce() {
        if (settings.level().compareTo(DebugLevel.VERSION) >= 0 && VERSION_LOG.isInfoEnabled()
                && VERSION_LOGGED.compareAndSet(false, true)) {
            VERSION_LOG.info("[INIT] JCCL version {} (Java {}, {} {})", VERSION, Runtime.version(),
                    System.getProperty("os.name"), System.getProperty("os.arch"));
        }
    }

    private static String readVersion() {
        try (InputStream in = JcclLog.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version", "");
                if (!v.isBlank() && !v.contains("${")) {
                    return v;
                }
            }
        } catch (IOException e) {
            // Fall through.
        }
        String v = JcclLog.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }
}
