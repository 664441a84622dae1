package io.jccl.cli.bench;

import io.jccl.cli.SelftestCommand;
import io.jccl.cli.progress.TerminalBar;
import io.jccl.metaroce.sim.FabricConfig;
import io.jccl.metaroce.sim.GoBackNConfig;
import io.jccl.metaroce.sim.Protocols;
import io.jccl.metaroce.sim.ScenarioFailure;
import io.jccl.metaroce.udp.IoMethod;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jccl bench transport}: goodput of MetaRoCE and the RoCEv2 go-back-N baseline under loss, through the
 * deterministic fabric simulator, as a table or one JSON object.
 */
@Command(name = "transport", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Transfer --bytes from one node to another through a simulated lossy datacenter",
                "fabric, for each protocol and loss rate, checking every byte; print goodput, its",
                "ratio to the same protocol at loss 0, retransmissions, simulated time and the",
                "simulator's speed. Random loss applies to every route, both ways. Runs are",
                "deterministic: the same --seed gives the same numbers (except wall time).",
                "A transfer posts all its WRITEs (--message-bytes each) at once.",
                "",
                "Default fabric: 100 Gbit/s links; 4 us one-way propagation (NIC-leaf 1,",
                "leaf-spine-leaf 2, leaf-NIC 1); switch ports with 1 MiB buffers (tail drop)",
                "marking ECN above 128 KiB; lossless NIC ports; 64 ECMP routes per node pair;",
                "66 bytes of Ethernet/IPv4/UDP overhead per datagram.",
                ""})
