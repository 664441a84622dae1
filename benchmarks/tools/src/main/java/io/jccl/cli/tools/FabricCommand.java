package io.jccl.cli.tools;

import io.jccl.cli.bench.OptionChecks;
import io.jccl.cli.bench.SeedOption;
import io.jccl.cli.bench.TransportBenchCommand;
import io.jccl.metaroce.fabric.ImpairmentProxy;
import io.jccl.metaroce.fabric.ImpairmentRelay;
import io.jccl.metaroce.fabric.ProxyConfig;
import io.jccl.metaroce.fabric.RateLimit;
import io.jccl.metaroce.fabric.Relay;
import io.jccl.metaroce.impair.Impairments;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** {@code jccl fabric}: an impairing UDP relay between two MetaRoCE endpoints, or for many (--proxy). */
@Command(name = "fabric", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Relay UDP between two MetaRoCE endpoints A and B, one relay socket per path on each side, "
                + "impairing every path both ways. Give each endpoint the relay's addresses printed for it instead "
                + "of its peer's. With --proxy, relay for any number of endpoints instead: each registers its path "
                + "addresses at the control address printed (RelayClient) and publishes the fronts it gets back; "
                + "every flow is impaired both ways. Runs until --duration-s passes or it is interrupted (Ctrl-C), "
                + "then prints its counters.",
            "",
            "Example: jccl fabric --a 10.0.0.1:4000,10.0.0.1:4001 --b 10.0.0.2:4000,10.0.0.2:4001 --loss 1%% "
                + "--reorder 0.01,100 --black-hole 1,2000,5000",
            "Example: jccl fabric --proxy --bind 10.0.0.3 --control-port 7000 --loss 0.5%% --rate 125M "
                + "--queue-bytes 256k --ecn-bytes 32k --flap 2:900:100"})
