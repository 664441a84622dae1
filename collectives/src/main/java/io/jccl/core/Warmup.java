package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Runs a new communicator's data path before the application gets it: rounds of fp32 sum all-reduces, out of
 * place and in place, from 8 bytes to above the transports' eager limits. A fresh JVM interprets the path and the
 * reduction kernels (the Vector API is far slower before C2 compiles it: 30 times under C1 alone): measured on two
 * cores, the first 8 MiB all-reduces of a fresh pair of JVMs took 300, 63, 41 and 30 ms against 4 ms once compiled,
 * and the JIT kept compiling through the next hundreds of operations.
 *
 * <p>A rank wants another round until its JVM has warmed for the time asked ({@code JCCL_WARMUP_MS}, counted across
 * the JVM's communicators, so that a JVM that creates many warms once) or its JIT has gone quiet: at most
 * {@link #QUIET_COMPILE_MS} of compilation in the last {@link #QUIET_WINDOW_NS}. The ranks must run the same
 * operations, though, so every round starts with an int64 max all-reduce of "I want another round": the rounds go
 * on while any rank wants one, and every rank sees the same answer.
 */
final class Warmup {
    /**
     * The sizes of one round's operations, each run out of place and then in place: 32 of 8 bytes, whose code the
     * JIT compiles after thousands of calls, then one below and one above the eager limits (16 KiB on shm).
     */
    static final long[] ROUND_BYTES = {8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
            8, 8, 8, 8, 8, 8, 8, 4096, 256 << 10};
    /**
     * The sizes every {@link #LARGE_EVERY}th round adds: above the shared-memory ring (4 MiB), whose branches a
     * profile of small operations alone would not hold (the JIT would compile without them, then undo that at the
     * first large operation: measured, the first 8 MiB all-reduces after small ones only still took 40-80 ms, after
     * 8 MiB ones too 5-11 ms). Not in every round: cold, one takes hundreds of milliseconds.
     */
    static final long[] LARGE_BYTES = {1 << 20, 8 << 20};
    static final int LARGE_EVERY = 16;

    /** How long a window of warm-up the JIT's activity is judged over. */
    static final long QUIET_WINDOW_NS = 100_000_000;
    /**
     * At most this much compilation in a window is quiet. Measured on two cores (two rank JVMs, shm): 120-240 ms of
     * compilation per 100 ms window at first, under 50 after 1.5 s, 0-5 from about 1.8 s on.
     */
    static final long QUIET_COMPILE_MS = 5;

    /** Nanoseconds this JVM has spent warming communicators. */
    private static final AtomicLong JVM_SPENT_NS = new AtomicLong();

    private Warmup() {
    }

    /** @return the nanoseconds this JVM has spent warming communicators */
    static long jvmSpentNs() {
        return JVM_SPENT_NS.get();
    }

    /** What one warm-up did. */
    record Outcome(int rounds, long elapsedNs) {
    }

    /** {@link #run(Communicator, long, AtomicLong, LongSupplier, LongSupplier)} with this JVM's account and JIT. */
    static Outcome run(Communicator comm, long wantNs) {
        // Not asked for when this rank wants no rounds: the management beans cost tens of ms to load.
        return run(comm, wantNs, JVM_SPENT_NS, System::nanoTime, wantNs > 0 ? compileMillis() : () -> -1);
    }

    /** @return the JIT's total compilation time in milliseconds, or a supplier of -1 where the JVM does not say */
    static LongSupplier compileMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return () -> -1;
        }
        return jit::getTotalCompilationTime;
    }

    /**
     * Warms {@code comm}'s data path; every rank of it must call this at the same point.
     *
     * @param comm    the communicator, started, no operation issued yet
     * @param wantNs  how long this rank wants its JVM to have warmed, across communicators
     * @param spentNs what this JVM has spent so far; this warm-up's time is added
     * @param clock   nanosecond clock
     * @param compileMillis the JIT's total compilation time in milliseconds, -1 where unknown (never quiet)
     * @return the rounds run (the same on every rank) and the time taken
     * @throws io.jccl.JcclException as any operation would (a peer gone, a timeout)
     */
    static Outcome run(Communicator comm, long wantNs, AtomicLong spentNs, LongSupplier clock,
                       LongSupplier compileMillis) {
        long largest = 0;
        for (long b : LARGE_BYTES) {
            largest = Math.max(largest, b);
        }
        long start = clock.getAsLong();
        long windowStart = start;
        long windowCompileMs = compileMillis.getAsLong();
        boolean quiet = false;
        int rounds = 0;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment wish = arena.allocate(ValueLayout.JAVA_LONG);
            Buffer wishBuffer = Buffer.of(wish);
            Buffer send = null;
            Buffer recv = null;
            while (true) {
                long now = clock.getAsLong();
                if (now - windowStart >= QUIET_WINDOW_NS) {
                    long compiledMs = compileMillis.getAsLong();
                    quiet = windowCompileMs >= 0 && compiledMs - windowCompileMs <= QUIET_COMPILE_MS;
                    windowStart = now;
                    windowCompileMs = compiledMs;
                }
                boolean wants = spentNs.get() + now - start < wantNs && !quiet;
                wish.set(ValueLayout.JAVA_LONG, 0, wants ? 1 : 0);
                comm.allReduce(wishBuffer, wishBuffer, 1, DataType.INT64, ReduceOp.MAX).await();
                if (wish.get(ValueLayout.JAVA_LONG, 0) == 0) {
                    break;
                }
                if (send == null) {   // not before: a warm JVM's rounds are none
                    send = Buffer.of(arena.allocate(largest, 64));
                    recv = Buffer.of(arena.allocate(largest, 64));
                }
                allReduces(comm, ROUND_BYTES, send, recv);
                if (rounds % LARGE_EVERY == LARGE_EVERY - 1) {
                    allReduces(comm, LARGE_BYTES, send, recv);
                }
                rounds++;
            }
        } finally {
            if (rounds > 0) {   // time in rounds warms; a creation that only asked does not
                spentNs.addAndGet(clock.getAsLong() - start);
            }
        }
        return new Outcome(rounds, clock.getAsLong() - start);
    }

    private static void allReduces(Communicator comm, long[] sizes, Buffer send, Buffer recv) {
        for (long bytes : sizes) {
            long count = bytes / Float.BYTES;
            comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM).await();
            comm.allReduce(recv, recv, count, DataType.FLOAT32, ReduceOp.SUM).await();
        }
    }
}
