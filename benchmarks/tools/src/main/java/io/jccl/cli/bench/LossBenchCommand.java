package io.jccl.cli.bench;

import io.jccl.cli.SelftestCommand;
import io.jccl.cli.VersionCommand;
import io.jccl.cli.bench.loss.LinkChoice;
import io.jccl.cli.bench.loss.LinkCounters;
import io.jccl.cli.bench.loss.LinkKind;
import io.jccl.cli.bench.loss.LossLink;
import io.jccl.cli.bench.loss.LossReport;
import io.jccl.cli.bench.loss.LossRow;
import io.jccl.cli.bench.loss.LossTransfer;
import io.jccl.cli.bench.loss.ModelPoint;
import io.jccl.cli.bench.loss.RelayLossLink;
import io.jccl.cli.bench.loss.TunLink;
import io.jccl.cli.progress.Progress;
import io.jccl.metaroce.sim.ScenarioFailure;
import io.jccl.net.NetTransportProvider;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;

/**
 * {@code jccl bench loss}: the same transfer between two JVMs through an impairing link, for each transport and
 * loss rate; goodput, its ratio to the same transport's at loss 0, and optionally a plot and the go-back-N model.
 */
@Command(name = "loss", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Send --bytes from one JVM to another over each transport, through a link that drops each "
                + "packet at random with each --loss probability (each direction), checking every byte; print "
                + "goodput, its ratio to the same transport at loss 0, what the link dropped and forwarded, and the "
                + "time. Each side holds the whole transfer in memory: --bytes is at most 1G.",
                "",
                "Links: tun (a TUN packet relay between two network namespaces: any transport; needs root, "
                + "/dev/net/tun and ip netns) or relay (the user-space UDP relay: MetaRoCE only). A run past "
                + "--timeout is reported as a timeout with what arrived, not waited for.",
                "",
                "Exit status 1 when a run delivered wrong bytes, a transport failed at loss 0, or nothing could run.",
                ""})
public final class LossBenchCommand implements Callable<Integer> {
    /** Transports whose traffic crosses a network, so that a link can impair it. */
    static final List<String> NETWORK_TRANSPORTS = List.of("metaroce", "tcp", "aeron-udp");
    /** Largest --bytes: each side holds the whole transfer in memory. */
    static final long MAX_BYTES = 1L << 30;
    /** Most messages per transfer: the sides keep a request slot per message. */
    static final long MAX_MESSAGES = 1 << 20;

    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public LossBenchCommand() {
    }

    @Option(names = "--transports", split = ",", defaultValue = "metaroce,tcp,aeron-udp",
            description = "transports, comma-separated: metaroce, tcp, aeron-udp (default ${DEFAULT-VALUE})")
    List<String> transports;

    @Option(names = "--loss", split = ",", defaultValue = "0,0.001,0.01,0.05,0.1",
            converter = TransportBenchCommand.LossConverter.class,
            description = "loss rates per packet, each direction, comma-separated, as fractions or percentages; "
                    + "0 is always run, as the reference of the ratio (default ${DEFAULT-VALUE})")
    List<Double> losses;

    @Mixin
    TransferOptions transfer;

    @Option(names = "--warmup-bytes", defaultValue = "8M", converter = SelftestCommand.BytesConverter.class,
            description = "bytes moved before each transfer, unmeasured, at the same loss: every run starts two "
                    + "new JVMs, and a cold JIT would otherwise weigh on the first megabytes (default "
                    + "${DEFAULT-VALUE}; 0 for none)")
    long warmupBytes;

    @Option(names = "--inflight", defaultValue = "4", description = "messages posted at once on each side, 1-16 "
            + "(default ${DEFAULT-VALUE})")
    int inflight;

    @Mixin
    SeedOption seed;