public final class TransportBenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public TransportBenchCommand() {
    }

    @Option(names = "--driver", defaultValue = "sim", description = "sim (the simulator) or udp (real sockets on loopback, "
            + "MetaRoCE against a raw UDP blast)")
    String driver;

    @Option(names = "--io", defaultValue = "auto", description = "with --driver udp: the sockets' I/O method, auto "
            + "(native where available), native (Linux: recvmmsg/sendmmsg batches, UDP GSO/GRO, ECN) or channel "
            + "(DatagramChannel); the raw UDP blast uses the same (default ${DEFAULT-VALUE})")
    String io;

    @Option(names = "--protocol", split = ",", defaultValue = "metaroce,gbn",
            description = "protocols, comma-separated: metaroce, gbn (default ${DEFAULT-VALUE})")
    List<String> protocols;

    @Option(names = "--loss", split = ",", defaultValue = "0,0.01,0.1", converter = LossConverter.class,
            description = "random loss rates per route, comma-separated, as fractions or percentages "
                    + "(default ${DEFAULT-VALUE})")
    List<Double> losses;

    @Mixin
    TransferOptions transfer;

    @Option(names = "--footprint", converter = SelftestCommand.BytesConverter.class,
            description = "with --driver udp: the bytes of memory the WRITEs are sent from and placed into, a multiple "
                    + "of the WRITE size up to --bytes; successive WRITEs reuse it in turn, as a perftest bandwidth "
                    + "test reuses its buffer (default: as large as the transfer, every byte its own)")
    Long footprintBytes;

    @Option(names = "--payload", defaultValue = "4096", description = "payload bytes per packet, 256-65000 "
            + "(default ${DEFAULT-VALUE})")
    int payloadBytes;

    @Mixin
    SeedOption seed;

    @Option(names = "--incast", defaultValue = "0", description = "also run an incast of N senders into one "
            + "receiver for each protocol and loss (0: none)")
    int incast;

    @Mixin
    ReportOutput output;

    @Option(names = "--link-gbps", defaultValue = "100", description = "link rate, Gbit/s (default ${DEFAULT-VALUE})")
    double linkGbps;

    @Option(names = "--delay-us", defaultValue = "4", description = "one-way propagation, us "
            + "(default ${DEFAULT-VALUE})")
    double delayUs;

    @Option(names = "--buffer-kib", defaultValue = "1024", description = "switch port buffer, KiB "
            + "(default ${DEFAULT-VALUE})")
    long bufferKib;

    @Option(names = "--ecn-kib", defaultValue = "128", description = "ECN marking threshold, KiB "
            + "(default ${DEFAULT-VALUE})")
    long ecnKib;

    @Option(names = "--gbn-window", defaultValue = "64", description = "go-back-N window, packets "
            + "(default ${DEFAULT-VALUE})")
    int gbnWindow;

    @Option(names = "--gbn-rto-us", defaultValue = "1000", description = "go-back-N retransmission timeout, us "
            + "(default ${DEFAULT-VALUE})")
    double gbnRtoUs;

    @Option(names = "--rto-floor-us", description = "with --driver udp: the MetaRoCE endpoints' smallest "
            + "retransmission timeout, us, 10-1000000 (default 5000, what the metaroce transport gives a rank, "
            + "JCCL_METAROCE_RTO_FLOOR_US; below the time a thread of this host may be descheduled, timeouts fire on "
            + "healthy paths and goodput measures the spurious retransmissions)")
    Long rtoFloorUs;

    @Option(names = "--time-limit-ms", defaultValue = "60000", description = "virtual-time limit per run, ms "
            + "(default ${DEFAULT-VALUE})")
    long timeLimitMs;

    @Override
    public Integer call() {
        if (driver.equalsIgnoreCase("udp")) {
            return udp(System.out);
        }
        TransportBench.Settings settings = settings();
        PrintStream out = System.out;
        long start = System.nanoTime();
        TransportBench.Report report;
        try (TerminalBar bar = TerminalBar.open("jccl bench transport", TransportBench.runCount(settings), "runs",
                System.err, output.progressShown())) {
            report = TransportBench.run(settings, line -> {
                bar.setExtraMessage(line.substring(0, line.indexOf(':')));
                bar.step();
            });
        } catch (ScenarioFailure f) {
            System.err.println("jccl bench transport: a run failed its checks: " + f.getMessage());
            return 1;
        }
        long wallNs = System.nanoTime() - start;
        if (output.json()) {
            out.println(json(settings, report));
        } else {
            table(out, settings, report, wallNs);
        }
        return 0;
    }

    /**
     * {@code --driver udp}: one MetaRoCE connection over loopback UDP sockets. Without {@code --loss}, directly and
     * against a raw UDP blast; with it, through the impairment relay at each loss rate (and at 0, the reference of
     * the goodput ratio).
     */
    private int udp(PrintStream out) {
        // The sim's defaults (both protocols, three loss rates) do not apply: only what was asked for is checked.
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        for (String p : parsed.hasMatchedOption("--protocol") ? protocols : List.of("metaroce")) {
            if (!p.trim().equalsIgnoreCase("metaroce")) {
                throw usage("--driver udp runs --protocol metaroce only (" + p.trim() + " is a simulator model)");
            }
        }
        boolean relayed = parsed.hasMatchedOption("--loss");
        checkTransferOptions();
        int paths = transfer.paths;
        long bytes = transfer.bytes;
        transfer.checkBytes(1L << 30, "1G with --driver udp");
        if (incast != 0) {
            throw usage("--incast runs on the simulator only (--driver sim)");
        }
        long footprint = footprint();
        IoMethod ioMethod = ioMethod();
        long floorUs = rtoFloorUs == null ? UdpLoopbackBench.DEFAULT_RTO_FLOOR_US : rtoFloorUs;
        if (floorUs < 10 || floorUs > 1_000_000) {
            throw usage("--rto-floor-us must be 10-1000000, got " + floorUs);
        }
        // Through the relay, loss 0 always runs first: the reference of the goodput ratio.
        List<Double> runs = new ArrayList<>(List.of(0.0));
        if (relayed) {
            losses.stream().filter(l -> l != 0).distinct().forEach(runs::add);
        }
        List<UdpLoopbackBench.Result> results = new ArrayList<>();
        try (TerminalBar bar = TerminalBar.open("jccl bench transport", runs.size(), "runs", System.err,
                output.progressShown())) {
            for (double loss : runs) {
                bar.setExtraMessage("loss " + loss);
                results.add(UdpLoopbackBench.run(paths, bytes, transfer.messageBytes, footprint, payloadBytes,
                        relayed ? loss : null, !relayed, ioMethod, floorUs * 1000));
                bar.step();
            }
        } catch (IllegalStateException | UnsupportedOperationException | java.io.UncheckedIOException e) {
            System.err.println("jccl bench transport: " + e.getMessage());
            return 1;
        }
        double reference = results.getFirst().goodputBytesPerSec();
        if (output.json()) {
            Json j = new Json().beginObject().field("driver", "udp").field("relay", relayed ? "yes" : "no")
                    .field("rtoFloorUs", floorUs).field("footprintBytes", footprint)
                    .field("io", results.getFirst().io().name().toLowerCase(Locale.ROOT))
                    .beginArray("results");
            for (int i = 0; i < runs.size(); i++) {
                UdpLoopbackBench.Result r = results.get(i);
                j.beginObject().field("protocol", "metaroce").field("loss", runs.get(i)).field("paths", (long) paths)
                        .field("bytes", bytes).field("goodputBytesPerSec", r.goodputBytesPerSec())
                        .field("goodputRatio", r.goodputBytesPerSec() / reference)
                        .field("retransmits", r.retransmits()).field("datagrams", r.datagramsSent())
                        .field("sendCalls", r.sendCalls()).field("gsoSegments", r.gsoSegmentsSent())
                        .field("gsoMessages", r.gsoMessagesSent())
                        .field("wallNs", r.wallNs());
                if (!relayed) {
                    j.field("rawUdpBytesPerSec", r.rawBytesPerSec()).field("vsRawUdp", r.vsRaw())
                            .field("rawUdpDelivered", r.rawDeliveredShare())
                            .field("rawUdpWindow", r.rawWindow()).field("rawUdpGsoRun", r.rawGsoRun())
                            .field("checkedUdpBytesPerSec", r.checkedBytesPerSec())
                            .field("vsCheckedUdp", r.vsChecked()).field("checkedVsRawUdp", r.checkedVsRaw());
                }
                j.endObject();
            }
            out.println(j.endArray().endObject());
            return 0;
        }
        IoMethod used = results.getFirst().io();
        out.printf(Locale.ROOT, "# JCCL transport benchmark, UDP on loopback%s: %d bytes in %d-byte WRITEs%s, %d-byte "
                + "payloads, %d paths (one socket each), one thread per side, %s, RTO floor %d us%n",
                relayed ? " through the impairment relay (random loss on every path, both ways)" : "", bytes,
                transfer.messageBytesUsed(), footprint == bytes ? "" : " from and into " + footprint
                        + " bytes of memory in turn", payloadBytes, paths, used == IoMethod.NATIVE
                        ? "native I/O (recvmmsg/sendmmsg, UDP GSO/GRO, ECN)" : "DatagramChannel I/O", floorUs);
        out.printf(Locale.ROOT, "# %-9s %5s %5s %11s %14s %7s %11s %9s %12s %8s%n", "protocol", "loss", "paths",
                "bytes", "goodput(GB/s)", "ratio", "retransmits", "wall(ms)", "dgrams/call", "GSO run");
        for (int i = 0; i < runs.size(); i++) {
            UdpLoopbackBench.Result r = results.get(i);
            out.printf(Locale.ROOT, "  %-9s %5.3f %5d %11d %14.3f %7.3f %11d %9.1f %12.1f %8.1f%n", "metaroce",
                    runs.get(i), paths, bytes, r.goodputBytesPerSec() / 1e9, r.goodputBytesPerSec() / reference,
                    r.retransmits(), r.wallNs() / 1e6,
                    r.sendCalls() == 0 ? 0 : (double) r.datagramsSent() / r.sendCalls(), r.gsoRun());
        }
        if (!relayed) {
            UdpLoopbackBench.Result r = results.getFirst();
            out.printf(Locale.ROOT, "  %-9s %5s %5d %11d %14.3f %7s %11s %9s %12s %8.1f  (flow-controlled, at most %d "
                    + "datagrams in flight: %.1f%% of its datagrams arrived)%n", "raw-udp", "-", 1, bytes,
                    r.rawBytesPerSec() / 1e9, "-", "-", "-", "-", r.rawGsoRun(), r.rawWindow(),
                    100 * r.rawDeliveredShare());
            out.printf(Locale.ROOT, "  %-9s %5s %5d %11d %14.3f %7s %11s %9s %12s %8s  (the raw blast plus what "
                    + "checking and placing every byte costs: CRC32C on both sides, sent from and placed into %s)%n",
                    "checked", "-", 1, bytes, r.checkedBytesPerSec() / 1e9, "-", "-", "-", "-", "-",
                    footprint == bytes ? "memory as large as the transfer" : "the same " + footprint + " bytes");
            out.printf(Locale.ROOT, "# MetaRoCE / raw UDP: %.2f (every byte checked); MetaRoCE / checked: %.2f; "
                    + "checked / raw UDP: %.2f%n", r.vsRaw(), r.vsChecked(), r.checkedVsRaw());
        } else {
            out.printf(Locale.ROOT, "# ratio: goodput over the same path through the relay at loss 0 (every byte "
                    + "checked)%n");
        }
        return 0;
    }

    private IoMethod ioMethod() {
        return switch (io.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> IoMethod.AUTO;
            case "native" -> IoMethod.NATIVE;
            case "channel" -> IoMethod.CHANNEL;
            default -> throw usage("--io must be auto, native or channel, not '" + io + "'");
        };
    }

    /** @return {@code --footprint}, checked: the transfer size when not given */
    private long footprint() {
        long bytes = transfer.bytes;
        if (footprintBytes == null) {
            return bytes;
        }
        long message = transfer.messageBytesUsed();
        if (footprintBytes < message || footprintBytes > bytes || footprintBytes % message != 0) {
            throw usage("--footprint must be a multiple of the WRITE size (" + message + " bytes) up to --bytes ("
                    + bytes + "), got " + footprintBytes);
        }
        return footprintBytes;
    }

    /** Checks what shapes a transfer on either driver: paths, message size, payload ({@code --bytes} differs). */
    private void checkTransferOptions() {
        transfer.checkPathsAndMessage();
        OptionChecks.within(spec, "--payload", payloadBytes, 256, 65000);
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    TransportBench.Settings settings() {
        if (!driver.equalsIgnoreCase("sim")) {
            throw usage("--driver must be sim or udp, not '" + driver + "'");
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--io")) {
            throw usage("--io applies to --driver udp only");
        }
        if (rtoFloorUs != null) {
            throw usage("--rto-floor-us applies to --driver udp only (simulated endpoints take the protocol's"
                    + " default)");
        }
        if (footprintBytes != null) {
            throw usage("--footprint applies to --driver udp only");
        }
        List<String> names = new ArrayList<>();
        for (String p : protocols) {
            String name = p.trim().toLowerCase(Locale.ROOT);
            if (!Protocols.NAMES.contains(name)) {
                throw usage("--protocol: unknown protocol '" + p + "' (known: " + String.join(", ", Protocols.NAMES)
                        + ")");
            }
            if (names.contains(name)) {
                throw usage("--protocol: " + name + " is listed twice");
            }
            names.add(name);
        }
        OptionChecks.noRepeats(spec, "--loss", losses);
        List<Double> lossList = new ArrayList<>(losses);
        checkTransferOptions();
        transfer.checkBytes((1L << 31) - (1 << 23), "2040M");
        if (incast != 0 && (incast < 2 || incast > 1000)) {
            throw usage("--incast must be 0 (none) or 2-1000 senders, got " + incast);
        }
        if (!(linkGbps > 0 && linkGbps <= 100_000)) {
            throw usage("--link-gbps must be in (0, 100000], got " + linkGbps);
        }
        if (!(delayUs >= 0 && delayUs <= 1_000_000)) {
            throw usage("--delay-us must be in [0, 1000000], got " + delayUs);
        }
        if (bufferKib < 1 || bufferKib > (1L << 30)) {
            throw usage("--buffer-kib must be at least 1, got " + bufferKib);
        }
        if (ecnKib < 0 || ecnKib > (1L << 30)) {
            throw usage("--ecn-kib must be 0 or more, got " + ecnKib);
        }
        if (gbnWindow < 4 || gbnWindow > 1 << 22) {
            throw usage("--gbn-window must be 4-4194304 packets, got " + gbnWindow);
        }
        if (!(gbnRtoUs > 0 && gbnRtoUs <= 10_000_000)) {
            throw usage("--gbn-rto-us must be in (0, 1e7], got " + gbnRtoUs);
        }
        if (timeLimitMs < 1 || timeLimitMs > 8_000_000) {
            throw usage("--time-limit-ms must be 1-8000000, got " + timeLimitMs);
        }
        FabricConfig fabric = FabricConfig.datacenter().withLinkGbps(linkGbps)
                .withOneWayDelayNs(Math.round(delayUs * 1000)).withSwitchBufferBytes(bufferKib << 10)
                .withEcnThresholdBytes(ecnKib << 10);
        int datagram = payloadBytes + 256;
        if (datagram > fabric.maxDatagramBytes()) {
            fabric = fabric.withMaxDatagramBytes(Math.min(65536, datagram));
        }
        GoBackNConfig gbn = GoBackNConfig.defaults().withWindowPackets(gbnWindow).withRtoNs(Math.round(gbnRtoUs * 1000))
                .withLineRate(fabric.sourcePort().rateBitsPerSecond(), fabric.wireOverheadBytes());
        return new TransportBench.Settings(names, lossList, transfer.paths, transfer.bytes, transfer.messageBytes,
                payloadBytes, seed.seed(), incast, fabric, gbn, timeLimitMs * 1_000_000L, System::nanoTime);
    }

    static String json(TransportBench.Settings s, TransportBench.Report report) {
        Json j = new Json().beginObject();
        j.beginArray("results");
        for (TransportBench.Result r : report.results()) {
            j.beginObject().field("protocol", r.protocol()).field("loss", r.loss()).field("paths", r.paths())
                    .field("bytes", r.bytes()).field("goodputBytesPerSec", r.goodputBytesPerSec())
                    .field("goodputRatio", r.goodputRatio()).field("retransmits", r.retransmits())
                    .field("simulatedNs", r.simulatedNs()).field("events", r.events())
                    .field("eventsPerSecond", r.eventsPerSecond()).endObject();
        }
        j.endArray();
        if (s.incastSenders() > 0) {
            j.beginArray("incast");
            for (TransportBench.IncastResult r : report.incast()) {
                j.beginObject().field("protocol", r.protocol()).field("loss", r.loss()).field("senders", r.senders())
                        .field("bytesPerSender", r.bytesPerSender()).field("rttNs", r.rttNs())
                        .field("windowRtts", r.windowRtts()).field("convergenceRtts", r.convergenceRtts())
                        .field("jainIndex", r.jainIndex()).field("inboundBytesPerSec", r.inboundBytesPerSec())
                        .field("goodputBytesPerSec", r.goodputBytesPerSec())
                        .field("simulatedNs", r.simulatedNs()).field("events", r.events())
                        .field("eventsPerSecond", r.eventsPerSecond()).endObject();
            }
            j.endArray();
        }
        FabricConfig f = s.fabric();
        j.beginObject("config").field("driver", "sim").field("seed", s.seed())
                .field("messageBytes", s.messageBytes()).field("payloadBytes", s.payloadBytes())
                .field("linkBitsPerSecond", f.route().rateBitsPerSecond())
                .field("oneWayDelayNs", f.sourcePort().delayNs() + f.route().delayNs() + f.destinationPort().delayNs())
                .field("switchBufferBytes", f.destinationPort().bufferBytes())
                .field("ecnThresholdBytes", f.destinationPort().ecnThresholdBytes())
                .field("wireOverheadBytes", f.wireOverheadBytes()).field("routesPerPair", f.routesPerPair())
                .field("gbnWindowPackets", s.gbn().windowPackets()).field("gbnRtoNs", s.gbn().rtoNs())
                .endObject();
        return j.endObject().toString();
    }

    private static void table(PrintStream out, TransportBench.Settings s, TransportBench.Report report, long wallNs) {
        FabricConfig f = s.fabric();
        out.printf(Locale.ROOT, "# JCCL transport benchmark, simulated: %d bytes from node 1 to node 2 in %d-byte "
                + "WRITEs, %d-byte payloads, seed %d%n", s.bytes(), Math.min(s.bytes(), s.messageBytes()),
                s.payloadBytes(), s.seed());
        out.printf(Locale.ROOT, "# fabric: %.0f Gbit/s links, %.1f us one way, switch buffers %d KiB, ECN above %d "
                        + "KiB, %d B/datagram overhead; go-back-N window %d packets, RTO %d us%n",
                f.route().rateBitsPerSecond() / 1e9,
                (f.sourcePort().delayNs() + f.route().delayNs() + f.destinationPort().delayNs()) / 1e3,
                f.destinationPort().bufferBytes() >> 10, f.destinationPort().ecnThresholdBytes() >> 10,
                f.wireOverheadBytes(), s.gbn().windowPackets(), s.gbn().rtoNs() / 1000);
        out.println("#");
        out.printf(Locale.ROOT, "# %-9s %6s %5s %11s %14s %7s %11s %13s %9s %11s %9s%n", "protocol", "loss", "paths",
                "bytes", "goodput(GB/s)", "ratio", "retransmits", "sim time(us)", "wall(ms)", "events",
                "Mevents/s");
        for (TransportBench.Result r : report.results()) {
            out.printf(Locale.ROOT, "  %-9s %6.3f %5d %11d %14.3f %7.3f %11d %13.1f %9.1f %11d %9.2f%n",
                    r.protocol(), r.loss(), r.paths(), r.bytes(), r.goodputBytesPerSec() / 1e9, r.goodputRatio(),
                    r.retransmits(), r.simulatedNs() / 1e3, r.wallNs() / 1e6, r.events(),
                    r.eventsPerSecond() / 1e6);
        }
        if (!report.incast().isEmpty()) {
            out.println("#");
            out.printf(Locale.ROOT, "# incast: N senders each WRITE bytes/N into one receiver at once; each sender's "
                    + "rate is measured at the receiver's port over a window of RTTs; converged = every rate within 10%% "
                    + "of the fair share (their mean) for 3 windows in a row; Jain's index over the steady state; "
                    + "inbound = what the port carried (retransmissions included)%n");
            out.printf(Locale.ROOT, "# %-9s %6s %7s %11s %8s %7s %10s %7s %12s %14s %13s %11s%n", "protocol", "loss",
                    "senders", "bytes/sndr", "rtt(us)", "window", "converged", "Jain", "inbound(GB/s)",
                    "goodput(GB/s)", "sim time(us)", "events");
            for (TransportBench.IncastResult r : report.incast()) {
                out.printf(Locale.ROOT, "  %-9s %6.3f %7d %11d %8.2f %7d %10s %7.4f %12.3f %14.3f %13.1f %11d%n",
                        r.protocol(), r.loss(), r.senders(), r.bytesPerSender(), r.rttNs() / 1e3, r.windowRtts(),
                        r.convergenceRtts() < 0 ? "never" : r.convergenceRtts() + " RTTs", r.jainIndex(),
                        r.inboundBytesPerSec() / 1e9, r.goodputBytesPerSec() / 1e9, r.simulatedNs() / 1e3,
                        r.events());
            }
        }
        out.println("#");
        out.printf(Locale.ROOT, "# every byte checked; total wall time %.1f s%n", wallNs / 1e9);
    }

    /** Parses a loss rate: a fraction in [0, 1) or a percentage like 1%. */
    public static final class LossConverter implements ITypeConverter<Double> {
        /** Created by picocli. */
        public LossConverter() {
        }

        @Override
        public Double convert(String value) {
            String v = value.trim();
            double d;
            try {
                d = v.endsWith("%") ? Double.parseDouble(v.substring(0, v.length() - 1).trim()) / 100
                        : Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a loss rate (e.g. 0.01 or 1%)");
            }
            if (!(d >= 0 && d < 1)) {
                throw new CommandLine.TypeConversionException("loss rate '" + value + "' must be in [0, 1)");
            }
            return d;
        }
    }
}
