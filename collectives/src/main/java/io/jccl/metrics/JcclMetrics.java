package io.jccl.metrics;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.plan.OpKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * JCCL's Micrometer metrics: per-collective timers ({@code jccl.collective}) and byte counters
 * ({@code jccl.collective.bytes}) tagged {@code collective}, {@code type}, {@code algorithm} and {@code transport},
 * plus what {@link MetricsExtension}s on the class path add (the MetaRoCE transport's per-path gauges and counters).
 * The meters are listed in docs/metrics.md.
 *
 * <pre>{@code
 * MeterRegistry registry = ...;
 * new JcclMetrics().bindTo(registry);                  // every communicator of this JVM
 * JcclMetrics.of(communicator).bindTo(otherRegistry);  // or one communicator
 * }</pre>
 *
 * <p>The executors report each finished operation through {@link OperationListener}; this class turns a report
 * into one {@link Timer#record(long, TimeUnit)} and one {@link Counter#increment(double)} on meters it created on
 * the first operation of that tag combination and keeps in an array indexed by (collective, type, algorithm,
 * transport). After that first operation nothing is allocated and no lock is taken.
 */
public final class JcclMetrics implements MeterBinder, OperationListener, AutoCloseable {
    /** Distinct algorithm (and transport) names tracked; further names share the last slot, tagged {@code other}. */
    static final int MAX_NAMES = 16;
    private static final OpKind[] KINDS = OpKind.values();
    private static final int TYPES = DataType.values().length + 1;   // + none (barrier)

    private final Communicator only;
    private final AtomicReferenceArray<Meters> meters =
            new AtomicReferenceArray<>(KINDS.length * TYPES * MAX_NAMES * MAX_NAMES);
    private volatile String[] algorithms = new String[0];
    private volatile String[] transports = new String[0];
    private final List<MetricsExtension> extensions = new ArrayList<>();
    private volatile MeterRegistry registry;
    private boolean closed;

    /** Metrics of every communicator of this JVM, once {@link #bindTo(MeterRegistry) bound}. */
    public JcclMetrics() {
        this(null);
    }

    private JcclMetrics(Communicator only) {
        this.only = only;
    }

    /**
     * Metrics of one communicator only (its collective meters; extensions still report the JVM's transports).
     *
     * @param communicator a communicator JCCL made
     * @return an unbound binder
     */
    public static JcclMetrics of(Communicator communicator) {
        return new JcclMetrics(Objects.requireNonNull(communicator, "communicator"));
    }

    /**
     * Starts reporting into {@code registry}: registers this binder as an operation listener and binds the
     * extensions found on the class path. One registry per binder (use a composite registry for several).
     *
     * @throws IllegalStateException when already bound or closed
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (this.registry != null || closed) {
            throw new IllegalStateException(closed ? "closed" : "already bound to a registry");
        }
        this.registry = registry;
        for (MetricsExtension e : ServiceLoader.load(MetricsExtension.class, JcclMetrics.class.getClassLoader())) {
            e.bindTo(registry);
            extensions.add(e);
        }
        if (only == null) {
            OperationListeners.register(this);
        } else {
            OperationListeners.register(only, this);
        }
    }

    /** Lets the extensions register meters for transports, connections and paths that appeared since binding. */
    public synchronized void refresh() {
        for (MetricsExtension e : extensions) {
            e.refresh();
        }
    }

    /** Stops reporting; the meters stay in the registry with their last values. */
    @Override
    public synchronized void close() {
        closed = true;
        if (registry == null) {
            return;
        }
        if (only == null) {
            OperationListeners.unregister(this);
        } else {
            OperationListeners.unregister(only, this);
        }
    }

    @Override
    public void operationCompleted(Communicator communicator, OpKind kind, DataType type, String algorithm,
                                   String transport, long bytes, long durationNs) {
        int a = index(algorithms, algorithm, false);
        int t = index(transports, transport, true);
        int i = ((kind.ordinal() * TYPES + (type == null ? 0 : type.ordinal() + 1)) * MAX_NAMES + a) * MAX_NAMES + t;
        Meters m = meters.get(i);
        if (m == null) {
            m = create(i, kind, type, algorithms, a, transports, t);
        }
        m.timer.record(durationNs, TimeUnit.NANOSECONDS);
        if (bytes > 0) {
            m.bytes.increment(bytes);
        }
    }

    /** The slot of {@code name} in the names seen so far (adding it once, on the slow path). */
    private int index(String[] names, String name, boolean transport) {
        for (int i = 0; i < names.length; i++) {
            String n = names[i];
            if (n == name || n.equals(name)) {
                return i;
            }
        }
        return names.length == MAX_NAMES ? MAX_NAMES - 1 : add(name, transport);
    }

    private synchronized int add(String name, boolean transport) {
        String[] names = transport ? transports : algorithms;
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        if (names.length == MAX_NAMES) {
            return MAX_NAMES - 1;
        }
        String[] next = java.util.Arrays.copyOf(names, names.length + 1);
        next[names.length] = names.length == MAX_NAMES - 1 ? "other" : name;
        if (transport) {
            transports = next;
        } else {
            algorithms = next;
        }
        return names.length;
    }

    private synchronized Meters create(int i, OpKind kind, DataType type, String[] algorithmNames, int a,
                                       String[] transportNames, int t) {
        Meters m = meters.get(i);
        if (m != null) {
            return m;
        }
        Tags tags = Tags.of("collective", collectiveTag(kind), "type", typeTag(type),
                "algorithm", algorithmNames[a], "transport", transportNames[t]);
        Timer timer = Timer.builder("jccl.collective")
                .description("JCCL operations completed: time from the executor taking one up to its data movement "
                        + "finishing")
                .tags(tags).register(registry);
        Counter bytes = Counter.builder("jccl.collective.bytes")
                .description("Bytes of completed JCCL operations (count x element size, x ranks for all-gather, "
                        + "reduce-scatter, all-to-all)")
                .baseUnit("bytes").tags(tags).register(registry);
        m = new Meters(timer, bytes);
        meters.set(i, m);
        return m;
    }

    /** The {@code collective} tag: the API's name ({@code allReduce}, ...), {@code sendRecv} for point-to-point. */
    static String collectiveTag(OpKind kind) {
        return kind == OpKind.P2P ? "sendRecv" : kind.apiName();
    }

    /** The {@code type} tag: the data type in lower case ({@code float32}), {@code none} without one. */
    static String typeTag(DataType type) {
        return type == null ? "none" : type.name().toLowerCase(Locale.ROOT);
    }

    private record Meters(Timer timer, Counter bytes) {
    }
}
