package io.jccl.cli.bench;

import io.jccl.cli.SelftestCommand;
import io.jccl.cli.progress.TerminalBar;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code jccl bench tcp}: the {@code tcp} transport's point-to-point bandwidth on loopback for each message size
 * and socket count, against the raw ceiling of plain socket channels with the same sockets, repeated and
 * interleaved so that a noisy machine shows as a range rather than as a wrong number.
 */
@Command(name = "tcp", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Stream messages of each --bytes size through one tcp transport connection on loopback,",
                "for each --nsocks (JCCL_SOCKET_NSOCKS), in this JVM with one busy-polling thread per side,",
                "and the same bytes through as many plain non-blocking SocketChannels (the raw ceiling:",
                "each message split into one contiguous stripe per socket, no headers, no matching).",
                "Runs are interleaved (raw, then tcp, per socket count and size) and repeated --repeat",
                "times; the table shows the median and the range. The last message of every run is",
                "checked byte for byte. Other JCCL_* transport options come from the environment or -O.",
                ""})
public final class TcpBenchCommand implements Callable<Integer> {
    /** The option naming the socket count per connection, as the transport reads it. */
    static final String NSOCKS = "JCCL_SOCKET_NSOCKS";
    /** The option naming the socket buffer size, as the transport reads it. */
    static final String BUFFER_BYTES = "JCCL_SOCKET_BUFFER_BYTES";

    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public TcpBenchCommand() {
    }

    @Option(names = {"-b", "--bytes"}, split = ",", defaultValue = "64K,256K,1M,4M,16M",
            converter = SelftestCommand.BytesConverter.class,
            description = "message sizes, comma-separated (default ${DEFAULT-VALUE})")
    List<Long> sizes;

    @Option(names = "--nsocks", split = ",", defaultValue = "1,2,4",
            description = "sockets per connection, comma-separated, 1-16 (default ${DEFAULT-VALUE})")
    List<Integer> socketCounts;

    @Option(names = "--total", defaultValue = "1G", converter = SelftestCommand.BytesConverter.class,
            description = "bytes per timed run, at least 16 messages (default ${DEFAULT-VALUE})")
    long totalBytes;

    @Option(names = "--window", defaultValue = "8", description = "sends (and receives) in flight, 1-64 "
            + "(default ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--repeat", defaultValue = "3", description = "timed runs per cell, interleaved "
            + "(default ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--buffer-bytes", defaultValue = "4M", converter = SelftestCommand.BytesConverter.class,
            description = "SO_SNDBUF/SO_RCVBUF of every socket, raw and tcp (JCCL_SOCKET_BUFFER_BYTES); "
                    + "0 keeps the kernel's autotuning (default ${DEFAULT-VALUE})")
    long bufferBytes;

    @Option(names = {"-O", "--option"}, description = "a further transport option KEY=VALUE, e.g. "
            + "-O JCCL_SOCKET_MIN_STRIPE_BYTES=131072 (repeatable; wins over the environment)")
    List<String> extraOptions = new ArrayList<>();

    @Option(names = "--no-raw", description = "skip the raw SocketChannel ceiling")
    boolean noRaw;

    @Option(names = "--pingpong", defaultValue = "20000", description = "8-byte ping-pong round trips per socket "
            + "count after the bandwidth runs, median reported; 0 skips it (default ${DEFAULT-VALUE})")
    int pingPongRounds;

    @Option(names = "--cpu", description = "drive both ends from one thread and report bytes per second of its CPU "
            + "time (user + system: the cost of moving the bytes, which other load barely changes) instead of wall-clock "
            + "bandwidth with a thread per side")
    boolean cpu;

    @Mixin
    ReportOutput output;

    @Override
    public Integer call() {
        validate();
        Map<String, String> base = baseOptions();
        PrintStream out = System.out;
        int cells = sizes.size() * socketCounts.size();
        double[][] rawRuns = new double[cells][repeat];
        double[][] tcpRuns = new double[cells][repeat];
        long[] pingPongNs = new long[socketCounts.size()];
        if (!output.json()) {
            out.printf(Locale.ROOT, "# JCCL bench tcp: loopback, one JVM, %s; %s bytes per run, window %d, %d repeats"
                            + " interleaved; socket buffers %s; GB/s = 1e9 bytes/s%s%n",
                    cpu ? "one thread driving both ends" : "one busy-polling thread per side", totalBytes, window, repeat,
                    bufferBytes == 0 ? "kernel autotuning" : bufferBytes + " bytes",
                    cpu ? " of that thread's CPU time (user + system)" : "");
            out.flush();
        }
        long timedRuns = (long) repeat * cells + (pingPongRounds > 0 ? socketCounts.size() : 0);
        try (TerminalBar bar = TerminalBar.open("jccl bench tcp", timedRuns, "runs", System.err,
                output.progressShown())) {
            // Warm the JIT on both paths before anything is timed.
            for (int nsocks : socketCounts) {
                long warm = Math.min(totalBytes, 64L << 20);
                TcpLoopbackBench.transport(with(base, nsocks), 1 << 20, Math.max(16, warm >> 20), window, cpu);
                if (!noRaw) {
                    TcpLoopbackBench.raw(nsocks, 1 << 20, Math.max(16, warm >> 20), (int) bufferBytes, cpu);
                }
            }
            for (int r = 0; r < repeat; r++) {
                int cell = 0;
                for (long size : sizes) {
                    long messages = Math.max(16, totalBytes / size);
                    for (int nsocks : socketCounts) {
                        if (!noRaw) {
                            rawRuns[cell][r] = TcpLoopbackBench.raw(nsocks, size, messages, (int) bufferBytes, cpu);
                        }
                        tcpRuns[cell][r] = TcpLoopbackBench.transport(with(base, nsocks), size, messages, window, cpu);
                        cell++;
                        bar.step();
                    }
                }
            }
            if (pingPongRounds > 0) {
                for (int i = 0; i < socketCounts.size(); i++) {
                    pingPongNs[i] = TcpLoopbackBench.pingPongNanos(with(base, socketCounts.get(i)), 8,
                            Math.max(1000, pingPongRounds / 4), pingPongRounds);
                    bar.step();
                }
            }
        } catch (IllegalStateException | IllegalArgumentException | UncheckedIOException e) {
            System.err.println("jccl bench tcp: " + e.getMessage());
            return 1;
        }
        if (output.json()) {
            out.println(json(rawRuns, tcpRuns, pingPongNs));
        } else {
            table(out, rawRuns, tcpRuns, pingPongNs);
        }
        return 0;
    }

