package io.jccl.cli.soak;

import io.jccl.metaroce.impair.Impairments;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --impair} values: keys in any order and subset, fractions and percentages, the relay's impairments. */
class ImpairSpecTest {
    @Test
    void parsesKeysInAnyOrderAndPercentages() {
        ImpairSpec s = ImpairSpec.parse(" corrupt=0.5% , loss=0.02,reorder=5%,dup=1e-2");
        assertThat(s).isEqualTo(new ImpairSpec(0.02, 0.01, 0.05, 0.005));
        assertThat(s.toString()).isEqualTo("loss=0.02,dup=0.01,reorder=0.05,corrupt=0.005");
        assertThat(ImpairSpec.parse(s.toString())).isEqualTo(s);
        assertThat(ImpairSpec.parse("loss=0")).isEqualTo(new ImpairSpec(0, 0, 0, 0));
        assertThat(ImpairSpec.parse("LOSS=0.1").loss()).isEqualTo(0.1);
    }

    @Test
    void givesTheRelayItsImpairments() {
        Impairments im = new ImpairSpec(0.02, 0.01, 0.05, 0.005).impairments();
        assertThat(im.lossRate()).isEqualTo(0.02);
        assertThat(im.duplicateRate()).isEqualTo(0.01);
        assertThat(im.reorderRate()).isEqualTo(0.05);
        assertThat(im.reorderDepthPackets()).isEqualTo(ImpairSpec.REORDER_DEPTH_PACKETS);
        assertThat(im.corruptRate()).isEqualTo(0.005);
        assertThat(im.burstLossRate()).isZero();
    }
}
