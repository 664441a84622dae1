package io.jccl.metaroce.metrics;

import io.jccl.metaroce.net.MetaRoceNetTransport;
import io.jccl.metaroce.net.MetaRoceNetTransport.PathView;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.path.PathState;
import io.jccl.metaroce.protocol.path.SenderPath;
import io.jccl.metrics.MetricsExtension;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The MetaRoCE transport's meters: per path ({@code jccl.metaroce.path.*} gauges: smoothed RTT, congestion window,
 * ECN-marked fraction, state) and per transport ({@code jccl.metaroce.retransmissions} and
 * {@code jccl.metaroce.drops} by reason, {@code jccl.metaroce.path.events} and {@code jccl.metaroce.timer.events}
 * by event, {@code jccl.metaroce.connections.dead}, {@code jccl.metaroce.bytes.sent}). Every value is polled from
 * {@link MetaRoceNetTransport}'s read-only snapshot API when the registry is read; nothing here runs on the data
 * path. {@link io.jccl.metrics.JcclMetrics} finds this class through {@link java.util.ServiceLoader}; meters of
 * transports, connections and paths that appear later are added by {@link #refresh()}, and those of closed
 * transports removed.
 */
public final class MetaRoceMetrics implements MetricsExtension {
    private MeterRegistry registry;
    /** Meters registered per transport, to remove them when it closes. */
    private final Map<MetaRoceNetTransport, List<Meter>> byTransport = new HashMap<>();
    /** Paths with meters: transport instance, endpoint, connection, path. */
    private final Set<String> pathsSeen = new HashSet<>();

    /** For the ServiceLoader; bind with {@link io.jccl.metrics.JcclMetrics} or {@link #bindTo(MeterRegistry)}. */
    public MetaRoceMetrics() {
    }

    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        this.registry = registry;
        refresh();
    }

    @Override
    public synchronized void refresh() {
        if (registry == null) {
            return;
        }
        for (var it = byTransport.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!e.getKey().isOpen()) {
                e.getValue().forEach(registry::remove);
                String prefix = e.getKey().instance() + "/";
                pathsSeen.removeIf(k -> k.startsWith(prefix));
                it.remove();
            }
        }
        for (MetaRoceNetTransport t : MetaRoceNetTransport.openTransports()) {
            List<Meter> meters = byTransport.get(t);
            if (meters == null) {
                meters = new ArrayList<>();
                byTransport.put(t, meters);
                transportMeters(t, meters);
            }
            for (PathView p : t.paths()) {
                if (pathsSeen.add(t.instance() + "/" + p.endpoint() + "/" + p.connection() + "/" + p.path())) {
                    pathMeters(t, p, meters);
                }
            }
        }
    }

    private void transportMeters(MetaRoceNetTransport t, List<Meter> meters) {
        Tags tags = transportTags(t);
        retransmissions(t, tags, "sack", Counter.RETRANSMITS_SACK, meters);
        retransmissions(t, tags, "rto", Counter.RETRANSMITS_RTO, meters);
        retransmissions(t, tags, "rerouted", Counter.RETRANSMITS_REROUTED, meters);
        retransmissions(t, tags, "tail", Counter.RETRANSMITS_TAIL, meters);
        for (DropReason r : DropReason.values()) {
            meters.add(FunctionCounter.builder("jccl.metaroce.drops", t, x -> x.drops(r))
                    .description("MetaRoCE datagrams dropped on receipt, by reason").baseUnit("datagrams")
                    .tags(tags).tag("reason", r.name().toLowerCase(Locale.ROOT)).register(registry));
        }
        pathEvent(t, tags, "suspected", Counter.PATHS_SUSPECTED, meters);
        pathEvent(t, tags, "failed", Counter.PATHS_FAILED, meters);
        pathEvent(t, tags, "failure_withheld", Counter.PATH_FAILURES_WITHHELD, meters);
        pathEvent(t, tags, "rerouted", Counter.PATHS_REROUTED, meters);
        pathEvent(t, tags, "rerouted_silent", Counter.PATHS_REROUTED_SILENT, meters);
        pathEvent(t, tags, "readmitted", Counter.PATHS_READMITTED, meters);
        timerEvent(t, tags, "rto_fired", Counter.RTO_FIRINGS, meters);
        timerEvent(t, tags, "rto_deferred_stall", Counter.RTO_DEFERRED_BY_STALL, meters);
        timerEvent(t, tags, "stall_detected", Counter.STALLS_DETECTED, meters);
        meters.add(FunctionCounter.builder("jccl.metaroce.connections.dead", t,
                        x -> x.counter(Counter.CONNECTIONS_DEAD))
                .description("MetaRoCE connections failed after the silence limit (JCCL_METAROCE_DEAD_MS)")
                .baseUnit("connections").tags(tags).register(registry));
        meters.add(FunctionCounter.builder("jccl.metaroce.bytes.sent", t,
                        x -> x.counter(Counter.PAYLOAD_BYTES_SENT))
                .description("MetaRoCE payload bytes sent, retransmissions included").baseUnit("bytes")
                .tags(tags).register(registry));
    }

    private void retransmissions(MetaRoceNetTransport t, Tags tags, String reason, Counter c, List<Meter> meters) {
        meters.add(FunctionCounter.builder("jccl.metaroce.retransmissions", t, x -> x.counter(c))
                .description("MetaRoCE data packets sent again, by what detected the loss").baseUnit("packets")
                .tags(tags).tag("reason", reason).register(registry));
    }

    private void pathEvent(MetaRoceNetTransport t, Tags tags, String event, Counter c, List<Meter> meters) {
        meters.add(FunctionCounter.builder("jccl.metaroce.path.events", t, x -> x.counter(c))
                .description("MetaRoCE path health changes, by event").baseUnit("events")
                .tags(tags).tag("event", event).register(registry));
    }

    private void timerEvent(MetaRoceNetTransport t, Tags tags, String event, Counter c, List<Meter> meters) {
        meters.add(FunctionCounter.builder("jccl.metaroce.timer.events", t, x -> x.counter(c))
                .description("MetaRoCE retransmission timeouts, and those a stall of this host deferred")
                .baseUnit("events").tags(tags).tag("event", event).register(registry));
    }

    private void pathMeters(MetaRoceNetTransport t, PathView p, List<Meter> meters) {
        Tags tags = transportTags(t).and("endpoint", p.endpoint(), "connection", Integer.toString(p.connection()),
                "path", Integer.toString(p.path()));
        SenderPath s = p.sender();
        meters.add(Gauge.builder("jccl.metaroce.path.rtt", s, x -> x.hasRtt() ? x.srttNs() / 1e9 : Double.NaN)
                .description("Smoothed round-trip time of a MetaRoCE path (NaN before the first sample)")
                .baseUnit("seconds").tags(tags).strongReference(true).register(registry));
        meters.add(Gauge.builder("jccl.metaroce.path.window", s, SenderPath::cwnd)
                .description("Congestion window of a MetaRoCE path").baseUnit("packets")
                .tags(tags).strongReference(true).register(registry));
        meters.add(Gauge.builder("jccl.metaroce.path.ecn.fraction", s, SenderPath::ecnFraction)
                .description("Fraction of a MetaRoCE path's acknowledged packets that were ECN-marked")
                .tags(tags).strongReference(true).register(registry));
        for (PathState state : PathState.values()) {
            meters.add(Gauge.builder("jccl.metaroce.path.state", s, x -> x.state() == state ? 1 : 0)
                    .description("1 for the state a MetaRoCE path is in (active, suspect, failed), else 0")
                    .tags(tags).tag("state", state.name().toLowerCase(Locale.ROOT)).strongReference(true)
                    .register(registry));
        }
    }

    private static Tags transportTags(MetaRoceNetTransport t) {
        return Tags.of("rank", Integer.toString(t.rank()), "instance", Integer.toString(t.instance()));
    }
}
