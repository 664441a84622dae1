package io.jccl.bench;

import io.jccl.Communicator;

import java.lang.foreign.Arena;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

/**
 * How the first operations of a fresh rank JVM compare with later ones: fp32 sum all-reduces timed one by one in
 * windows right after {@code Communicator.fromEnvironment()} returns, each window's mean, median, 90th and 99th percentile
 * in µs and the JIT's compilation time during it. Run under {@code jccl run}:
 *
 * <pre>
 * ./mvnw -q -B -pl benchmarks -am package -DskipTests
 * ./jccl run -np 2 -cp benchmarks/target/classes -- io.jccl.bench.AllReduceWindows 1M 1500 3 oop-first
 * </pre>
 *
 * Arguments: the size (bytes, K/M suffix), calls per window, windows per placement, and the order:
 * {@code oop-first} (all out-of-place windows, then all in-place ones, like nccl-tests), {@code ip-first}, or
 * {@code alternate}. Rank 0 prints one line.
 */
public final class AllReduceWindows {
    private AllReduceWindows() {
    }

    /** @param args size, calls per window, windows per placement, order */
    public static void main(String[] args) {
        MainArgs.require(args.length == 4,
                "usage: AllReduceWindows SIZE CALLS_PER_WINDOW WINDOWS oop-first|ip-first|alternate");
        long bytes = MainArgs.bytes("AllReduceWindows", args[0]);
        int calls = Integer.parseInt(args[1]);
        int windows = Integer.parseInt(args[2]);
        String order = args[3];
        MainArgs.require(bytes >= Float.BYTES && calls >= 1 && windows >= 1
                && (order.equals("oop-first") || order.equals("ip-first") || order.equals("alternate")),
                "AllReduceWindows: the size must be at least 4 bytes, the counts positive, the order oop-first, "
                        + "ip-first or alternate");
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        try (Communicator comm = Communicator.fromEnvironment(); Arena arena = Arena.ofShared()) {
            SumOperands operands = SumOperands.allocate(arena, bytes);
            long[] ns = new long[calls];
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%d B, %d calls per window, %s:",
                    bytes, calls, order));
            for (int w = 0; w < 2 * windows; w++) {
                boolean inPlace = switch (order) {
                    case "oop-first" -> w >= windows;
                    case "ip-first" -> w < windows;
                    default -> w % 2 == 1;
                };
                long jitBefore = jit.getTotalCompilationTime();
                for (int i = 0; i < calls; i++) {
                    long start = System.nanoTime();
                    operands.allReduce(comm, inPlace);
                    ns[i] = System.nanoTime() - start;
                }
                long sum = 0;
                for (long t : ns) {
                    sum += t;
                }
                Arrays.sort(ns);
                // Calls 20 times the median or slower: stalls (a descheduled rank, a wake-up), and their share of
                // the window's time, which is what separates the mean from the median.
                long stallNs = 20 * ns[calls / 2];
                long stalls = 0;
                long stalledNs = 0;
                for (int i = calls - 1; i >= 0 && ns[i] > stallNs; i--) {
                    stalls++;
                    stalledNs += ns[i];
                }
                line.append(String.format(Locale.ROOT, " | %s mean %s median %s p90 %s p99 %s max %s µs, %d stalls"
                                + " (%.0f%% of the time), jit %d ms",
                        inPlace ? "ip" : "oop", micros(sum / (double) calls), micros(ns[calls / 2]),
                        micros(ns[calls * 9 / 10]), micros(ns[calls * 99 / 100]), micros(ns[calls - 1]), stalls,
                        100.0 * stalledNs / sum, jit.getTotalCompilationTime() - jitBefore));
            }
            if (comm.rank() == 0) {
                System.out.println(line);
            }
        }
    }

    /** Nanoseconds as microseconds with three significant digits (sub-microsecond calls stay visible). */
    private static String micros(double ns) {
        double us = ns / 1e3;
        return String.format(Locale.ROOT, us < 10 ? "%.2f" : us < 100 ? "%.1f" : "%.0f", us);
    }
}