public final class FabricCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--a", split = ",", description = "endpoint A's path socket addresses, HOST:PORT, in path order "
            + "(two-endpoint mode)")
    List<String> a;

    @Option(names = "--b", split = ",", description = "endpoint B's, as many")
    List<String> b;

    @Option(names = "--proxy", description = "relay for any number of endpoints that register at the control "
            + "address (instead of --a and --b)")
    boolean proxy;

    @Option(names = "--control-port", defaultValue = "0", description = "with --proxy: the control socket's port "
            + "(default 0: any free port, printed)")
    int controlPort;

    @Option(names = "--max-flows", defaultValue = "4096", description = "with --proxy: flows (sender and front "
            + "pairs) open at once, 1-65536 (default ${DEFAULT-VALUE})")
    int maxFlows;

    @Option(names = "--bind", defaultValue = "127.0.0.1", description = "address the relay's sockets bind to, "
            + "one the endpoints can reach (default ${DEFAULT-VALUE})")
    String bind;

    @Option(names = "--loss", defaultValue = "0", converter = TransportBenchCommand.LossConverter.class,
            description = "random loss per datagram, as a fraction or percentage (default 0)")
    double loss;

    @Option(names = "--burst", split = ",", description = "Gilbert-Elliott bursty loss: P(good to bad),P(bad to "
            + "good),P(loss in bad), e.g. 0.005,0.2,0.9")
    List<Double> burst;

    @Option(names = "--corrupt", defaultValue = "0", description = "probability of one flipped bit")
    double corrupt;

    @Option(names = "--duplicate", defaultValue = "0", description = "probability of a duplicate")
    double duplicate;

    @Option(names = "--reorder", split = ",", description = "probability of holding a datagram back, and for how "
            + "long in microseconds, e.g. 0.01,100")
    List<Double> reorder;

    @Option(names = "--jitter-us", defaultValue = "0", description = "uniform extra delay up to this, microseconds")
    double jitterUs;

    @Option(names = "--delay-us", defaultValue = "0", description = "delay added to every datagram, microseconds")
    double delayUs;

    @Option(names = "--black-hole", description = "PATH,FROM_MS,UNTIL_MS: drop that path's datagrams both ways "
            + "from FROM_MS to UNTIL_MS after the start (until it is re-routed onto a new source port; with --proxy: "
            + "every flow on that path index open when the hole starts); repeatable")
    List<String> blackHoles = new ArrayList<>();

    @Option(names = "--flap", description = "PATH:UP_MS:DOWN_MS[:CYCLES]: from the start, path PATH is down for "
            + "DOWN_MS then up for UP_MS, CYCLES times (default 0: until the relay stops), whatever it is re-routed "
            + "to; repeatable")
    List<String> flaps = new ArrayList<>();

    @Option(names = "--rate", description = "bytes per second each path (each flow with --proxy) carries each way, "
            + "with k, M or G for 1e3, 1e6, 1e9 (e.g. 125M: 1 Gbit/s); datagrams queue behind it")
    String rate;

    @Option(names = "--queue-bytes", description = "with --rate: the queue's tail-drop limit, 1k-1G (default 1M)")
    String queueBytes;

    @Option(names = "--ecn-bytes", description = "with --rate: datagrams queued behind more than this leave marked "
            + "ECN CE, the others ECT(0) (default: never marked)")
    String ecnBytes;

    @Mixin
    SeedOption seed;

    @Option(names = "--duration-s", defaultValue = "0", description = "stop after this many seconds (0: run until "
            + "interrupted)")
    double durationS;

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    private List<InetSocketAddress> addresses(String option, List<String> values) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String v : values) {
            int colon = v.lastIndexOf(':');
            if (colon <= 0 || colon == v.length() - 1) {
                throw usage(option + ": '" + v + "' is not HOST:PORT");
            }
            int port;
            try {
                port = Integer.parseInt(v.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw usage(option + ": '" + v + "' has no port number");
            }
            if (port < 1 || port > 65535) {
                throw usage(option + ": port " + port + " in '" + v + "' is not 1-65535");
            }
            InetSocketAddress address = new InetSocketAddress(v.substring(0, colon), port);
            if (address.isUnresolved()) {
                throw usage(option + ": cannot resolve host '" + v.substring(0, colon) + "'");
            }
            out.add(address);
        }
        return out;
    }

    /** @return {path, fromMs, untilMs} of one {@code --black-hole} value */
    private long[] blackHole(String value, int paths) {
        String[] parts = value.split(",");
        if (parts.length == 3) {
            try {
                long path = Long.parseLong(parts[0].trim());
                long fromMs = Long.parseLong(parts[1].trim());
                long untilMs = Long.parseLong(parts[2].trim());
                if (path >= 0 && path < paths && fromMs >= 0 && untilMs > fromMs) {
                    return new long[] {path, fromMs, untilMs};
                }
            } catch (NumberFormatException e) {
                // not numbers: the usage error below
            }
        }
        throw usage("--black-hole '" + value + "' must be PATH,FROM_MS,UNTIL_MS with PATH 0-" + (paths - 1)
                + " and FROM_MS < UNTIL_MS");
    }

    /** @return {path, upMs, downMs, cycles} of one {@code --flap} value */
    private long[] flap(String value, int paths) {
        String[] parts = value.split(":");
        if (parts.length == 3 || parts.length == 4) {
            try {
                long path = Long.parseLong(parts[0].trim());
                long upMs = Long.parseLong(parts[1].trim());
                long downMs = Long.parseLong(parts[2].trim());
                long cycles = parts.length == 4 ? Long.parseLong(parts[3].trim()) : 0;
                if (path >= 0 && path < paths && upMs > 0 && downMs > 0 && upMs <= 3_600_000 && downMs <= 3_600_000
                        && cycles >= 0 && cycles <= Integer.MAX_VALUE) {
                    return new long[] {path, upMs, downMs, cycles};
                }
            } catch (NumberFormatException e) {
                // not numbers: the usage error below
            }
        }
        throw usage("--flap '" + value + "' must be PATH:UP_MS:DOWN_MS[:CYCLES] with PATH 0-" + (paths - 1)
                + ", UP_MS and DOWN_MS 1-3600000 and CYCLES >= 0 (0: until the relay stops)");
    }

    /** @return a byte count or rate with an optional k, M or G, or -1 when it is not one */
    private static long amount(String value) {
        String v = value.trim();
        long scale = 1;
        if (!v.isEmpty()) {
            switch (v.charAt(v.length() - 1)) {
                case 'k', 'K' -> scale = 1_000;
                case 'M' -> scale = 1_000_000;
                case 'G' -> scale = 1_000_000_000;
                default -> scale = 1;
            }
        }
        String digits = scale == 1 ? v : v.substring(0, v.length() - 1);
        try {
            double d = Double.parseDouble(digits);
            return d >= 0 && d * scale <= 1e15 ? Math.round(d * scale) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    RateLimit rateLimit() {
        if (rate == null) {
            if (ecnBytes != null || queueBytes != null) {
                throw usage("--queue-bytes and --ecn-bytes need --rate");
            }
            return RateLimit.NONE;
        }
        long bytesPerSecond = amount(rate);
        if (bytesPerSecond < 1 || bytesPerSecond > 1_000_000_000_000L) {
            throw usage("--rate '" + rate + "' must be bytes per second, 1 to 1T, optionally with k, M or G, "
                    + "e.g. 125M");
        }
        long queue = queueBytes == null ? 1_000_000 : amount(queueBytes);
        if (queue < 1024 || queue > 1 << 30) {
            throw usage("--queue-bytes '" + queueBytes + "' must be 1k to 1G bytes");
        }
        long ecn = ecnBytes == null ? RateLimit.NO_ECN : amount(ecnBytes);
        if (ecn < 0 || ecn > RateLimit.NO_ECN) {
            throw usage("--ecn-bytes '" + ecnBytes + "' must be a byte count, optionally with k, M or G");
        }
        return new RateLimit(bytesPerSecond, (int) queue, (int) ecn);
    }

    Impairments impairments() {
        Impairments im = Impairments.NONE.withLossRate(loss).withCorruptRate(corrupt).withDuplicateRate(duplicate);
        if (burst != null) {
            if (burst.size() != 3) {
                throw usage("--burst needs three probabilities: good-to-bad,bad-to-good,loss-in-bad");
            }
            im = im.withBurstLoss(burst.get(0), burst.get(1), burst.get(2));
        }
        if (reorder != null) {
            if (reorder.size() != 2 || !(reorder.get(1) > 0)) {
                throw usage("--reorder needs a probability and a hold time in microseconds > 0, e.g. 0.01,100");
            }
            im = im.withReorder(reorder.get(0), 10, Math.round(reorder.get(1) * 1000));
        }
        if (!(jitterUs >= 0 && jitterUs <= 10_000_000)) {
            throw usage("--jitter-us must be 0-10000000, got " + jitterUs);
        }
        return im.withJitterNs(Math.round(jitterUs * 1000));
    }

    @Override
    public Integer call() throws InterruptedException {
        List<InetSocketAddress> addressesOfA = null;
        List<InetSocketAddress> addressesOfB = null;
        if (proxy) {
            if (a != null || b != null) {
                throw usage("--proxy relays for endpoints that register: it takes no --a or --b");
            }
        } else {
            if (a == null || b == null) {
                throw usage("Missing required option: '--a' and '--b' (or --proxy)");
            }
            if (controlPort != 0 || maxFlows != 4096) {
                throw usage("--control-port and --max-flows need --proxy");
            }
            addressesOfA = addresses("--a", a);
            addressesOfB = addresses("--b", b);
            if (addressesOfA.size() != addressesOfB.size() || addressesOfA.size() > 64) {
                throw usage("--a and --b need the same number of path addresses (1-64), got " + addressesOfA.size()
                        + " and " + addressesOfB.size());
            }
        }
        OptionChecks.within(spec, "--control-port", controlPort, 0, 65535);
        OptionChecks.within(spec, "--max-flows", maxFlows, 1, 65536);
        Impairments im;
        try {
            im = impairments();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        RateLimit limit = rateLimit();
        if (!(delayUs >= 0 && delayUs <= 10_000_000)) {
            throw usage("--delay-us must be 0-10000000, got " + delayUs);
        }
        if (!(durationS >= 0 && durationS <= 1e7)) {
            throw usage("--duration-s must be 0 or more, got " + durationS);
        }
        int paths = proxy ? 64 : addressesOfA.size();
        List<long[]> holes = new ArrayList<>();
        for (String h : blackHoles) {
            holes.add(blackHole(h, paths));
        }
        List<long[]> flapping = new ArrayList<>();
        for (String f : flaps) {
            flapping.add(flap(f, paths));
        }
        InetAddress bindAddress;
        try {
            bindAddress = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw usage("--bind: cannot resolve '" + bind + "'");
        }
        if (proxy && bindAddress.isAnyLocalAddress()) {
            throw usage("--bind: with --proxy the relay publishes its sockets' addresses, so it needs one the "
                    + "endpoints can reach, not " + bind);
        }
        long delayNs = Math.round(delayUs * 1000);
        PrintStream out = System.out;
        try (Relay relay = proxy
                ? new ImpairmentProxy(ProxyConfig.defaults(bindAddress).withControlPort(controlPort)
                        .withImpairments(im).withBaseDelayNs(delayNs).withRateLimit(limit).withSeed(seed.seed())
                        .withLimits(64, maxFlows, 600_000_000_000L))
                : new ImpairmentRelay(bindAddress, addressesOfA, addressesOfB, im, delayNs, limit, seed.seed())) {
            long start = System.nanoTime();
            for (long[] h : holes) {
                relay.blackHolePath((int) h[0], start + h[1] * 1_000_000, start + h[2] * 1_000_000);
            }
            for (long[] f : flapping) {
                relay.flapPath((int) f[0], start, f[1] * 1_000_000, f[2] * 1_000_000, (int) f[3]);
            }
            relay.start();
            CountDownLatch stop = new CountDownLatch(1);
            FinalLine report = new FinalLine(out, () -> String.format(Locale.ROOT, "jccl fabric: %s",
                    relay.counters()));
            // On Ctrl-C or SIGTERM the JVM may stop this thread before it gets to the report: the hook reports too.
            // Registered before the addresses are printed: whoever stops the relay once it has read them (a script,
            // a test) gets the counter line.
            Thread hook = new Thread(() -> {
                stop.countDown();
                report.print();
            }, "jccl-fabric-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            if (relay instanceof ImpairmentProxy p) {
                out.println("control (endpoints register here): " + join(List.of(p.controlAddress())));
            } else {
                ImpairmentRelay r = (ImpairmentRelay) relay;
                out.println("for A (give these to A as B's addresses): " + join(r.addressesForA()));
                out.println("for B (give these to B as A's addresses): " + join(r.addressesForB()));
            }
            out.flush();
            if (durationS > 0) {
                stop.await(Math.round(durationS * 1e9), TimeUnit.NANOSECONDS);
            } else {
                stop.await();
            }
            report.print();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting (Ctrl-C): the hook has reported
            }
        }
        return 0;
    }

    /**
     * The counter line printed when the relay stops, exactly once, by whichever of the main thread (the duration
     * passed) and the shutdown hook (SIGTERM, Ctrl-C) comes first. The other waits until the line is out: a hook that
     * returned while the main thread was still printing would let the JVM halt in the middle of it.
     */
    static final class FinalLine {
        private final PrintStream out;
        private final Supplier<String> line;
        private boolean printed;

        /**
         * @param out  where it goes
         * @param line makes the line (called once)
         */
        FinalLine(PrintStream out, Supplier<String> line) {
            this.out = out;
            this.line = line;
        }

        /** Prints the line unless it was printed; returns once it is out, whoever printed it. */
        synchronized void print() {
            if (!printed) {
                printed = true;
                out.println(line.get());
                out.flush();
            }
        }
    }

    private static String join(List<InetSocketAddress> addresses) {
        StringBuilder sb = new StringBuilder();
        for (InetSocketAddress a : addresses) {
            sb.append(sb.isEmpty() ? "" : ",").append(a.getAddress().getHostAddress()).append(':').append(a.getPort());
        }
        return sb.toString();
    }
}