    @Option(names = "--timeout", defaultValue = "120", description = "seconds one run may take, JVM starts "
            + "included (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Option(names = "--repeat", defaultValue = "1", description = "runs of each transport and loss, in whole passes "
            + "over the sweep; each row shows the run with the median goodput, or the first that failed "
            + "(default ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--link", defaultValue = "auto", description = "auto (tun where available, else relay for the "
            + "transports it carries), tun or relay (default ${DEFAULT-VALUE})")
    String link;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "also draw goodput relative to loss 0 against "
            + "loss, one line per transport (PNG)")
    Path plot;

    @Option(names = "--model", description = "also run the go-back-N model (RoCEv2's loss recovery) in the fabric "
            + "simulator at the same losses, and draw it")
    boolean model;

    @Mixin
    ReportOutput output;

    @Override
    public Integer call() throws InterruptedException {
        List<String> names = validate();
        LinkKind wanted = switch (link.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> null;
            case "tun" -> LinkKind.TUN;
            case "relay" -> LinkKind.RELAY;
            default -> throw usage("--link must be auto, tun or relay, not '" + link + "'");
        };
        // Loss 0 first, whether asked for or not: it is the reference of every ratio.
        List<Double> order = new ArrayList<>(List.of(0.0));
        losses.stream().filter(l -> l != 0).forEach(order::add);
        Optional<String> tunUnavailable = wanted == LinkKind.RELAY ? Optional.of("not asked for (--link relay)")
                : TunLink.unavailableReason();
        List<LinkChoice> choices = new ArrayList<>();
        for (String t : names) {
            choices.add(LinkChoice.choose(t, wanted, tunUnavailable));
        }
        int total = (int) choices.stream().filter(LinkChoice::runs).count() * order.size() * repeat;
        List<LossRow> rows = new ArrayList<>();
        int done = 0;
        // Whole passes over every transport and loss, rather than repeats back to back: a slow spell of a shared
        // machine then spreads over the loss rates instead of landing on one.
        Map<String, List<LossTransfer.Outcome>> outcomes = new HashMap<>();
        List<ModelPoint> modelPoints = List.of();
        try (ProgressBar bar = Progress.bar("jccl bench loss", total, "runs",
                output.progressShown())) {
            for (int pass = 1; pass <= repeat; pass++) {
                for (LinkChoice c : choices) {
                    if (!c.runs()) {
                        continue;
                    }
                    for (double loss : order) {
                        String label = c.transport() + " loss " + LossReport.percent(loss)
                                + (repeat > 1 ? " (pass " + pass + ")" : "");
                        bar.stepTo(done);
                        bar.setExtraMessage(label);
                        outcomes.computeIfAbsent(c.transport() + "@" + loss, k -> new ArrayList<>()).add(runOne(c, loss,
                                got -> bar.setExtraMessage(String.format(Locale.ROOT, "%s: %.0f%%", label,
                                        100.0 * got / transfer.bytes))));
                        done++;
                    }
                }
            }
            if (model) {
                bar.stepTo(done);
                bar.setExtraMessage("go-back-N model (simulated)");
                modelPoints = model(order);
            }
            bar.stepTo(total);
        }
        for (LinkChoice c : choices) {
            double reference = Double.NaN;
            for (double loss : order) {
                if (!c.runs()) {
                    rows.add(new LossRow(c.transport(), loss, "none", transfer.bytes, LossTransfer.Outcome.skipped(
                            c.skipReason()), Double.NaN, 0));
                    continue;
                }
                List<LossTransfer.Outcome> runs = outcomes.get(c.transport() + "@" + loss);
                LossTransfer.Outcome o = LossTransfer.representative(runs);
                if (loss == 0 && o.status() == LossTransfer.Status.OK) {
                    reference = o.goodputBytesPerSec();
                }
                rows.add(new LossRow(c.transport(), loss, c.link().label(), transfer.bytes, o,
                        o.goodputBytesPerSec() / reference, runs.size()));
            }
        }
        // Rows in the order asked (loss 0 where it was given, else first).
        List<Double> shown = losses.contains(0.0) ? losses : order;
        rows.sort(Comparator.comparingInt((LossRow r) -> names.indexOf(r.transport()))
                .thenComparingInt(r -> shown.indexOf(r.loss())));
        PrintStream out = System.out;
        PrintStream err = System.err;
        if (output.json()) {
            out.println(LossReport.json(rows, modelPoints));
        } else {
            LossReport.table(out, header(choices), rows, modelPoints);
        }
        if (plot != null) {
            try {
                LossReport.plot(plot, String.format(Locale.ROOT, "jccl bench loss: goodput under random loss, "
                        + "%s per transfer", sizeText(transfer.bytes)), shown, rows, modelPoints);
            } catch (IOException | UncheckedIOException e) {
                err.println("jccl bench loss: --plot: cannot write " + plot + ": " + e.getMessage());
                return 1;
            }
            if (!output.json()) {
                out.println("# plot: " + plot);
            }
        }
        return exitStatus(rows, err);
    }

    /** Opens the link for one run, runs the transfer, closes the link. */
    private LossTransfer.Outcome runOne(LinkChoice c, double loss, LongConsumer delivered)
            throws InterruptedException {
        LossLink l;
        try {
            l = c.link() == LinkKind.TUN ? TunLink.open(loss, seed.seed()) : RelayLossLink.open(loss, seed.seed());
        } catch (RuntimeException e) {
            return new LossTransfer.Outcome(LossTransfer.Status.ERROR, Double.NaN, Double.NaN, 0,
                    LinkCounters.UNKNOWN, 0, "cannot set the " + c.link().label()
                    + " link up: " + e.getMessage());
        }
        try {
            return LossTransfer.run(new LossTransfer.Spec(c.transport(), transfer.bytes, transfer.messageBytesUsed(),
                    inflight, transfer.paths, seed.seed(), Math.min(warmupBytes, transfer.bytes), timeoutSeconds),
                    l, delivered);
        } finally {
            try {
                l.close();
            } catch (RuntimeException e) {
                // The run's result stands; what was left behind is the link's to clean up next time.
                System.err.println("jccl bench loss: warning: the " + c.link().label() + " link did not close "
                        + "cleanly: " + e.getMessage());
            }
        }
    }

    /** The go-back-N baseline at the same losses, through {@code bench transport}'s own settings and simulator. */
    private List<ModelPoint> model(List<Double> order) {
        TransportBenchCommand sim = new TransportBenchCommand();
        StringBuilder lossList = new StringBuilder();
        for (double l : order) {
            lossList.append(lossList.isEmpty() ? "" : ",").append(l);
        }
        new CommandLine(sim).parseArgs("--protocol", "gbn", "--loss", lossList.toString(), "--bytes",
                Long.toString(transfer.bytes), "--message-bytes", Long.toString(transfer.messageBytesUsed()),
                "--seed", Long.toString(seed.seed()));
        List<ModelPoint> points = new ArrayList<>();
        try {
            for (TransportBench.Result r : TransportBench.run(sim.settings(), line -> { }).results()) {
                points.add(new ModelPoint(r.loss(), r.goodputBytesPerSec(), r.goodputRatio()));
            }
        } catch (ScenarioFailure f) {
            throw new IllegalStateException("the go-back-N model failed its checks: " + f.getMessage(), f);
        }
        return points;
    }

    private List<String> header(List<LinkChoice> choices) {
        List<String> h = new ArrayList<>();
        h.add(String.format(Locale.ROOT, "JCCL %s bench loss: %d bytes (%s) from one JVM to another in %d-byte "
                + "messages, %d in flight, after %s of warm-up; every byte checked; seed %d; at most %d s per run%s",
                VersionCommand.version(), transfer.bytes, sizeText(transfer.bytes), transfer.messageBytesUsed(),
                inflight, sizeText(Math.min(warmupBytes, transfer.bytes)), seed.seed(), timeoutSeconds, repeat == 1 ? ""
                        : "; each row the median of " + repeat + " runs (in " + repeat + " passes over the sweep)"));
        boolean relay = choices.stream().anyMatch(c -> c.link() == LinkKind.RELAY);
        boolean tun = choices.stream().anyMatch(c -> c.link() == LinkKind.TUN);
        if (relay) {
            h.add("relay link: the user-space UDP relay (ImpairmentProxy) on 127.0.0.1 in this JVM; MetaRoCE with "
                    + transfer.paths + " paths and " + RelayLossLink.PAYLOAD_BYTES
                    + "-byte payloads registers with it");
        }
        if (tun) {
            h.add("tun link: a TUN packet relay between two network namespaces; every IP packet crosses it");
        }
        h.add("dropped: packets the link dropped at random; overflow: packets lost because it could not keep up (a "
                + "full queue, a refused write); forwarded: packets it passed on; during the run, both ways");
        return h;
    }

    /** 1 when a run delivered wrong bytes, a transport failed unimpaired, or nothing ran; else 0. */
    private static int exitStatus(List<LossRow> rows, PrintStream err) {
        boolean anyRan = false;
        int status = 0;
        for (LossRow r : rows) {
            LossTransfer.Status s = r.outcome().status();
            anyRan |= s != LossTransfer.Status.SKIPPED;
            if (s == LossTransfer.Status.CORRUPT) {
                err.println("jccl bench loss: FAILED: " + r.transport() + " at loss " + LossReport.percent(r.loss())
                        + " delivered wrong bytes: " + r.outcome().reason());
                status = 1;
            } else if (r.loss() == 0 && (s == LossTransfer.Status.ERROR || s == LossTransfer.Status.TIMEOUT)) {
                err.println("jccl bench loss: FAILED: " + r.transport() + " did not finish without loss: "
                        + r.outcome().reason());
                status = 1;
            }
        }
        if (!anyRan) {
            err.println("jccl bench loss: no transport could run: " + String.join("; ", rows.stream()
                    .map(r -> r.outcome().reason()).distinct().toList()));
            status = 1;
        }
        return status;
    }

    /** Checks every option; returns the transports' names, lower case, in order. */
    private List<String> validate() {
        List<String> onClassPath = new ArrayList<>();
        ServiceLoader.load(NetTransportProvider.class).forEach(p -> onClassPath.add(p.name()));
        List<String> names = new ArrayList<>();
        for (String t : transports) {
            String name = t.trim().toLowerCase(Locale.ROOT);
            if (!NETWORK_TRANSPORTS.contains(name)) {
                throw usage("--transports: '" + t.trim() + "' is not a transport that crosses a network (choose from "
                        + String.join(", ", NETWORK_TRANSPORTS) + ")");
            }
            if (!onClassPath.contains(name)) {
                throw usage("--transports: " + name + " is not on the class path (available: "
                        + String.join(", ", onClassPath) + ")");
            }
            if (names.contains(name)) {
                throw usage("--transports: " + name + " is listed twice");
            }
            names.add(name);
        }
        OptionChecks.noRepeats(spec, "--loss", losses);
        transfer.checkPathsAndMessage();
        transfer.checkBytes(MAX_BYTES, "1G");
        if (transfer.messages() > MAX_MESSAGES) {
            throw usage("--message-bytes " + transfer.messageBytes + " makes " + transfer.messages()
                    + " messages of --bytes " + transfer.bytes + "; at most " + MAX_MESSAGES);
        }
        if (warmupBytes < 0 || warmupBytes > MAX_BYTES) {
            throw usage("--warmup-bytes must be between 0 and 1G, got " + warmupBytes);
        }
        OptionChecks.within(spec, "--inflight", inflight, 1, 16);
        OptionChecks.within(spec, "--repeat", repeat, 1, 100);
        if (timeoutSeconds < 1 || timeoutSeconds > 86_400) {
            throw usage("--timeout must be 1-86400 seconds, got " + timeoutSeconds);
        }
        if (plot != null && !plot.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
            throw usage("--plot writes a PNG: give a file name ending in .png, not " + plot);
        }
        return names;
    }

    private static String sizeText(long n) {
        if (n == 0) {
            return "0 B";
        }
        if (n % (1 << 30) == 0) {
            return n / (1 << 30) + " GiB";
        }
        if (n % (1 << 20) == 0) {
            return n / (1 << 20) + " MiB";
        }
        if (n % (1 << 10) == 0) {
            return n / (1 << 10) + " KiB";
        }
        return n + " B";
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
