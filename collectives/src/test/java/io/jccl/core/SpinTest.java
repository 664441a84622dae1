package io.jccl.core;

import io.jccl.CommConfig;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The automatic spin times follow cores per rank on the host; set values win. */
class SpinTest {
    private static final CommConfig.Resolved AUTO = CommConfig.DEFAULT.resolve(Map.of());

    @Test
    void automaticSpinFollowsCoresPerRank() {
        // One busy thread per rank while the application waits (the waiting caller drives): a core per rank, and one
        // for the JVMs' compiler and GC threads.
        assertThat(Spin.choose(AUTO, 2, 3)).isEqualTo(new Spin(100_000, 50_000, 0));
        assertThat(Spin.choose(AUTO, 1, 2)).isEqualTo(new Spin(100_000, 50_000, 0));
        assertThat(Spin.choose(AUTO, 2, 2)).isEqualTo(new Spin(20_000, 0, 0));   // a core per rank: short, in ops
        // Fewer cores than ranks: no spin, but a waiting caller yields its core to the peers before it blocks.
        assertThat(Spin.choose(AUTO, 3, 2)).isEqualTo(new Spin(0, 0, Spin.OVERSUBSCRIBED_YIELD_US * 1000));
        assertThat(Spin.choose(AUTO, 4, 2)).isEqualTo(new Spin(0, 0, Spin.OVERSUBSCRIBED_YIELD_US * 1000));
    }

    @Test
    void setValuesWin() {
        CommConfig.Resolved set = CommConfig.DEFAULT.resolve(Map.of("JCCL_SPIN_US", "7", "JCCL_IDLE_SPIN_US", "3",
                "JCCL_YIELD_US", "0"));
        assertThat(Spin.choose(set, 8, 2)).isEqualTo(new Spin(7_000, 3_000, 0));
        CommConfig.Resolved yielding = CommConfig.DEFAULT.resolve(Map.of("JCCL_YIELD_US", "40"));
        assertThat(Spin.choose(yielding, 2, 4)).isEqualTo(new Spin(100_000, 50_000, 40_000));
    }
}
