package io.jccl.metaroce.offload;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Parsing {@code JCCL_METAROCE_OFFLOAD}. */
class OffloadSettingTest {
    @Test
    void autoOffAndNamesInAnyCase() {
        assertThat(OffloadSetting.from(Map.of())).isEqualTo(OffloadSetting.AUTO);
        assertThat(OffloadSetting.from(null)).isEqualTo(OffloadSetting.AUTO);
        assertThat(OffloadSetting.parse(" ")).isEqualTo(OffloadSetting.AUTO);
        assertThat(OffloadSetting.parse("AUTO")).isEqualTo(OffloadSetting.AUTO);
        assertThat(OffloadSetting.parse(" off ")).isEqualTo(OffloadSetting.OFF);
        OffloadSetting named = OffloadSetting.parse("Pensando-MetaRoCE_1.0");
        assertThat(named.mode()).isEqualTo(OffloadSetting.Mode.NAMED);
        assertThat(named.provider()).isEqualTo("pensando-metaroce_1.0");
        assertThat(named).hasToString("JCCL_METAROCE_OFFLOAD=pensando-metaroce_1.0");
        assertThat(OffloadSetting.OFF).hasToString("JCCL_METAROCE_OFFLOAD=off");
    }

    @Test
    void aBadValueNamesTheVariableAndWhatIsAllowed() {
        assertThatThrownBy(() -> OffloadSetting.parse("ionic 0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JCCL_METAROCE_OFFLOAD='ionic 0' is invalid: it must be auto, off, or the name of an "
                        + "offload provider (letters, digits, '.', '_', '-')");
        assertThatThrownBy(() -> OffloadSetting.parse("-x")).hasMessageContaining("is invalid");
    }
}
