package io.jccl.check;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/**
 * Tells a benchmark whether this JVM's JIT has been quiet long enough to time something. A JVM keeps compiling for
 * seconds after the calls begin, and compiles again whenever another kind of call (a barrier, a check's all-reduce)
 * changes the type profiles of shared code: measured on this project's 2-core machines, 77-132 ms of recompiling fell
 * into the first timed window after a barrier and doubled an 8 B all-reduce's time. The benchmarks warm up until
 * every rank's JIT {@link #quiet() has been quiet} for {@link #QUIET_NS}.
 *
 * <p>What it sees is the JVM's total compilation time, which grows when a compilation ends: one still running is
 * seen only when it ends, so the quiet period must be longer than most compilations.
 */
public final class JitQuiet {
    /** How long no compilation may have ended before a JIT counts as quiet. */
    public static final long QUIET_NS = 200_000_000L;

    private final LongSupplier compiledMs;
    private final LongSupplier clockNs;
    private long lastCompiledMs;
    private long changedAtNs;

    /**
     * @param compiledMs the JIT's total compilation time in ms so far, or null when this JVM does not tell
     * @param clockNs    a monotonic clock
     */
    JitQuiet(LongSupplier compiledMs, LongSupplier clockNs) {
        this.compiledMs = compiledMs;
        this.clockNs = clockNs;
        this.lastCompiledMs = compiledMs == null ? 0 : compiledMs.getAsLong();
        this.changedAtNs = clockNs.getAsLong();
    }

    /** @return a watch over this JVM's JIT; on a JVM that does not report compilation time, always quiet */
    public static JitQuiet ofThisJvm() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean reported = jit != null && jit.isCompilationTimeMonitoringSupported();
        return new JitQuiet(reported ? jit::getTotalCompilationTime : null, System::nanoTime);
    }

    /** @return true once no compilation has ended for {@link #QUIET_NS} (each call looks again) */
    public boolean quiet() {
        long nowNs = clockNs.getAsLong();
        if (compiledMs == null) {
            return true;
        }
        long ms = compiledMs.getAsLong();
        if (ms != lastCompiledMs) {
            lastCompiledMs = ms;
            changedAtNs = nowNs;
        }
        return nowNs - changedAtNs >= QUIET_NS;
    }
}
