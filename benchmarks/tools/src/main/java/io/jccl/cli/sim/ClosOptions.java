package io.jccl.cli.sim;

import io.jccl.CommConfig;
import io.jccl.cli.bench.Json;
import io.jccl.cli.bench.ReportOutput;
import io.jccl.cli.bench.SeedOption;
import io.jccl.cli.progress.Progress;
import io.jccl.metaroce.sim.dc.ClosConfig;
import io.jccl.metaroce.sim.dc.ClosRun;
import io.jccl.metaroce.sim.dc.Flows;
import io.jccl.metaroce.sim.dc.EngineHosts;
import io.jccl.metaroce.sim.dc.FailureEvent;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

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
            + "link, so the end-to-end rate is this; --loss-every-link: on each link). A comma-separated list runs "
            + "each (with --plot: throughput against loss). Default: ${DEFAULT-VALUE}.")
    String loss;

    @Option(names = "--loss-every-link", description = "Apply --loss on every link instead of the last.")
    boolean lossEveryLink;

    @Option(names = "--protocol", defaultValue = "metaroce", description = "The hosts' transport: metaroce (the "
            + "production MetaRoCE engine), roce (the RoCEv2 baseline: go-back-N, one path per connection, DCQCN rate "
            + "control; its receive buffers are real memory), roce-nocc (the same without congestion control) or "
            + "ideal (line rate, per-packet spraying, oracle loss recovery: the bound). A comma-separated list runs "
            + "each. Default: ${DEFAULT-VALUE}.")
    String protocol;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "Draw a chart: throughput against loss when "
            + "--loss lists several values, else throughput over time with --timeline-us, else the flows' completion "
            + "times as a CDF; one line per protocol.")
    java.nio.file.Path plot;

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
            + "until it is back to 90%% of what is left (of the remaining planes' share for a plane; failure in the "
            + "JSON).")
    Double timelineUs;

    /** Hosts up to which {@code --payload auto} checks every byte. */
    static final int CHECKED_UP_TO_HOSTS = 256;

    @Option(names = "--fail", description = "A part of the fabric fails at a time: plane:K, switch:torI|aggI|coreI, "
            + "link:torI-upU|aggI-upU|hostH (the last two with .pK for plane K; default plane 0), then @TIME in ns, us, "
            + "ms or s (plane:1@200us, switch:core0@1ms, link:tor3-up1.p2@50us); ELEMENT+@TIME brings it back. "
            + "Routing does not converge around it: the transport must move its paths. Repeatable.")
    List<String> failures = new ArrayList<>();

    @Mixin
    SeedOption seed;

    @Option(names = "--until-us", defaultValue = "1000000", description = "Virtual-time limit, us; flows not done "
            + "by then are reported unfinished. Default: ${DEFAULT-VALUE}.")
    double untilUs;

    @Mixin
    ReportOutput output;

    /** Created by picocli. */
    public ClosOptions() {
    }

    /** @return the fabric these options describe; a bad value is a usage error naming it */
    ClosConfig config(CommandSpec spec) {
        try {
            int k = radix != null ? radix : ClosConfig.radixFor(tiers, oversubscription, hosts);
            long queue = CommConfig.parseBytes(queueBytes);
            long ecn = CommConfig.parseBytes(ecnBytes);
            return new ClosConfig(tiers, k, oversubscription, planes, hosts, linkGbps, linkDelayNs, queue, ecn,
                    losses().get(0), lossEveryLink);
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

    /** @return the --loss values, each checked */
    private List<Double> losses() {
        List<Double> values = new ArrayList<>();
        for (String v : loss.split(",")) {
            double p;
            try {
                p = Double.parseDouble(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--loss takes numbers from 0 to below 1, not '" + v.trim() + "'");
            }
            if (!(p >= 0 && p < 1)) {
                throw new IllegalArgumentException("--loss must be in [0, 1), not " + v.trim());
            }
            values.add(p);
        }
        if (values.size() > 64) {
            throw new IllegalArgumentException("--loss lists " + values.size() + " values; at most 64");
        }
        return values;
    }

    private static ClosRun.Protocol protocol(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "ideal" -> ClosRun.Protocol.IDEAL;
            case "metaroce" -> ClosRun.Protocol.METAROCE;
            case "roce" -> ClosRun.Protocol.ROCE;
            case "roce-nocc" -> ClosRun.Protocol.ROCE_NO_CC;
            default -> throw new IllegalArgumentException("--protocol must be metaroce, roce, roce-nocc or ideal, not '"
                    + name.trim() + "'");
        };
    }

    private static String protocolName(ClosRun.Protocol p) {
        return p == ClosRun.Protocol.ROCE_NO_CC ? "roce-nocc" : p.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Runs the workload {@code flows} makes (a fresh one per run) over {@code config}, once per --loss value and
     * protocol, and prints each run's report (JSON: one object per run, one per line); draws --plot at the end.
     *
     * @return 0 when every run finished every flow with every byte right, else 1
     */
    int runAndReport(CommandSpec spec, String simulation, ClosConfig config, Supplier<Flows> flows) {
        List<ClosRun.Protocol> protocols = new ArrayList<>();
        List<Double> lossValues;
        ClosRun.Payload pay;
        EngineHosts.Tuning tuning;
        List<FailureEvent> events = new ArrayList<>();
        Flows first;
        try {
            for (String name : protocol.split(",")) {
                ClosRun.Protocol p = protocol(name);
                if (protocols.contains(p)) {
                    throw new IllegalArgumentException("--protocol names " + protocolName(p) + " twice");
                }
                protocols.add(p);
            }
            lossValues = losses();
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
                    initialWindow != null ? initialWindow : d.initialWindowPackets(), d.rtoMaxNs(),
                    d.connectionDeadNs(), d.probeIntervalNs());
            if (timelineUs != null && (!(timelineUs > 0) || timelineUs > 1e6)) {
                throw new IllegalArgumentException("--timeline-us must be in (0, 1e6], not " + timelineUs);
            }
            for (ClosRun.Protocol p : protocols) {
                int minMtu = p == ClosRun.Protocol.IDEAL ? io.jccl.metaroce.sim.dc.IdealSprayHost.HEADER_BYTES + 1
                        : EngineHosts.MIN_MTU_BYTES;
                int maxMtu = p == ClosRun.Protocol.IDEAL ? 65536 : EngineHosts.MAX_MTU_BYTES;
                if (mtu < minMtu || mtu > maxMtu) {
                    throw new IllegalArgumentException("--mtu must be in " + minMtu + "-" + maxMtu + " for "
                            + protocolName(p) + ", not " + mtu);
                }
            }
            if (!(untilUs > 0) || untilUs > 1e12) {
                throw new IllegalArgumentException("--until-us must be in (0, 1e12], not " + untilUs);
            }
            first = flows.get();   // the workload's own checks (an all-reduce's size against the hosts)
            io.jccl.metaroce.sim.dc.ClosTopology topology = new io.jccl.metaroce.sim.dc.ClosTopology(config);
            for (String f : failures) {
                FailureEvent e = FailureEvent.parse(f);
                e.ports(topology);   // names a part this fabric has
                events.add(e);
            }
            if (plot != null) {
                String name = plot.getFileName() == null ? "" : plot.getFileName().toString();
                java.nio.file.Path dir = plot.toAbsolutePath().getParent();
                if (!name.toLowerCase(Locale.ROOT).endsWith(".png")) {
                    throw new IllegalArgumentException("--plot takes a file name ending in .png, not '" + plot + "'");
                }
                if (dir == null || !java.nio.file.Files.isDirectory(dir)) {
                    throw new IllegalArgumentException("--plot " + plot + ": the directory " + dir + " does not exist");
                }
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        boolean showProgress = output.progressShown();
        long bucketPs = timelineUs == null ? 0 : Math.max(1, Math.round(timelineUs * 1e6));
        int status = 0;
        List<Run> runs = new ArrayList<>();
        for (double lossValue : lossValues) {
            ClosConfig c = config.withLoss(lossValue, lossEveryLink);
            for (ClosRun.Protocol p : protocols) {
                Flows workload = first != null ? first : flows.get();
                first = null;
                ClosRun.Report r;
                try (ProgressBar bar = Progress.bar(protocolName(p) + ", loss " + percent(lossValue),
                        workload.count(), "flows", showProgress)) {
                    r = ClosRun.run(c, workload, p, pay, tuning, mtu, Math.round(untilUs * 1e6), seed.seed(), events,
                            bucketPs, showProgress ? n -> {
                                bar.stepTo(workload.count() - workload.unfinished());
                                bar.setExtraMessage((n >> 20) + " M events");
                            } : null, System::nanoTime);
                    bar.stepTo(workload.count() - r.unfinishedFlows());
                    bar.setExtraMessage((r.events() >> 20) + " M events");
                }
                Run run = new Run(p, lossValue, r, throughputGBps(simulation, workload, r), maxRssBytes());
                runs.add(run);
                print(simulation, c, workload, pay, bucketPs, events, run);
                if (r.unfinishedFlows() != 0 || r.wrongBytes() != 0) {
                    status = 1;
                }
            }
        }
        if (plot != null) {
            try {
                draw(simulation, config, runs, lossValues.size() > 1, bucketPs, events);
            } catch (java.io.IOException | RuntimeException e) {
                System.err.println("jccl sim: could not draw " + plot + ": " + e.getMessage());
                return 1;
            }
        }
        return status;
    }

    /** @return a loss probability as a percentage without trailing zeros: 0.01 is {@code 1%} */
    static String percent(double loss) {
        return new java.math.BigDecimal(Double.toString(loss * 100)).stripTrailingZeros().toPlainString() + "%";
    }

    /** One run of a sweep: its protocol and loss, what it measured, its throughput in GB/s and the peak RSS after it. */
    private record Run(ClosRun.Protocol protocol, double loss, ClosRun.Report report, double throughputGBps,
                       long maxRssBytes) {
    }

    /** @return this process's peak resident set (VmHWM of /proc/self/status), -1 where that is not there */
    static long maxRssBytes() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /**
     * @return an all-reduce's bus bandwidth (2 (N - 1) / N x bytes per host / time, as nccl-tests), else every flow's
     *         bytes over the job's time; GB/s, 0 with flows unfinished
     */
    private static double throughputGBps(String simulation, Flows flows, ClosRun.Report r) {
        if (r.jobUs() <= 0) {
            return 0;
        }
        if (simulation.equals("allreduce")) {
            return algBwGBps(flows, r) * 2 * (r.hosts() - 1) / r.hosts();
        }
        double total = 0;
        for (int f = 0; f < flows.count(); f++) {
            total += flows.bytes(f);
        }
        return total / (r.jobUs() * 1e3);
    }

    /** @return an all-reduce's size per host (N chunks of the flows' size) over its time, GB/s, as nccl-tests */
    private static double algBwGBps(Flows flows, ClosRun.Report r) {
        return (double) flows.bytes(0) * r.hosts() / (r.jobUs() * 1e3);
    }

    private void print(String simulation, ClosConfig config, Flows flows, ClosRun.Payload pay, long bucketPs,
                       List<FailureEvent> events, Run run) {
        ClosRun.Report r = run.report();
        ClosRun.Protocol p = run.protocol();
        if (!output.json()) {
            System.out.println("# " + simulation + ", " + protocolName(p) + ", " + config.tiers() + "-tier radix "
                    + config.radix() + ", " + config.planes() + " plane(s), loss " + config.lossProbability() + ": " + r
                    + String.format(Locale.ROOT, ", throughput %.2f GB/s", run.throughputGBps()));
            return;
        }
        Json j = new Json().beginObject()
                .field("simulation", simulation)
                .field("protocol", protocolName(p))
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
                .field("seed", seed.seed())
                .field("wallSeconds", r.wallSeconds())
                .field("events", r.events())
                .field("eventsPerSecond", r.eventsPerSecond())
                .field("simulatedUs", r.simulatedUs())
                .field("meanFctUs", r.meanFctUs())
                .field("p99FctUs", r.p99FctUs())
                .field("maxFctUs", r.maxFctUs())
                .field("unfinishedFlows", r.unfinishedFlows())
                .field("failedCompletions", r.failedCompletions())
                .field("minGoodputGbps", r.minGoodputGbps())
                .field("medianGoodputGbps", r.medianGoodputGbps())
                .field("retransmissions", r.retransmissions())
                .field("rateCuts", r.rateCuts())
                .field("tailDrops", r.tailDrops())
                .field("randomLosses", r.randomLosses())
                .field("failureDrops", r.failureDrops())
                .field("ecnMarks", r.ecnMarks())
                .field("maxQueueBytes", r.maxQueueBytes())
                .field("meanQueueBytes", r.meanQueueBytes())
                .field("busiestMeanQueueBytes", r.busiestMeanQueueBytes())
                .field("peakPackets", r.peakPackets())
                .field("peakHeapBytes", r.peakHeapBytes())
                .field("wrongBytes", r.wrongBytes())
                .field("maxRssBytes", run.maxRssBytes())
                .field("jobUs", r.jobUs())
                .field("throughputGBps", run.throughputGBps());
        if (simulation.equals("allreduce") && r.jobUs() > 0) {
            j.field("algBwGBps", algBwGBps(flows, r)).field("busBwGBps", run.throughputGBps());
        }
        if (bucketPs > 0) {
            j.beginArray("timelineGbps");
            for (double g : r.timelineGbps()) {
                j.element(g);
            }
            j.endArray();
            List<FailureEvent> downs = events.stream().filter(FailureEvent::down).toList();
            if (downs.size() == 1) {
                FailureEvent down = downs.get(0);
                double share = down.plane() >= 0 ? (config.planes() - 1.0) / config.planes() : 1.0;
                FailureDip dip = FailureDip.of(r.timelineGbps(), bucketPs, down.atPs(), share);
                j.beginObject("failure").field("element", down.element()).field("atUs", down.atPs() / 1e6)
                        .field("beforeGbps", dip.beforeGbps()).field("dipGbps", dip.dipGbps())
                        .field("recoveredAfterUs", dip.recoveredAfterUs()).endObject();
            }
        }
        System.out.println(j.endObject());
    }

    private void draw(String simulation, ClosConfig config, List<Run> runs, boolean againstLoss, long bucketPs,
                      List<FailureEvent> events) throws java.io.IOException {
        String fabric = config.hosts() + " hosts, " + config.tiers() + " tiers, " + config.planes() + " plane(s), "
                + config.linkGbps() + " Gbit/s";
        List<SimPlots.Line> lines = new ArrayList<>();
        java.util.Map<String, Double> markers = new java.util.LinkedHashMap<>();
        java.util.Map<String, double[]> points = new java.util.LinkedHashMap<>();
        if (againstLoss) {
            java.util.Map<ClosRun.Protocol, List<Run>> byProtocol = new java.util.LinkedHashMap<>();
            for (Run run : runs) {
                byProtocol.computeIfAbsent(run.protocol(), k -> new ArrayList<>()).add(run);
            }
            byProtocol.forEach((p, list) -> {
                double[] x = new double[list.size()];
                double[] y = new double[list.size()];
                for (int i = 0; i < list.size(); i++) {
                    x[i] = list.get(i).loss() * 100;
                    y[i] = list.get(i).throughputGBps();
                }
                lines.add(new SimPlots.Line(protocolName(p), x, y));
                if (p == ClosRun.Protocol.METAROCE) {
                    list.stream().filter(r -> r.loss() == 0).findFirst().ifPresent(lossless ->
                            points.put("published: ~86% of lossless at 1% loss",
                                    new double[] {1.0, 0.86 * lossless.throughputGBps()}));
                }
            });
            SimPlots.write(plot, simulation + " throughput against loss (" + fabric + ")", "random loss of data "
                    + "packets, %", simulation.equals("allreduce") ? "bus bandwidth, GB/s" : "throughput, GB/s",
                    lines, markers, points);
        } else if (bucketPs > 0) {
            for (Run run : runs) {
                lines.add(SimPlots.timeline(protocolName(run.protocol()), run.report().timelineGbps(), bucketPs / 1e6));
            }
            for (FailureEvent e : events) {
                markers.put(e.element() + (e.down() ? " fails" : " back"), e.atPs() / 1e6);
            }
            SimPlots.write(plot, simulation + ": data delivered over time (" + fabric + ")", "virtual time, us",
                    "Gbit/s delivered to hosts", lines, markers, points);
        } else {
            for (Run run : runs) {
                lines.add(SimPlots.cdf(protocolName(run.protocol()), run.report().fctUs()));
            }
            SimPlots.write(plot, simulation + ": flow completion times (" + fabric + ")", "flow completion time, us",
                    "share of flows done", lines, markers, points, true);
        }
    }

    private static long micros(double us, String option) {
        if (!(us > 0) || us > 1e9) {
            throw new IllegalArgumentException(option + " must be in (0, 1e9] us, not " + us);
        }
        return Math.max(1, Math.round(us * 1000));
    }
}
