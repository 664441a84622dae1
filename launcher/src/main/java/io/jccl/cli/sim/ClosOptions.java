package io.jccl.cli.sim;

import io.jccl.CommConfig;
import io.jccl.cli.bench.Json;
import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.ClosRun;
import io.jccl.metaroce.sim.dc.Flows;
import io.jccl.metaroce.sim.dc.EngineHosts;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The options every datacenter-fabric simulation shares ({@code jccl sim permutation}, {@code incast}). */
public final class ClosOptions {
    @Option(names = "--hosts", defaultValue = "128", description = "Hosts. Default: ${DEFAULT-VALUE}.")
    int hosts;

    @Option(names = "--tiers", defaultValue = "3", description = "2 (leaf-spine) or 3 (ToR, aggregation, core). "
            + "Default: ${DEFAULT-VALUE}.")
    int tiers;

    @Option(names = "--radix", description = "Switch radix k (even). Default: the smallest whose fat tree holds "
            + "--hosts.")
    Integer radix;

    @Option(names = "--oversubscription", defaultValue = "1", description = "Hosts per ToR uplink. "
            + "Default: ${DEFAULT-VALUE}.")
    int oversubscription;

    @Option(names = "--planes", defaultValue = "1", description = "Parallel planes; a host has a NIC port in each. "
            + "Default: ${DEFAULT-VALUE}.")
    int planes;

    @Option(names = "--flow-bytes", defaultValue = "2M", description = "Bytes per flow (K/M/G suffixes). "
            + "Default: ${DEFAULT-VALUE}.")
    String flowBytes;

    @Option(names = "--link-gbps", defaultValue = "400", description = "Every link's rate, Gbit/s. "
            + "Default: ${DEFAULT-VALUE}.")
    double linkGbps;

    @Option(names = "--link-delay-ns", defaultValue = "500", description = "Propagation delay per link, ns. "
            + "Default: ${DEFAULT-VALUE}.")
    long linkDelayNs;

    @Option(names = "--mtu", defaultValue = "4096", description = "Wire size of a full packet, bytes. "
            + "Default: ${DEFAULT-VALUE}.")
    int mtu;

    @Option(names = "--queue-bytes", defaultValue = "1M", description = "Output buffer per switch port. "
            + "Default: ${DEFAULT-VALUE}.")
    String queueBytes;

    @Option(names = "--ecn-bytes", defaultValue = "200K", description = "ECN marking threshold per port (0: off). "
            + "Default: ${DEFAULT-VALUE}.")
    String ecnBytes;

    @Option(names = "--loss", defaultValue = "0", description = "Random loss of data packets, 0 to <1 (on the last "
            + "link, so the end-to-end rate is this; --loss-every-link: on each link). Default: ${DEFAULT-VALUE}.")
    double loss;

    @Option(names = "--loss-every-link", description = "Apply --loss on every link instead of the last.")
    boolean lossEveryLink;

    @Option(names = "--protocol", defaultValue = "metaroce", description = "The hosts' transport: metaroce (the "
            + "production MetaRoCE engine), roce (the RoCEv2 baseline: go-back-N, one path per connection, no "
            + "congestion control; its receive buffers are real memory) or ideal (line rate, per-packet spraying, "
            + "oracle loss recovery: the bound). Default: ${DEFAULT-VALUE}.")
    String protocol;

    @Option(names = "--payload", defaultValue = "auto", description = "metaroce: checked (every flow's own bytes, "
            + "each placed byte compared), shared (one buffer for all flows, for large fabrics; the engines' CRCs "
            + "still check every packet) or auto (checked up to " + CHECKED_UP_TO_HOSTS + " hosts). "
            + "Default: ${DEFAULT-VALUE}.")
    String payload;

    @Option(names = "--rto-floor-us", description = "metaroce: the shortest retransmission timeout, us. Default: "
            + "10 (the datacenter tuning; the engine's own default is 50).")
    Double rtoFloorUs;

    @Option(names = "--delayed-ack-us", description = "metaroce: the longest a receiver holds an ACK, us. Default: 2 "
            + "(the engine's own: 20).")
    Double delayedAckUs;

    @Option(names = "--initial-window", description = "metaroce: packets per path before the first ACK (1-256). "
            + "Default: 16 (the engine's own: 4).")
    Integer initialWindow;

    @Option(names = "--timeline-us", description = "Data delivered to hosts per bucket of this many us, as Gbit/s "
            + "(timelineGbps in the JSON); with one --fail, the throughput before the failure, its dip and the time "
            + "until it is back to 90%% of what the remaining planes carry (failure in the JSON).")
    Double timelineUs;

