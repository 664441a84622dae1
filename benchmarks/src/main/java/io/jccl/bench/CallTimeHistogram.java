package io.jccl.bench;

import io.jccl.Communicator;

import java.lang.foreign.Arena;
import java.util.Locale;

/**
 * Where the mean of a small all-reduce goes beyond its median: out-of-place fp32 sum all-reduces timed one by one in
 * rounds, and per round the mean and how many calls fell into each duration band and their
 * share of the round's wall time. Short stalls (10-100 µs) are context switches on a core where a caller spins;
 * milliseconds are compiler threads, collections and scheduler slices. A second line per round gives the median call
 * time by the call's position modulo {@value #PERIOD}: a protocol event every so many messages (a lazy ACK, a credit
 * report) shows as slow positions. Run under {@code jccl run}:
 *
 * <pre>
 * ./mvnw -q -B -pl benchmarks -am package -DskipTests
 * ./jccl run -np 2 -x JCCL_NET=shm -cp benchmarks/target/classes -- io.jccl.bench.CallTimeHistogram 8 2000000 3
 * </pre>
 *
 * Arguments: the size in bytes (K/M suffix), calls per round, rounds. Rank 0 prints one line per round.
 */
public final class CallTimeHistogram {
    /** Lower bounds of the bands, in ns; the last band is open. */
    private static final long[] BAND_NS = {0, 250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
        500_000, 1_000_000, 5_000_000};
    private static final String[] BAND_NAMES = {"<0.25us", "0.25-0.5us", "0.5-1us", "1-2us", "2-5us", "5-10us",
        "10-20us", "20-50us", "50-100us", "0.1-0.5ms", "0.5-1ms", "1-5ms", ">5ms"};
    /** Call positions are grouped modulo this for the second line (the transports' per-16-message events). */
    static final int PERIOD = 16;

    private CallTimeHistogram() {
    }

    /** @param args size, calls per round, rounds */
    public static void main(String[] args) {
        MainArgs.require(args.length == 3, "usage: CallTimeHistogram SIZE CALLS_PER_ROUND ROUNDS");
        long bytes = MainArgs.bytes("CallTimeHistogram", args[0]);
        long calls = Long.parseLong(args[1]);
        int rounds = Integer.parseInt(args[2]);
        MainArgs.require(bytes >= Float.BYTES && calls >= 1 && rounds >= 1,
                "CallTimeHistogram: the size must be at least 4 bytes, the counts positive");
        try (Communicator comm = Communicator.fromEnvironment(); Arena arena = Arena.ofShared()) {
            SumOperands operands = SumOperands.allocate(arena, bytes);
            long[] callNs = new long[(int) Math.min(calls, 1 << 24)];   // the first 16 M calls of a round, by position
            for (int round = 0; round < rounds; round++) {
                long[] callsInBand = new long[BAND_NS.length];
                long[] nsInBand = new long[BAND_NS.length];
                long totalNs = 0;
                long begin = System.nanoTime();
                for (long i = 0; i < calls; i++) {
                    long start = System.nanoTime();
                    operands.allReduce(comm, false);
                    long ns = System.nanoTime() - start;
                    if (i < callNs.length) {
                        callNs[(int) i] = ns;
                    }
                    totalNs += ns;
                    int band = BAND_NS.length - 1;
                    while (ns < BAND_NS[band]) {
                        band--;
                    }
                    callsInBand[band]++;
                    nsInBand[band] += ns;
                }
                double wallNs = System.nanoTime() - begin;
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %d: %d calls of %d B, mean %.3f"
                        + " us;", round, calls, bytes, totalNs / 1e3 / calls));
                for (int b = 0; b < BAND_NS.length; b++) {
                    line.append(String.format(Locale.ROOT, " %s %d (%.1f%%)", BAND_NAMES[b], callsInBand[b],
                            100.0 * nsInBand[b] / wallNs));
                }
                if (comm.rank() == 0) {
                    System.out.println(line);
                    System.out.println(String.format(Locale.ROOT, "round %d: median us by call position mod %d: %s",
                            round, PERIOD, mediansByPosition(callNs, (int) Math.min(calls, callNs.length))));
                }
            }
        }
    }

    /** @return the median of {@code ns[0..n)} at each position modulo {@link #PERIOD}, in µs, one decimal */
    static String mediansByPosition(long[] ns, int n) {
        StringBuilder out = new StringBuilder();
        for (int position = 0; position < PERIOD; position++) {
            int m = position < n ? (n - position + PERIOD - 1) / PERIOD : 0;
            long[] at = new long[m];
            for (int k = 0; k < m; k++) {
                at[k] = ns[position + k * PERIOD];
            }
            java.util.Arrays.sort(at);
            out.append(position == 0 ? "" : " ").append(m == 0 ? "-" : String.format(Locale.ROOT, "%.1f", at[m / 2] / 1e3));
        }
        return out.toString();
    }
}
