package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * fp32 sum all-reduces timed in windows whose start and end times rank 0 prints on the clock
 * {@code benchmarks/mpi/core_round_trip --watch} writes its looks with ({@link System#nanoTime()} is
 * {@code CLOCK_MONOTONIC} on Linux), so that {@code benchmarks/mpi/placed.sh} can tell which windows ran while the
 * host kept the two vCPUs near each other and which while it kept them apart (a 1 MiB call costs about five times
 * as much then, in JCCL and in Open MPI alike). Run under {@code jccl run}:
 *
 * <pre>
 * ./mvnw -q -B -pl benchmarks -am package -DskipTests
 * ./jccl run -np 2 -x JCCL_NET=shm -cp benchmarks/target/classes -- io.jccl.bench.PlacedAllReduce 1M 20000 10000 200 alternate
 * </pre>
 *
 * Arguments: the size (bytes, K/M suffix, a multiple of 4), warm-up calls, timed calls, calls per window, the
 * placement: {@code oop} (out of place), {@code ip} (in place) or {@code alternate} (windows alternate between the
 * two, warm-up included, so both meet the same host), and optionally {@code registered}: buffers from
 * {@link Communicator#allocate(long)} (as {@code jccl perf -R 1}) instead of ordinary memory. Rank 0 prints a {@code #} header, then per window
 * {@code #window START_NS END_NS US_PER_CALL oop|ip}, then one line of the whole timed loop's microseconds per call
 * and whether the checked call after it was exact. Exit status 1 when it was not, 2 on bad arguments.
 */
public final class PlacedAllReduce {
    private static final String NAME = "PlacedAllReduce";

    private PlacedAllReduce() {
    }

    /** @param args size, warm-up calls, timed calls, calls per window, placement */
    public static void main(String[] args) {
        MainArgs.require(args.length == 5 || args.length == 6 && args[5].equals("registered"),
                "usage: PlacedAllReduce SIZE WARMUP_CALLS TIMED_CALLS CALLS_PER_WINDOW oop|ip|alternate [registered]");
        boolean registered = args.length == 6;
        long bytes = MainArgs.bytes(NAME, args[0]);
        int warmup = MainArgs.count(NAME, args[1]);
        int timed = MainArgs.count(NAME, args[2]);
        int window = MainArgs.count(NAME, args[3]);
        String placement = args[4];
        MainArgs.require(bytes >= Float.BYTES && bytes % Float.BYTES == 0 && warmup >= 0 && window >= 1
                && timed >= window && timed % window == 0
                && (placement.equals("oop") || placement.equals("ip") || placement.equals("alternate")),
                NAME + ": the size must be a positive multiple of 4 bytes, the warm-up at least 0, the timed calls a "
                        + "positive multiple of the window, the placement oop, ip or alternate");
        long count = bytes / Float.BYTES;
        int status;
        try (Communicator comm = Communicator.fromEnvironment(); Arena arena = Arena.ofShared()) {
            MemorySegment send = registered ? comm.allocate(bytes) : arena.allocate(bytes, 64);
            MemorySegment recv = registered ? comm.allocate(bytes) : arena.allocate(bytes, 64);
            fillOnes(send);
            recv.fill((byte) 0);
            Buffer sendBuffer = Buffer.of(send);   // made once: a call allocates nothing
            Buffer recvBuffer = Buffer.of(recv);
            int windows = timed / window;
            long[] edgesNs = new long[windows + 1];
            boolean[] inPlace = new boolean[windows];
            for (int i = 0; i < warmup; i++) {
                boolean ip = inPlace(placement, i / window);
                comm.allReduce(sendBuffer, ip ? sendBuffer : recvBuffer, count, DataType.FLOAT32, ReduceOp.SUM).await();
            }
            // No barrier between warm-up and timing: the calls keep the ranks in step, and a first barrier here would
            // deoptimize the all-reduce path the JIT compiled for all-reduces only (measured: uncommon traps in
            // CommImpl.collective and the plan runner, then 34 µs per 8-byte call over TCP for a window instead of 12).
            long start = System.nanoTime();
            for (int w = 0; w < windows; w++) {
                boolean ip = inPlace(placement, w);
                inPlace[w] = ip;
                Buffer out = ip ? sendBuffer : recvBuffer;
                edgesNs[w] = System.nanoTime();
                for (int i = 0; i < window; i++) {
                    comm.allReduce(sendBuffer, out, count, DataType.FLOAT32, ReduceOp.SUM).await();
                }
            }
            edgesNs[windows] = System.nanoTime();
            double usPerCall = (edgesNs[windows] - start) / 1e3 / timed;
            // The checked call: every rank's input 1.0f, so every element of the sum is the rank count.
            fillOnes(send);
            recv.fill((byte) 0);
            comm.allReduce(sendBuffer, recvBuffer, count, DataType.FLOAT32, ReduceOp.SUM).await();
            long wrong = 0;
            for (long i = 0; i < count; i++) {
                if (recv.getAtIndex(ValueLayout.JAVA_FLOAT, i) != comm.size()) {
                    wrong++;
                }
            }
            status = wrong == 0 ? 0 : 1;
            if (comm.rank() == 0) {
                StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                        "# PlacedAllReduce: %d B fp32 sum, %d ranks, %d warm-up calls, %d timed in windows of %d, %s%s%n",
                        bytes, comm.size(), warmup, timed, window, placement, registered ? ", registered" : ""));
                for (int w = 0; w < windows; w++) {
                    out.append(String.format(Locale.ROOT, "#window %d %d %.3f %s%n", edgesNs[w], edgesNs[w + 1],
                            (edgesNs[w + 1] - edgesNs[w]) / 1e3 / window, inPlace[w] ? "ip" : "oop"));
                }
                out.append(String.format(Locale.ROOT, "%d %.3f %s", bytes, usPerCall,
                        wrong == 0 ? "exact" : wrong + " wrong elements"));
                System.out.println(out);
            }
            if (registered) {
                comm.free(send);
                comm.free(recv);
            }
        }
        System.exit(status);
    }

    private static boolean inPlace(String placement, int window) {
        return switch (placement) {
            case "ip" -> true;
            case "oop" -> false;
            default -> window % 2 == 1;
        };
    }

    private static void fillOnes(MemorySegment segment) {
        for (long i = 0; i < segment.byteSize() / Float.BYTES; i++) {
            segment.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1.0f);
        }
    }
}