    /** Hosts up to which {@code --payload auto} checks every byte. */
    static final int CHECKED_UP_TO_HOSTS = 256;

    @Option(names = "--fail", description = "A plane fails (plane:K@TIME) or comes back (plane:K+@TIME); TIME in "
            + "ns, us, ms or s. Repeatable.")
    List<String> failures = new ArrayList<>();

    @Option(names = "--seed", defaultValue = "1", description = "Seed of every random choice (workload, loss). "
            + "Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--until-us", defaultValue = "1000000", description = "Virtual-time limit, us; flows not done "
            + "by then are reported unfinished. Default: ${DEFAULT-VALUE}.")
    double untilUs;

    @Option(names = "--json", description = "Print one JSON object instead of the report line.")
    boolean json;

    @Option(names = "--progress", negatable = true, description = "A progress line on the terminal (default: when "
            + "stderr is a terminal and not --json).")
    Boolean progress;

    /** Created by picocli. */
    public ClosOptions() {
    }

    /** @return the fabric these options describe; a bad value is a usage error naming it */
    ClosConfig config(CommandSpec spec) {
        try {
            int k = radix != null ? radix : ClosConfig.radixFor(tiers, oversubscription, hosts);
            long queue = CommConfig.parseBytes(queueBytes);
            long ecn = CommConfig.parseBytes(ecnBytes);
            return new ClosConfig(tiers, k, oversubscription, planes, hosts, linkGbps, linkDelayNs, queue, ecn, loss,
                    lossEveryLink);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    long flowBytes(CommandSpec spec) {
        try {
            long b = CommConfig.parseBytes(flowBytes);
            if (b < 1) {
                throw new IllegalArgumentException("--flow-bytes must be at least 1, not " + flowBytes);
            }
            return b;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** Runs {@code flows} over {@code config} and prints the report; exit 0 when every flow finished, else 1. */
    int runAndReport(CommandSpec spec, String simulation, ClosConfig config, Flows flows) {
        ClosRun.Protocol p;
        ClosRun.Payload pay;
        EngineHosts.Tuning tuning;
        List<ClosRun.PlaneEvent> events = new ArrayList<>();
        try {
            p = switch (protocol.toLowerCase(Locale.ROOT)) {
                case "ideal" -> ClosRun.Protocol.IDEAL;
                case "metaroce" -> ClosRun.Protocol.METAROCE;
                case "roce" -> ClosRun.Protocol.ROCE;
                default -> throw new IllegalArgumentException("--protocol must be metaroce, roce or ideal, not '"
                        + protocol + "'");
            };
            pay = switch (payload.toLowerCase(Locale.ROOT)) {
                case "checked" -> ClosRun.Payload.CHECKED;
                case "shared" -> ClosRun.Payload.SHARED;
                case "auto" -> config.hosts() <= CHECKED_UP_TO_HOSTS ? ClosRun.Payload.CHECKED : ClosRun.Payload.SHARED;
                default -> throw new IllegalArgumentException("--payload must be checked, shared or auto, not '"
                        + payload + "'");
            };
            EngineHosts.Tuning d = EngineHosts.Tuning.DATACENTER;
            tuning = new EngineHosts.Tuning(rtoFloorUs != null ? micros(rtoFloorUs, "--rto-floor-us") : d.rtoFloorNs(),
                    delayedAckUs != null ? micros(delayedAckUs, "--delayed-ack-us") : d.delayedAckNs(),
                    initialWindow != null ? initialWindow : d.initialWindowPackets());
            if (timelineUs != null && (!(timelineUs > 0) || timelineUs > 1e6)) {
                throw new IllegalArgumentException("--timeline-us must be in (0, 1e6], not " + timelineUs);
            }
            int minMtu = p == ClosRun.Protocol.IDEAL ? io.jccl.metaroce.sim.dc.IdealSprayHost.HEADER_BYTES + 1
                    : EngineHosts.MIN_MTU_BYTES;
            int maxMtu = p == ClosRun.Protocol.IDEAL ? 65536 : EngineHosts.MAX_MTU_BYTES;
            if (mtu < minMtu || mtu > maxMtu) {
                throw new IllegalArgumentException("--mtu must be in " + minMtu + "-" + maxMtu + " for " + protocol
                        + ", not " + mtu);
            }
            if (!(untilUs > 0) || untilUs > 1e12) {
                throw new IllegalArgumentException("--until-us must be in (0, 1e12], not " + untilUs);
            }
            for (String f : failures) {
                ClosRun.PlaneEvent e = ClosRun.PlaneEvent.parse(f);
                if (e.plane() >= config.planes()) {
                    throw new IllegalArgumentException("--fail " + f + ": plane " + e.plane() + " is not in 0-"
                            + (config.planes() - 1));
                }
                events.add(e);
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        boolean showProgress = progress != null ? progress : System.console() != null && !json;
        long startNs = System.nanoTime();
        long bucketPs = timelineUs == null ? 0 : Math.max(1, Math.round(timelineUs * 1e6));
        ClosRun.Report r = ClosRun.run(config, flows, p, pay, tuning, mtu, Math.round(untilUs * 1e6), seed, events,
                bucketPs,
                showProgress ? n -> System.err.printf(Locale.ROOT, "\r%d M events, %.1f s", n >> 20,
                        (System.nanoTime() - startNs) / 1e9) : null);
        if (showProgress) {
            System.err.println();
        }
        if (json) {
            Json j = new Json().beginObject()
                    .field("simulation", simulation)
                    .field("protocol", protocol.toLowerCase(Locale.ROOT))
                    .field("hosts", r.hosts())
                    .field("tiers", config.tiers())
                    .field("radix", config.radix())
                    .field("planes", config.planes())
                    .field("flows", r.flows())
                    .field("flowBytes", flows.count() > 0 ? flows.bytes(0) : 0)
                    .field("linkGbps", config.linkGbps())
                    .field("mtu", mtu)
                    .field("loss", config.lossProbability())
                    .field("payload", p == ClosRun.Protocol.IDEAL ? "none" : pay.name().toLowerCase(Locale.ROOT))
                    .field("seed", seed)
                    .field("wallSeconds", r.wallSeconds())
                    .field("events", r.events())
                    .field("eventsPerSecond", r.eventsPerSecond())
                    .field("simulatedUs", r.simulatedUs())
                    .field("meanFctUs", r.meanFctUs())
                    .field("p99FctUs", r.p99FctUs())
                    .field("maxFctUs", r.maxFctUs())
                    .field("unfinishedFlows", r.unfinishedFlows())
                    .field("retransmissions", r.retransmissions())
                    .field("tailDrops", r.tailDrops())
                    .field("randomLosses", r.randomLosses())
                    .field("failureDrops", r.failureDrops())
                    .field("ecnMarks", r.ecnMarks())
                    .field("maxQueueBytes", r.maxQueueBytes())
                    .field("peakPackets", r.peakPackets())
                    .field("peakHeapBytes", r.peakHeapBytes())
                    .field("wrongBytes", r.wrongBytes())
                    .field("maxRssBytes", r.maxRssBytes())
                    .field("jobUs", r.jobUs());
            if (simulation.equals("allreduce") && r.jobUs() > 0) {
                // The all-reduce's size per host: N chunks of the flows' size (the last may be padded).
                double perHost = (double) flows.bytes(0) * r.hosts();
                double algBw = perHost / (r.jobUs() * 1e3);
                j.field("algBwGBps", algBw).field("busBwGBps", algBw * 2 * (r.hosts() - 1) / r.hosts());
            }
            if (bucketPs > 0) {
                j.beginArray("timelineGbps");
                for (double g : r.timelineGbps()) {
                    j.element(g);
                }
                j.endArray();
                List<ClosRun.PlaneEvent> downs = events.stream().filter(ClosRun.PlaneEvent::down).toList();
                if (downs.size() == 1) {
                    FailureDip dip = FailureDip.of(r.timelineGbps(), bucketPs, downs.get(0).atPs(), config.planes());
                    j.beginObject("failure").field("atUs", downs.get(0).atPs() / 1e6)
                            .field("beforeGbps", dip.beforeGbps()).field("dipGbps", dip.dipGbps())
                            .field("recoveredAfterUs", dip.recoveredAfterUs()).endObject();
                }
            }
            System.out.println(j.endObject());
        } else {
            System.out.println("# " + simulation + ", " + protocol.toLowerCase(Locale.ROOT) + ", " + config.tiers()
                    + "-tier radix " + config.radix() + ", " + config.planes() + " plane(s): " + r);
        }
        return r.unfinishedFlows() == 0 && r.wrongBytes() == 0 ? 0 : 1;
    }

    private static long micros(double us, String option) {
        if (!(us > 0) || us > 1e9) {
            throw new IllegalArgumentException(option + " must be in (0, 1e9] us, not " + us);
        }
        return Math.max(1, Math.round(us * 1000));
    }
}