    private void table(PrintStream out, double[][] rawRuns, double[][] tcpRuns, long[] pingPongNs) {
        String unit = cpu ? "GB/cpu-s" : "GB/s";
        out.printf(Locale.ROOT, "# %10s %6s %8s %26s %26s %8s%n", "size(B)", "nsocks", "messages",
                "raw " + unit + " median [range]", "tcp " + unit + " median [range]", "tcp/raw");
        int cell = 0;
        for (long size : sizes) {
            for (int nsocks : socketCounts) {
                String raw = noRaw ? "-" : range(rawRuns[cell]);
                double ratio = noRaw ? Double.NaN : median(tcpRuns[cell]) / median(rawRuns[cell]);
                out.printf(Locale.ROOT, "  %10d %6d %8d %26s %26s %8s%n", size, nsocks, Math.max(16, totalBytes / size),
                        raw, range(tcpRuns[cell]), noRaw ? "-" : String.format(Locale.ROOT, "%.2f", ratio));
                cell++;
            }
        }
        if (pingPongRounds > 0) {
            out.println("#");
            for (int i = 0; i < socketCounts.size(); i++) {
                out.printf(Locale.ROOT, "# 8-byte ping-pong over tcp, nsocks %d: median round trip %.1f us (%d rounds)%n",
                        socketCounts.get(i), pingPongNs[i] / 1e3, pingPongRounds);
            }
        }
        out.println("# last message of every run checked byte for byte");
    }

    private String json(double[][] rawRuns, double[][] tcpRuns, long[] pingPongNs) {
        Json j = new Json().beginObject().field("measure", cpu ? "cpu" : "wall").field("totalBytes", totalBytes)
                .field("window", (long) window)
                .field("repeat", (long) repeat).field("socketBufferBytes", bufferBytes).beginArray("results");
        int cell = 0;
        for (long size : sizes) {
            for (int nsocks : socketCounts) {
                j.beginObject().field("bytes", size).field("nsocks", (long) nsocks)
                        .field("messages", Math.max(16, totalBytes / size))
                        .field("tcpMedianBytesPerSec", median(tcpRuns[cell]));
                if (!noRaw) {
                    j.field("rawMedianBytesPerSec", median(rawRuns[cell]));
                }
                j.endObject();
                cell++;
            }
        }
        j.endArray();
        if (pingPongRounds > 0) {
            j.beginArray("pingPong");
            for (int i = 0; i < socketCounts.size(); i++) {
                j.beginObject().field("nsocks", (long) socketCounts.get(i)).field("bytes", 8L)
                        .field("medianRoundTripNs", pingPongNs[i]).endObject();
            }
            j.endArray();
        }
        return j.endObject().toString();
    }

    /** @return "median [min-max]" in GB/s of runs measured in bytes per second */
    private static String range(double[] runs) {
        double[] sorted = runs.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%.3f [%.3f-%.3f]", median(runs) / 1e9, sorted[0] / 1e9,
                sorted[sorted.length - 1] / 1e9);
    }

    private static double median(double[] runs) {
        double[] sorted = runs.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The environment's JCCL_* options, then -O, then --buffer-bytes. */
    private Map<String, String> baseOptions() {
        Map<String, String> options = new LinkedHashMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("JCCL_")) {
                options.put(k, v);
            }
        });
        for (String kv : extraOptions) {
            int eq = kv.indexOf('=');
            if (eq <= 0 || !kv.startsWith("JCCL_")) {
                throw usage("-O must be JCCL_KEY=VALUE, not '" + kv + "'");
            }
            options.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        options.put(BUFFER_BYTES, Long.toString(bufferBytes));
        return options;
    }

    private static Map<String, String> with(Map<String, String> base, int nsocks) {
        Map<String, String> options = new LinkedHashMap<>(base);
        options.put(NSOCKS, Integer.toString(nsocks));
        return options;
    }

    private void validate() {
        for (long s : sizes) {
            if (s < 1 || s > 1L << 30) {
                throw usage("--bytes: each size must be 1 to 1G, got " + s);
            }
        }
        for (int n : socketCounts) {
            if (n < 1 || n > 16) {
                throw usage("--nsocks: each count must be 1-16, got " + n);
            }
        }
        OptionChecks.atLeast(spec, "--total", totalBytes, 1);
        OptionChecks.within(spec, "--window", window, 1, 64);
        OptionChecks.within(spec, "--repeat", repeat, 1, 100);
        if (bufferBytes != 0 && (bufferBytes < 4096 || bufferBytes > Integer.MAX_VALUE)) {
            throw usage("--buffer-bytes must be 0 or 4096 to " + Integer.MAX_VALUE + ", got " + bufferBytes);
        }
        if (pingPongRounds < 0) {
            throw usage("--pingpong must be 0 or more, got " + pingPongRounds);
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
