package io.jccl.metaroce.net;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code JCCL_METAROCE_DEAD_MS}: the silence limit after which a connection fails, checked and in nanoseconds. */
class MetaRoceDeadOptionTest {
    @Test
    void theDefaultIsTenSecondsAndAValueIsMilliseconds() {
        assertThat(MetaRoceOptions.parse(Map.of()).deadNs()).isEqualTo(10_000_000_000L);
        assertThat(MetaRoceOptions.parse(Map.of(MetaRoceOptions.DEAD_MS, " 2500 ")).deadNs())
                .isEqualTo(2_500_000_000L);
    }

    @Test
    void valuesOutOfRangeOrNotNumbersAreRejectedNamingTheOption() {
        for (String bad : new String[] {"0", "99", "-5", "3600001", "10s", "ten"}) {
            assertThatThrownBy(() -> MetaRoceOptions.parse(Map.of(MetaRoceOptions.DEAD_MS, bad)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("JCCL_METAROCE_DEAD_MS='" + bad + "' is invalid")
                    .hasMessageContaining("from 100 to 3600000");
        }
    }

    @Test
    void theLimitMustOutlastFourRetransmissionTimeouts() {
        assertThatThrownBy(() -> MetaRoceOptions.parse(Map.of(MetaRoceOptions.DEAD_MS, "150",
                MetaRoceOptions.RTO_FLOOR_US, "50000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JCCL_METAROCE_DEAD_MS='150' is invalid")
                .hasMessageContaining("200 ms with JCCL_METAROCE_RTO_FLOOR_US=50000");
        assertThat(MetaRoceOptions.parse(Map.of(MetaRoceOptions.DEAD_MS, "200", MetaRoceOptions.RTO_FLOOR_US,
                "50000")).deadNs()).isEqualTo(200_000_000L);
    }
}
