package io.jccl.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Each check's bounds (inclusive where it says so), its returned value, and the one error form. */
class ArgumentsTest {
    private static void refused(Runnable check, String message) {
        assertThatThrownBy(check::run).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void inRangeTakesBothEndsAndRefusesBeyondThem() {
        assertThat(Arguments.inRange("paths", 1, 1, 64)).isEqualTo(1);
        assertThat(Arguments.inRange("paths", 64, 1, 64)).isEqualTo(64);
        refused(() -> Arguments.inRange("paths", 0, 1, 64), "paths=0 must be 1-64");
        refused(() -> Arguments.inRange("paths", 65, 1, 64), "paths=65 must be 1-64");
        assertThat(Arguments.inRange("bytes", 1L << 40, 0L, 1L << 40)).isEqualTo(1L << 40);
        refused(() -> Arguments.inRange("bytes", -1L, 0L, 10L), "bytes=-1 must be 0-10");
        refused(() -> Arguments.inRange("bytes", Long.MAX_VALUE, 0L, 10L),
                "bytes=" + Long.MAX_VALUE + " must be 0-10");
    }

    @Test
    void atLeastTakesItsBound() {
        assertThat(Arguments.atLeast("windowBytes", 1024, 1024)).isEqualTo(1024);
        refused(() -> Arguments.atLeast("windowBytes", 1023, 1024), "windowBytes=1023 must be >= 1024");
    }

    @Test
    void positiveRefusesZeroNegativeAndNaN() {
        assertThat(Arguments.positive("rateBytesPerSec", 1L)).isEqualTo(1L);
        refused(() -> Arguments.positive("rateBytesPerSec", 0L), "rateBytesPerSec=0 must be > 0");
        refused(() -> Arguments.positive("rateBytesPerSec", -5L), "rateBytesPerSec=-5 must be > 0");
        assertThat(Arguments.positive("gbps", 0.5)).isEqualTo(0.5);
        refused(() -> Arguments.positive("gbps", 0.0), "gbps=0.0 must be > 0");
        refused(() -> Arguments.positive("gbps", Double.NaN), "gbps=NaN must be > 0");
    }

    @Test
    void requireNamesWhatWasExpected() {
        Arguments.require(true, "rtoFloorNs/rtoMaxNs", "5/1", "floor <= max");
        refused(() -> Arguments.require(false, "rtoFloorNs/rtoMaxNs", "5/1", "floor <= max"),
                "rtoFloorNs/rtoMaxNs=5/1 must be floor <= max");
    }
}
