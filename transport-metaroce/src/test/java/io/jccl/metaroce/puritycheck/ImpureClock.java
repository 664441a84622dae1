package io.jccl.metaroce.puritycheck;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Date;

/** Breaks "no clock". */
final class ImpureClock {
    private ImpureClock() {
    }

    static long now() {
        return System.nanoTime() + System.currentTimeMillis() + Instant.now().getNano()
                + LocalDateTime.now().getNano() + Clock.systemUTC().millis() + new Date().getTime();
    }
}
