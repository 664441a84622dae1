package io.jccl;

import io.jccl.config.InvalidOptionException;
import io.jccl.config.OptionReader;
import io.jccl.core.CommFactory;
import io.jccl.log.LogSettings;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Settings for a communicator. Every setting is a {@code JCCL_*} option: a value set here wins over the
 * environment variable of the same name, which wins over the default. Values are checked when set and again
 * when the communicator starts (environment values), with errors that name the option and the value.
 *
 * <table>
 * <caption>Options</caption>
 * <tr><th>Option</th><th>Default</th><th>Meaning</th></tr>
 * <tr><td>{@code JCCL_OP_TIMEOUT_MS}</td><td>300000</td><td>longest an operation may run once started; 0 = no limit</td></tr>
 * <tr><td>{@code JCCL_INIT_TIMEOUT_MS}</td><td>120000</td><td>longest communicator creation (rendezvous + connections) may take</td></tr>
 * <tr><td>{@code JCCL_PEER_TIMEOUT_MS}</td><td>20000</td><td>a peer not heard from for this long is declared dead
 * (heartbeats every fifth of it); 0 turns liveness checks off</td></tr>
 * <tr><td>{@code JCCL_ALGO}</td><td>auto</td><td>all-reduce algorithm: auto, ring, tree, rd</td></tr>
 * <tr><td>{@code JCCL_CHUNK_SIZE}</td><td>0 (tuner)</td><td>pipeline chunk in bytes (suffixes K, M allowed), 4K to 64M</td></tr>
 * <tr><td>{@code JCCL_NET}</td><td>(automatic)</td><td>force one transport for every pair of ranks, e.g. {@code tcp}</td></tr>
 * <tr><td>{@code JCCL_MAX_PENDING_OPS}</td><td>1024</td><td>operations queued per communicator before callers wait</td></tr>
 * <tr><td>{@code JCCL_SPIN_US}</td><td>auto: 100 with more cores than ranks on the host, 20 with as many, else 0</td><td>how long the
 * communicator's thread busy-polls for peers while an operation runs before it parks; 0 to 1000000</td></tr>
 * <tr><td>{@code JCCL_IDLE_SPIN_US}</td><td>auto: 50 with more cores than ranks on the host, else 0</td><td>how
 * long the communicator's thread polls its queue after an operation, and a caller of {@code await()} polls for
 * completion, before parking; 0 to 1000000</td></tr>
 * <tr><td>{@code JCCL_YIELD_US}</td><td>auto: 200 with fewer cores than ranks on the host, else 0</td><td>how long a
 * caller of {@code await()} goes on driving its operation after the spin, giving up its core between passes
 * ({@code sched_yield}), before it hands over and blocks; 0 to 1000000</td></tr>
 * <tr><td>{@code JCCL_WARMUP_MS}</td><td>2000</td><td>at most how long a new communicator whose ranks span processes
 * runs all-reduces among its ranks before it is returned, so that the JIT has compiled the data path before the
 * first real operation; it ends sooner once the JIT is quiet, the ranks agree on when to stop (the longest wish
 * wins), and a JVM spends it only once across its communicators; 0 to 60000</td></tr>
 * <tr><td>{@code JCCL_SOCKET_IFNAME}</td><td>(not docker*, not lo*)</td><td>interfaces for sockets, NCCL syntax: prefix, {@code ^} exclude, {@code =} exact</td></tr>
 * <tr><td>{@code JCCL_SOCKET_FAMILY}</td><td>(IPv4 first)</td><td>AF_INET or AF_INET6</td></tr>
 * <tr><td>{@code JCCL_MEMORY}</td><td>auto</td><td>memory domain for device buffers: host, hip, cuda or auto (the
 * best available); read by {@code io.jccl.memory.MemoryDomains} (module jccl-gpu-memory)</td></tr>
 * </table>
 *
 * <p>{@code JCCL_DEBUG} and {@code JCCL_DEBUG_SUBSYS} (logging, {@link io.jccl.log.JcclLog}) apply to the whole JVM:
 * they are read from the environment only, and a bad value in the environment fails communicator creation here
 * like any other option.
 *
 * <p>Transports read further options of their own (for example {@code JCCL_SOCKET_BUFFER_BYTES}); set them
 * with {@link Builder#option(String, String)}. They are checked with the others, by every transport on the class
 * path whether or not it will be used ({@link io.jccl.net.NetTransportProvider#checkOptions}), and a bad one fails
 * the same way: {@code INVALID_ARGUMENT} naming the option, its value and what is allowed.
 */
public final class CommConfig {
    /** Longest time an operation may run once started ({@code JCCL_OP_TIMEOUT_MS}). */
    public static final String OP_TIMEOUT_MS = "JCCL_OP_TIMEOUT_MS";
    /** Longest time creating a communicator may take ({@code JCCL_INIT_TIMEOUT_MS}). */
    public static final String INIT_TIMEOUT_MS = "JCCL_INIT_TIMEOUT_MS";
    /** Silence after which a peer is declared dead ({@code JCCL_PEER_TIMEOUT_MS}). */
    public static final String PEER_TIMEOUT_MS = "JCCL_PEER_TIMEOUT_MS";
    /** All-reduce algorithm ({@code JCCL_ALGO}). */
    public static final String ALGO = "JCCL_ALGO";
    /** Pipeline chunk size in bytes ({@code JCCL_CHUNK_SIZE}). */
    public static final String CHUNK_SIZE = "JCCL_CHUNK_SIZE";
    /** Transport forced for every pair ({@code JCCL_NET}). */
    public static final String NET = "JCCL_NET";
    /** Queue bound per communicator ({@code JCCL_MAX_PENDING_OPS}). */
    public static final String MAX_PENDING_OPS = "JCCL_MAX_PENDING_OPS";
    /** Busy-poll time of the communicator's thread waiting on peers within an operation ({@code JCCL_SPIN_US}). */
    public static final String SPIN_US = "JCCL_SPIN_US";
    /** Busy-poll time between operations and in {@code await()} ({@code JCCL_IDLE_SPIN_US}). */
    public static final String IDLE_SPIN_US = "JCCL_IDLE_SPIN_US";
    /** How long a waiting caller drives yielding its core between passes, after the spin ({@code JCCL_YIELD_US}). */
    public static final String YIELD_US = "JCCL_YIELD_US";
    /** Warm-up at creation of a communicator spanning processes ({@code JCCL_WARMUP_MS}). */
    public static final String WARMUP_MS = "JCCL_WARMUP_MS";
    /** Memory domain for device buffers ({@code JCCL_MEMORY}): host, hip, cuda or auto. */
    public static final String MEMORY = "JCCL_MEMORY";
    /** The HIP runtime library ({@code io.jccl.memory.hip}); JVM-wide, so the builder refuses it. */
    private static final String HIP_LIBRARY_VARIABLE = "JCCL_HIP_LIBRARY";
    /** The {@link #MEMORY} values, {@code auto} (the best available domain) first. */
    public static final java.util.List<String> MEMORY_DOMAINS = java.util.List.of("auto", "host", "hip", "cuda");

    /** The defaults: nothing set, so environment variables and built-in defaults apply. */
    public static final CommConfig DEFAULT = new CommConfig(Map.of());

    static final long DEFAULT_OP_TIMEOUT_MS = 300_000;
    static final long DEFAULT_INIT_TIMEOUT_MS = 120_000;
    static final long DEFAULT_PEER_TIMEOUT_MS = 20_000;
    /** Below this a heartbeat interval (a fifth of the timeout) would cost more than it protects. */
    static final long MIN_PEER_TIMEOUT_MS = 100;
    static final int DEFAULT_MAX_PENDING_OPS = 1024;
    static final long DEFAULT_WARMUP_MS = 2000;
    static final long MAX_WARMUP_MS = 60_000;
    /**
     * {@link Resolved#spinMicros()}, {@link Resolved#idleSpinMicros()} and {@link Resolved#yieldMicros()} when not set:
     * chosen per host.
     */
    public static final long SPIN_AUTO = -1;
    static final long MAX_SPIN_US = 1_000_000;
    static final long MIN_CHUNK_BYTES = 4096;
    static final long MAX_CHUNK_BYTES = 64L << 20;

    private final Map<String, String> options;

    private CommConfig(Map<String, String> options) {
        this.options = Collections.unmodifiableMap(new TreeMap<>(options));
    }

    /** @return a builder starting from no explicit settings */
    public static Builder builder() {
        return new Builder(Map.of());
    }

    /** @return a builder starting from this configuration's settings */
    public Builder toBuilder() {
        return new Builder(options);
    }

    /** @return the options set explicitly (not those from the environment) */
    public Map<String, String> options() {
        return options;
    }

    /**
     * Merges the environment under the explicit settings and checks every known option, the transports' too.
     *
     * @param environment the process environment (or a test's)
     * @return the effective settings
     * @throws JcclException INVALID_ARGUMENT naming the option, its value, what is allowed and where it came from
     */
    public Resolved resolve(Map<String, String> environment) {
        Map<String, String> merged = new TreeMap<>();
        for (Map.Entry<String, String> e : environment.entrySet()) {
            if (e.getKey().startsWith("JCCL_")) {
                merged.put(e.getKey(), e.getValue());
            }
        }
        merged.putAll(options);
        checked(merged, LogSettings.DEBUG_VARIABLE,
                () -> LogSettings.parseLevel(merged.get(LogSettings.DEBUG_VARIABLE)));
        checked(merged, LogSettings.SUBSYS_VARIABLE,
                () -> LogSettings.parseSubsystems(merged.get(LogSettings.SUBSYS_VARIABLE)));
        OptionReader o = OptionReader.of(merged).withSource(this::sourceOf);
        Resolved resolved;
        try {
            resolved = new Resolved(
                    Duration.ofMillis(o.longValue(OP_TIMEOUT_MS, DEFAULT_OP_TIMEOUT_MS, 0, Long.MAX_VALUE,
                            "milliseconds")),
                    Duration.ofMillis(o.longValue(INIT_TIMEOUT_MS, DEFAULT_INIT_TIMEOUT_MS, 0, Long.MAX_VALUE,
                            "milliseconds")),
                    Duration.ofMillis(peerTimeoutMs(o)),
                    algorithm(o),
                    chunkBytes(o),
                    blankToNull(merged.get(NET)),
                    maxPendingOps(o),
                    spinMicros(o, SPIN_US),
                    spinMicros(o, IDLE_SPIN_US),
                    spinMicros(o, YIELD_US),
                    memory(o),
                    Duration.ofMillis(warmupMs(o)),
                    Collections.unmodifiableMap(merged));
        } catch (InvalidOptionException e) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), e);
        }
        checkTransports(merged);
        return resolved;
    }

    /** @return where the value of {@code key} came from, for messages */
    private String sourceOf(String key) {
        return options.containsKey(key) ? "set in CommConfig" : "from the environment";
    }

    /**
     * Checks {@code JCCL_NET} and every transport's options (those of transports this communicator may never use
     * too, so that a bad setting fails alike on every host and whatever transports a job ends up with).
     */
    private void checkTransports(Map<String, String> merged) {
        try {
            CommFactory.checkTransportOptions(merged);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            // The providers' messages start with the option's name: KEY='value' is invalid: ...
            String key = e instanceof InvalidOptionException invalid ? invalid.key()
                    : merged.keySet().stream().filter(k -> message.startsWith(k + "=")).findFirst().orElse(null);
            String source = key == null ? "" : " (" + sourceOf(key) + ")";
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, message + source, e);
        }
    }

    /** Parses one option; a bad value fails naming the option, its value and where it came from. */
    private <T> T checked(Map<String, String> merged, String key, java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            if (!message.contains(key)) {
                message = key + "='" + merged.get(key) + "': " + message;
            }
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, message + " (" + sourceOf(key) + ")", e);
        }
    }

    /**
     * The effective settings of a communicator.
     *
     * @param opTimeout      longest time an operation may run once started; {@link Duration#ZERO} = no limit
     * @param initTimeout    longest time creation may take
     * @param peerTimeout    silence after which a peer is declared dead; {@link Duration#ZERO} = never
     * @param algorithm      forced all-reduce algorithm, or {@link Algorithm#AUTO}
     * @param chunkSizeBytes forced chunk size, or 0 for the tuner's choice
     * @param transport      forced transport name, or null
     * @param maxPendingOps  queue bound per communicator
     * @param spinMicros     how long the communicator's thread busy-polls for peers within an operation before it
     *                       parks, or {@link #SPIN_AUTO}
     * @param idleSpinMicros how long the communicator's thread polls for the next operation, and a caller of
     *                       {@code await()} for completion, before parking, or {@link #SPIN_AUTO}
     * @param yieldMicros    how long a caller waiting in {@code await()} goes on driving after its spin, yielding its
     *                       core between passes, before it blocks, or {@link #SPIN_AUTO}
     * @param memory         the memory domain for device buffers: one of {@link #MEMORY_DOMAINS}, {@code auto}
     *                       when not set
     * @param warmup         how long this rank wants a new communicator spanning processes to warm its data path
     *                       before it is returned; {@link Duration#ZERO} = not at all
     * @param options        every {@code JCCL_*} option in effect, for transports
     */
    public record Resolved(Duration opTimeout, Duration initTimeout, Duration peerTimeout, Algorithm algorithm, long chunkSizeBytes,
                           String transport, int maxPendingOps, long spinMicros, long idleSpinMicros, long yieldMicros,
                           String memory, Duration warmup, Map<String, String> options) {
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim().toLowerCase(Locale.ROOT);
    }

    private static long peerTimeoutMs(OptionReader o) {
        return o.whole(PEER_TIMEOUT_MS, DEFAULT_PEER_TIMEOUT_MS, ms -> ms == 0 || ms >= MIN_PEER_TIMEOUT_MS,
                "0 (off) or a whole number of milliseconds, at least " + MIN_PEER_TIMEOUT_MS);
    }

    private static Algorithm algorithm(OptionReader o) {
        String v = o.raw(ALGO);
        if (v == null) {
            return Algorithm.AUTO;
        }
        try {
            return Algorithm.parse(v);
        } catch (IllegalArgumentException e) {
            throw o.invalid(ALGO, "one of auto, ring, tree, rd");
        }
    }

    private static long chunkBytes(OptionReader o) {
        return o.bytes(CHUNK_SIZE, 0, MIN_CHUNK_BYTES, MAX_CHUNK_BYTES);
    }

    private static int maxPendingOps(OptionReader o) {
        return o.intValue(MAX_PENDING_OPS, DEFAULT_MAX_PENDING_OPS, 1, 1 << 20);
    }

    private static String memory(OptionReader o) {
        return o.choice(MEMORY, "auto", MEMORY_DOMAINS);
    }

    private static long spinMicros(OptionReader o, String key) {
        return o.longValue(key, SPIN_AUTO, 0, MAX_SPIN_US, "microseconds");
    }

    private static long warmupMs(OptionReader o) {
        return o.longValue(WARMUP_MS, DEFAULT_WARMUP_MS, 0, MAX_WARMUP_MS, "milliseconds");
    }

    /**
     * Parses a byte count with an optional binary suffix: {@code 4096}, {@code 512K}, {@code 64M}, {@code 1G}.
     *
     * @param text the text
     * @return the number of bytes
     * @throws IllegalArgumentException when it is not such a number, or overflows
     * @see OptionReader#parseBytes
     */
    public static long parseBytes(String text) {
        return OptionReader.parseBytes(text);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommConfig c && c.options.equals(options);
    }

    @Override
    public int hashCode() {
        return options.hashCode();
    }

    @Override
    public String toString() {
        return "CommConfig" + options;
    }

    /** Builds a {@link CommConfig}; every setter checks its value at once. */
    public static final class Builder {
        private final Map<String, String> options;

        private Builder(Map<String, String> initial) {
            this.options = new TreeMap<>(initial);
        }

        /**
         * @param timeout longest time an operation may run once started; zero means no limit
         * @return this builder
         */
        public Builder opTimeout(Duration timeout) {
            return millis(OP_TIMEOUT_MS, timeout);
        }

        /**
         * @param timeout silence after which a peer is declared dead (heartbeats go every fifth of it); zero
         *                turns liveness checks off; otherwise at least 100 ms
         * @return this builder
         */
        public Builder peerTimeout(Duration timeout) {
            millis(PEER_TIMEOUT_MS, timeout);
            return option(PEER_TIMEOUT_MS, options.get(PEER_TIMEOUT_MS));   // checks the 100 ms floor
        }

        /**
         * @param timeout longest time communicator creation (rendezvous and connections) may take
         * @return this builder
         */
        public Builder initTimeout(Duration timeout) {
            return millis(INIT_TIMEOUT_MS, timeout);
        }

        /**
         * @param algorithm the all-reduce algorithm to force, or {@link Algorithm#AUTO}
         * @return this builder
         */
        public Builder algorithm(Algorithm algorithm) {
            Objects.requireNonNull(algorithm, "algorithm");
            options.put(ALGO, algorithm.name().toLowerCase(Locale.ROOT));
            return this;
        }

        /**
         * @param chunkSizeBytes the pipeline chunk size to force (4 KiB to 64 MiB), or 0 for the tuner's choice
         * @return this builder
         */
        public Builder chunkSizeBytes(long chunkSizeBytes) {
            if (chunkSizeBytes == 0) {
                options.remove(CHUNK_SIZE);
                return this;
            }
            return checkedPut("chunkSizeBytes", CHUNK_SIZE, Long.toString(chunkSizeBytes), CommConfig::chunkBytes);
        }

        /**
         * @param name the transport to use for every pair of ranks (e.g. {@code tcp}), or null for automatic
         * @return this builder
         */
        public Builder transport(String name) {
            if (name == null) {
                options.remove(NET);
            } else {
                if (name.isBlank()) {
                    throw JcclException.invalidArgument("transport name is blank");
                }
                options.put(NET, name.trim().toLowerCase(Locale.ROOT));
            }
            return this;
        }

        /**
         * @param memory the memory domain for device buffers ({@code host}, {@code hip}, {@code cuda}, or
         *               {@code auto} for the best available), or null for the environment's choice
         * @return this builder
         */
        public Builder memory(String memory) {
            if (memory == null) {
                options.remove(MEMORY);
                return this;
            }
            return checkedPut("memory", MEMORY, memory, CommConfig::memory);
        }

        /**
         * @param maxPendingOps how many operations may wait in a communicator's queue before callers block
         * @return this builder
         */
        public Builder maxPendingOps(int maxPendingOps) {
            return checkedPut("maxPendingOps", MAX_PENDING_OPS, Integer.toString(maxPendingOps),
                    CommConfig::maxPendingOps);
        }

        /**
         * @param spin how long the communicator's thread busy-polls for its peers while an operation runs before it
         *             parks (0 to 1 s, microsecond resolution); zero parks after a few polls
         * @return this builder
         */
        public Builder spin(Duration spin) {
            return micros(SPIN_US, "spin", spin);
        }

        /**
         * @param spin how long the communicator's thread polls for the next operation after one finished, and a
         *             caller of {@code await()} polls for completion, before parking (0 to 1 s)
         * @return this builder
         */
        public Builder idleSpin(Duration spin) {
            return micros(IDLE_SPIN_US, "idleSpin", spin);
        }

        /**
         * @param yieldTime how long a caller waiting in {@code await()} goes on driving its operation after the spin,
         *                  giving up its core between passes, before it hands over and blocks (0 to 1 s): on a host
         *                  with fewer cores than ranks the peer a rank waits for then gets the core at once, with no
         *                  wake-up to pay
         * @return this builder
         */
        public Builder yieldTime(Duration yieldTime) {
            return micros(YIELD_US, "yieldTime", yieldTime);
        }

        /**
         * @param warmup how long a new communicator whose ranks span processes runs small operations among its ranks
         *               before it is returned, so that the JIT compiles the data path first (0 to 60 s, millisecond
         *               resolution); zero turns it off on this rank (the ranks still agree on one end: the longest
         *               wish wins)
         * @return this builder
         */
        public Builder warmup(Duration warmup) {
            Objects.requireNonNull(warmup, "warmup");
            long ms = warmup.isNegative() ? -1 : warmup.compareTo(Duration.ofMillis(MAX_WARMUP_MS)) > 0
                    ? MAX_WARMUP_MS + 1 : warmup.toMillis();
            return checkedPut("warmup", WARMUP_MS, Long.toString(ms), CommConfig::warmupMs);
        }

        private Builder micros(String key, String what, Duration d) {
            Objects.requireNonNull(d, what);
            long us = d.isNegative() ? -1 : d.compareTo(Duration.ofSeconds(2)) > 0 ? MAX_SPIN_US + 1
                    : d.toNanos() / 1000;
            return checkedPut(what, key, Long.toString(us), o -> spinMicros(o, key));
        }

        /**
         * Puts {@code key=value} once {@code read} (the environment's check) accepts it, as {@code read} returns it.
         *
         * @param what the builder method's parameter, which the message names first
         */
        private Builder checkedPut(String what, String key, String value,
                                   java.util.function.Function<OptionReader, ?> read) {
            Object checked;
            try {
                checked = read.apply(OptionReader.of(Map.of(key, value)));
            } catch (InvalidOptionException e) {
                throw JcclException.invalidArgument(what + ": " + e.getMessage());
            }
            options.put(key, String.valueOf(checked));
            return this;
        }

        /**
         * Sets any {@code JCCL_*} option, overriding the environment variable of the same name.
         *
         * @param key   the option name, starting with {@code JCCL_}
         * @param value its value; null removes the setting
         * @return this builder
         */
        public Builder option(String key, String value) {
            if (key == null || !key.startsWith("JCCL_") || key.length() == 5) {
                throw JcclException.invalidArgument("option name must start with JCCL_, got '" + key + "'");
            }
            if (key.equals(LogSettings.DEBUG_VARIABLE) || key.equals(LogSettings.SUBSYS_VARIABLE)) {
                throw JcclException.invalidArgument(key + " applies to the whole JVM, not one communicator: set the "
                        + "environment variable (or call io.jccl.log.JcclLog.configure)");
            }
            if (key.equals(HIP_LIBRARY_VARIABLE)) {
                throw JcclException.invalidArgument(key + " applies to the whole JVM (the HIP runtime is loaded once): "
                        + "set the environment variable or -Djccl.hip.library");
            }
            if (value == null) {
                options.remove(key);
            } else {
                options.put(key, value);
                try {
                    new CommConfig(Map.of(key, value)).resolve(Map.of());
                } catch (JcclException e) {
                    options.remove(key);
                    throw e;
                }
            }
            return this;
        }

        private Builder millis(String key, Duration d) {
            Objects.requireNonNull(d, key);
            if (d.isNegative()) {
                throw JcclException.invalidArgument(key + " must not be negative, got " + d);
            }
            options.put(key, Long.toString(d.toMillis()));
            return this;
        }

        /** @return the configuration */
        public CommConfig build() {
            return new CommConfig(options);
        }
    }
}
