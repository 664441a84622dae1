package io.jccl.check;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class JitQuietTest {
    private final AtomicLong compiledMs = new AtomicLong(40);
    private final AtomicLong nowNs = new AtomicLong(1_000_000_000L);
    private final JitQuiet jit = new JitQuiet(compiledMs::get, nowNs::get);

    @Test
    void quietOnlyOnceNoCompilationEndedForTheWholePeriod() {
        assertThat(jit.quiet()).as("just created").isFalse();
        nowNs.addAndGet(JitQuiet.QUIET_NS - 1);
        assertThat(jit.quiet()).isFalse();
        nowNs.addAndGet(1);
        assertThat(jit.quiet()).isTrue();
    }

    @Test
    void aCompilationEndingStartsThePeriodAgain() {
        nowNs.addAndGet(JitQuiet.QUIET_NS);
        assertThat(jit.quiet()).isTrue();
        compiledMs.addAndGet(3);
        nowNs.addAndGet(10);
        assertThat(jit.quiet()).as("a compilation ended since the last look").isFalse();
        nowNs.addAndGet(JitQuiet.QUIET_NS - 10);
        assertThat(jit.quiet()).isFalse();
        nowNs.addAndGet(10);
        assertThat(jit.quiet()).isTrue();
    }

    @Test
    void aJvmThatDoesNotReportCompilationTimeIsAlwaysQuiet() {
        assertThat(new JitQuiet(null, nowNs::get).quiet()).isTrue();
    }
}
