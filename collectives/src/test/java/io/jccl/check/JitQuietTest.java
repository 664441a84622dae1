package io.jccl.check;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class JitQuietTest {
    private final AtomicLong compiledMs = new AtomicLong(40);
    private final AtomicLong nowNs = new AtomicLong(1_000_000_000L);
    private final JitQuiet jit = new JitQuiet(compiledMs::get, nowNs::get);

    /** Lets {@code ns} pass on the clock, then asks whether the JIT is quiet. */
    private boolean quietAfter(long ns) {
        nowNs.addAndGet(ns);
        return jit.quiet();
    }

    @Test
    void quietOnlyOnceNoCompilationEndedForTheWholePeriod() {
        assertThat(jit.quiet()).as("just created").isFalse();
        assertThat(quietAfter(JitQuiet.QUIET_NS - 1)).isFalse();
        assertThat(quietAfter(1)).isTrue();
    }

    @Test
    void aCompilationEndingStartsThePeriodAgain() {
        assertThat(quietAfter(JitQuiet.QUIET_NS)).isTrue();
        compiledMs.addAndGet(3);
        assertThat(quietAfter(10)).as("a compilation ended since the last look").isFalse();
        assertThat(quietAfter(JitQuiet.QUIET_NS - 10)).isFalse();
        assertThat(quietAfter(10)).isTrue();
    }

    @Test
    void aJvmThatDoesNotReportCompilationTimeIsAlwaysQuiet() {
        assertThat(new JitQuiet(null, nowNs::get).quiet()).isTrue();
    }
}
