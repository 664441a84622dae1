package io.jccl.memory;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.ReduceOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * All-reduce of device buffers against the same all-reduce of host segments: float32 sum, in place (as gradients
 * are reduced), {@value #RANKS} in-JVM ranks over the in-JVM transport, each rank with its own domain on device
 * rank % device count. The difference is what staging costs (a device-to-host copy into pinned staging, the host
 * all-reduce, a copy back); the device-to-host and host-to-device copy rates alone are measured too. Every size is
 * checked exactly after it is timed (each rank contributes rank + 1, so every element must be the triangle
 * number). Bus bandwidth as nccl-tests reports it for all-reduce: bytes / time * 2 (n - 1) / n.
 *
 * <p>Run by {@link GpuChecks} (and so {@code benchmarks/gpu/run-gpu-checks.sh}) on a GPU; {@code GpuChecksTest}
 * runs it on the HIP stub at small sizes, where the copies are CPU copies and the numbers mean nothing.
 */
public final class DeviceAllReduceBenchmark {
    /** Ranks: two in-JVM ranks, as on a one-GPU machine. */
    public static final int RANKS = 2;
    /** Timed operations per round at a size aim at about this many bytes, within the bounds below. */
    private static final long BYTES_PER_ROUND = 512L << 20;
    private static final int MIN_ITERATIONS = 3;
    private static final int MAX_ITERATIONS = 50;
    private static final int ROUNDS = 3;
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(60);

    /**
     * One size's results.
     *
     * @param bytes            the buffer per rank
     * @param hostMicros       host all-reduce, median time per operation
     * @param deviceMicros     device-buffer all-reduce, median time per operation
     * @param deviceToHostMicros one copy of {@code bytes} from the device into pinned staging
     * @param hostToDeviceMicros one copy of {@code bytes} from pinned staging into the device
     * @param stagingAllocationsPerOp staging segments allocated (and pinned) per timed device operation: 0 once warm
     * @param exact            whether both all-reduces gave exactly the expected sums
     */
    public record Row(long bytes, double hostMicros, double deviceMicros, double deviceToHostMicros,
                      double hostToDeviceMicros, double stagingAllocationsPerOp, boolean exact) {
        /** @return nccl-tests' bus bandwidth of the host all-reduce, GB/s */
        public double hostBusGbps() {
            return busGbps(bytes, hostMicros);
        }

        /** @return bus bandwidth of the device-buffer all-reduce, GB/s */
        public double deviceBusGbps() {
            return busGbps(bytes, deviceMicros);
        }

        /** @return what staging adds per operation, microseconds */
        public double overheadMicros() {
            return deviceMicros - hostMicros;
        }
    }

    private DeviceAllReduceBenchmark() {
    }

    static double busGbps(long bytes, double micros) {
        return bytes / (micros * 1e3) * 2.0 * (RANKS - 1) / RANKS;
    }

    /** @return {@code min}, 4 * min, ... up to {@code max} (and {@code max} itself) */
    public static long[] sizes(long minBytes, long maxBytes) {
        if (minBytes < 4 || maxBytes < minBytes) {
            throw new IllegalArgumentException("sizes need 4 <= minBytes <= maxBytes, got " + minBytes + " and "
                    + maxBytes);
        }
        List<Long> l = new ArrayList<>();
        for (long b = minBytes; b <= maxBytes; b *= 4) {
            l.add(b / 4 * 4);
            if (b > maxBytes / 4) {
                break;
            }
        }
        if (l.getLast() != maxBytes / 4 * 4) {
            l.add(maxBytes / 4 * 4);
        }
        return l.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Measures every size.
     *
     * @param provider the device domain's provider, available
     * @param sizes    bytes per rank, each a multiple of 4
     * @param progress where to print a line per size as it finishes (or null)
     * @return a row per size
     */
    public static List<Row> run(MemoryDomainProvider provider, long[] sizes, java.io.PrintStream progress) {
        List<Communicator> comms = Communicator.local(RANKS, CommConfig.builder().transport("local")
                .opTimeout(OP_TIMEOUT).build());
        List<MemoryDomain> domains = new ArrayList<>();
        List<Row> rows = new ArrayList<>();
        try {
            domains.add(provider.open(0));
            int devices = domains.get(0).deviceCount();
            for (int r = 1; r < RANKS; r++) {
                domains.add(provider.open(r % devices));
            }
            // Once, unreported: the JIT compiles the host and staging paths before the first reported size.
            measure(comms, domains, sizes[0]);
            for (long bytes : sizes) {
                Row row = measure(comms, domains, bytes);
                rows.add(row);
                if (progress != null) {
                    progress.println(formatRow(row));
                    progress.flush();
                }
            }
        } finally {
            comms.forEach(Communicator::close);
            domains.forEach(MemoryDomain::close);
        }
        return rows;
    }

    /** Measures one size; its host memory (shared: the communicators' threads use it) is freed when done. */
    private static Row measure(List<Communicator> comms, List<MemoryDomain> domains, long bytes) {
        long count = bytes / 4;
        int iterations = (int) Math.max(MIN_ITERATIONS, Math.min(MAX_ITERATIONS, BYTES_PER_ROUND / bytes));
        MemorySegment[] host = new MemorySegment[RANKS];
        Buffer[] hostBuffers = new Buffer[RANKS];   // made once: the timed host calls allocate nothing
        DeviceMemory[] device = new DeviceMemory[RANKS];
        try (Arena arena = Arena.ofShared()) {
            for (int r = 0; r < RANKS; r++) {
                host[r] = arena.allocate(bytes, 4096);   // zeros: the timed sums stay 0, never overflow
                hostBuffers[r] = Buffer.of(host[r]);
                device[r] = domains.get(r).allocate(bytes);
                device[r].copyFromHost(host[r], 0, 0, bytes);
            }
            double hostMicros = medianMicros(comms, iterations, r -> comms.get(r).allReduce(hostBuffers[r],
                    hostBuffers[r],
                    count, DataType.FLOAT32, ReduceOp.SUM));
            IntFunction<CollectiveFuture> onDevice = r -> comms.get(r).allReduce(device[r], device[r], count,
                    DataType.FLOAT32, ReduceOp.SUM);
            once(comms, onDevice);   // the first staging of this size is allocated and pinned here, not counted
            long allocationsBefore = stagingAllocations(domains);
            double deviceMicros = medianMicros(comms, iterations, onDevice);
            double allocationsPerOp = (stagingAllocations(domains) - allocationsBefore)
                    / (double) (RANKS * (iterations * ROUNDS + warmups(iterations)));
            double[] copies = copyMicros(domains.get(0), device[0], bytes, iterations);
            boolean hostExact = exactOnce(comms, arena, host, count, r -> comms.get(r).allReduce(hostBuffers[r],
                    hostBuffers[r], count, DataType.FLOAT32, ReduceOp.SUM), null);
            boolean deviceExact = exactOnce(comms, arena, host, count, onDevice, device);
            return new Row(bytes, hostMicros, deviceMicros, copies[0], copies[1], allocationsPerOp,
                    hostExact && deviceExact);
        } finally {
            for (DeviceMemory d : device) {
                if (d != null) {
                    d.close();
                }
            }
        }
    }

    private static long stagingAllocations(List<MemoryDomain> domains) {
        long n = 0;
        for (MemoryDomain d : domains) {
            n += d.stagingPool().stats().allocations();
        }
        return n;
    }

    private static int warmups(int iterations) {
        return Math.max(2, iterations / 4);
    }

    /** Median over {@value #ROUNDS} rounds of the time per operation, every rank issuing then all waiting. */
    private static double medianMicros(List<Communicator> comms, int iterations, IntFunction<CollectiveFuture> issue) {
        for (int i = 0; i < warmups(iterations); i++) {
            once(comms, issue);
        }
        double[] perOp = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                once(comms, issue);
            }
            perOp[round] = (System.nanoTime() - start) / 1e3 / iterations;
        }
        Arrays.sort(perOp);
        return perOp[ROUNDS / 2];
    }

    private static void once(List<Communicator> comms, IntFunction<CollectiveFuture> issue) {
        CollectiveFuture[] fs = new CollectiveFuture[comms.size()];
        for (int r = 0; r < fs.length; r++) {
            fs[r] = issue.apply(r);
        }
        for (CollectiveFuture f : fs) {
            if (!f.await(OP_TIMEOUT)) {
                throw new IllegalStateException("an all-reduce did not finish in " + OP_TIMEOUT);
            }
        }
    }

    /**
     * Fills rank r's buffer with r + 1, runs one all-reduce, checks every element is 1 + 2 + ... + n.
     *
     * @param device the device buffers (filled from {@code host} and read back), or null for host buffers
     */
    private static boolean exactOnce(List<Communicator> comms, Arena arena, MemorySegment[] host, long count,
                                     IntFunction<CollectiveFuture> issue, DeviceBuffer[] device) {
        long bytes = count * 4;
        for (int r = 0; r < RANKS; r++) {
            fill(host[r], count, r + 1);
            if (device != null) {
                device[r].copyFromHost(host[r], 0, 0, bytes);
            }
        }
        once(comms, issue);
        MemorySegment expected = arena.allocate(bytes, 64);
        fill(expected, count, RANKS * (RANKS + 1) / 2f);
        boolean exact = true;
        for (int r = 0; r < RANKS; r++) {
            if (device != null) {
                device[r].copyToHost(0, host[r], 0, bytes);
            }
            exact &= host[r].mismatch(expected) == -1;
            host[r].fill((byte) 0);
            if (device != null) {
                device[r].copyFromHost(host[r], 0, 0, bytes);
            }
        }
        return exact;
    }

    private static void fill(MemorySegment s, long count, float value) {
        for (long i = 0; i < count; i++) {
            s.setAtIndex(ValueLayout.JAVA_FLOAT, i, value);
        }
    }

    /** @return the median device-to-host and host-to-device copy time of {@code bytes} through pinned staging */
    private static double[] copyMicros(MemoryDomain domain, DeviceMemory device, long bytes, int iterations) {
        MemorySegment pinned = domain.stagingPool().acquire(bytes);
        try {
            double[] d2h = new double[ROUNDS];
            double[] h2d = new double[ROUNDS];
            device.copyToHost(0, pinned, 0, bytes);
            device.copyFromHost(pinned, 0, 0, bytes);
            for (int round = 0; round < ROUNDS; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    device.copyToHost(0, pinned, 0, bytes);
                }
                d2h[round] = (System.nanoTime() - start) / 1e3 / iterations;
                start = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    device.copyFromHost(pinned, 0, 0, bytes);
                }
                h2d[round] = (System.nanoTime() - start) / 1e3 / iterations;
            }
            Arrays.sort(d2h);
            Arrays.sort(h2d);
            return new double[] {d2h[ROUNDS / 2], h2d[ROUNDS / 2]};
        } finally {
            domain.stagingPool().release(pinned);
        }
    }

    /** @return the table's two header lines */
    public static String header() {
        String columns = "#%11s %10s %9s %10s %9s %10s %8s %9s %9s %8s %6s";
        return String.format(Locale.ROOT, columns, "size", "host", "host", "device", "device", "staging", "staging",
                "D2H", "H2D", "pinned", "").stripTrailing() + "\n" + String.format(Locale.ROOT, columns, "(B)", "(us)",
                "busbw", "(us)", "busbw", "(us)", "(%)", "(GB/s)", "(GB/s)", "per op", "check") + "\n";
    }

    /** @return one size's line */
    public static String formatRow(Row r) {
        return String.format(Locale.ROOT, " %11d %10.1f %9.2f %10.1f %9.2f %10.1f %8.1f %9.2f %9.2f %8.2f %6s",
                r.bytes(), r.hostMicros(), r.hostBusGbps(), r.deviceMicros(), r.deviceBusGbps(), r.overheadMicros(),
                100 * r.overheadMicros() / r.hostMicros(), r.bytes() / (r.deviceToHostMicros() * 1e3),
                r.bytes() / (r.hostToDeviceMicros() * 1e3), r.stagingAllocationsPerOp(), r.exact() ? "OK" : "WRONG");
    }
}
