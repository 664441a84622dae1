package io.jccl.memory;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.ReduceOp;
import io.jccl.memory.hip.HipMemoryDomainProvider;
import io.jccl.memory.hip.HipStub;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What staging costs: all-reduce (float32 sum, 2 in-JVM ranks) of host segments against the same all-reduce of
 * stub-HIP device buffers (a copy into pinned staging, the host all-reduce, a copy back), at a few sizes. Also the
 * stub's device-to-host copy alone, which is what the difference should be made of (twice). Off unless
 * {@code -Djccl.bench.staging=true}; prints a table and writes it to target/staging-benchmark.txt. Times are
 * medians of 5 batches; the stub's copies are CPU copies, not PCIe transfers (see docs/performance.md).
 */
class StagingOverheadBenchmark {
    private static final long[] SIZES = {4 << 10, 64 << 10, 1 << 20, 16 << 20};
    private static final int RANKS = 2;

    @Test
    void hostVersusStagedAllReduce() throws IOException {
        assumeTrue(Boolean.getBoolean("jccl.bench.staging"), "a benchmark: run with -Djccl.bench.staging=true");
        HipStub.assumeBuilt();
        List<Communicator> comms = Communicator.local(RANKS, CommConfig.builder().transport("local").build());
        List<MemoryDomain> hip = new ArrayList<>();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%10s %14s %14s %14s %16s%n", "bytes", "host us/op", "hip us/op",
                "overhead us", "stub D2H us"));
        try (Arena arena = Arena.ofShared()) {
            for (int r = 0; r < RANKS; r++) {
                hip.add(new HipMemoryDomainProvider().open(0));
            }
            for (long bytes : SIZES) {
                long count = bytes / 4;
                int iterations = (int) Math.max(8, Math.min(400, (64L << 20) / bytes));
                MemorySegment[] hostSend = new MemorySegment[RANKS];
                MemorySegment[] hostRecv = new MemorySegment[RANKS];
                Buffer[] hostSendBuffers = new Buffer[RANKS];   // made once: the timed calls allocate nothing
                Buffer[] hostRecvBuffers = new Buffer[RANKS];
                DeviceMemory[] devSend = new DeviceMemory[RANKS];
                DeviceMemory[] devRecv = new DeviceMemory[RANKS];
                for (int r = 0; r < RANKS; r++) {
                    hostSend[r] = arena.allocate(bytes, 64);
                    hostRecv[r] = arena.allocate(bytes, 64);
                    hostSendBuffers[r] = Buffer.of(hostSend[r]);
                    hostRecvBuffers[r] = Buffer.of(hostRecv[r]);
                    devSend[r] = hip.get(r).allocate(bytes);
                    devRecv[r] = hip.get(r).allocate(bytes);
                    devSend[r].copyFromHost(hostSend[r], 0, 0, bytes);
                }
                double host = medianMicros(comms, iterations, r -> comms.get(r).allReduce(hostSendBuffers[r],
                        hostRecvBuffers[r],
                        count, DataType.FLOAT32, ReduceOp.SUM));
                double staged = medianMicros(comms, iterations, r -> comms.get(r).allReduce(devSend[r], devRecv[r],
                        count, DataType.FLOAT32, ReduceOp.SUM));
                double copy = copyMicros(devSend[0], hostRecv[0], iterations);
                out.append(String.format(Locale.ROOT, "%10d %14.1f %14.1f %14.1f %16.1f%n", bytes, host, staged,
                        staged - host, copy));
                for (int r = 0; r < RANKS; r++) {
                    devSend[r].close();
                    devRecv[r].close();
                }
            }
        } finally {
            comms.forEach(Communicator::close);
            hip.forEach(MemoryDomain::close);
        }
        System.out.print(out);
        Path target = Path.of(System.getProperty("jccl.hip.library")).getParent().getParent();
        Files.writeString(target.resolve("staging-benchmark.txt"), out.toString());
    }

    /** Median over 5 batches of the time per operation, all ranks issuing then waiting. */
    private static double medianMicros(List<Communicator> comms, int iterations,
                                       IntFunction<CollectiveFuture> issue) {
        for (int i = 0; i < Math.max(3, iterations / 4); i++) {
            batch(comms, issue);
        }
        double[] perOp = new double[5];
        for (int b = 0; b < perOp.length; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                batch(comms, issue);
            }
            perOp[b] = (System.nanoTime() - start) / 1e3 / iterations;
        }
        Arrays.sort(perOp);
        return perOp[perOp.length / 2];
    }

    private static void batch(List<Communicator> comms, IntFunction<CollectiveFuture> issue) {
        CollectiveFuture[] fs = new CollectiveFuture[comms.size()];
        for (int r = 0; r < fs.length; r++) {
            fs[r] = issue.apply(r);
        }
        for (CollectiveFuture f : fs) {
            f.await();
        }
    }

    private static double copyMicros(DeviceBuffer device, MemorySegment host, int iterations) {
        long bytes = device.byteSize();
        for (int i = 0; i < 3; i++) {
            device.copyToHost(0, host, 0, bytes);
        }
        double[] t = new double[5];
        for (int b = 0; b < t.length; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                device.copyToHost(0, host, 0, bytes);
            }
            t[b] = (System.nanoTime() - start) / 1e3 / iterations;
        }
        Arrays.sort(t);
        return t[t.length / 2];
    }
}
