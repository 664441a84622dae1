package io.jccl.bootstrap;

import java.time.Duration;

/** Prints durations for people: {@code 300 ms}, {@code 30 s}, {@code 2.5 s}. */
final class Durations {
    private Durations() {
    }

    /**
     * @return the duration in nanoseconds, capped at a quarter of {@code Long.MAX_VALUE} so that a deadline
     *         computed from it ({@code nanoTime() + it}) and compared by subtraction stays correct
     */
    static long saturatedNanos(Duration duration) {
        long cap = Long.MAX_VALUE / 4;
        return duration.compareTo(Duration.ofNanos(cap)) > 0 ? cap : duration.toNanos();
    }

    static String describe(Duration duration) {
        return describe(duration.toNanos());
    }

    static String describe(long nanos) {
        long ms = nanos / 1_000_000;
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + " s";
        }
        return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
