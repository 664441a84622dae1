package io.jccl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** JCCL_DEBUG to slf4j-simple's level for the io.jccl loggers. */
class LogBackendTest {
    @Test
    void eachLevelOpensTheBackendAsFarAsItNeeds() {
        assertThat(LogBackend.level(Map.of("JCCL_DEBUG", "WARN"))).isEqualTo("warn");
        assertThat(LogBackend.level(Map.of("JCCL_DEBUG", "version"))).isEqualTo("info");
        assertThat(LogBackend.level(Map.of("JCCL_DEBUG", "Info"))).isEqualTo("info");
        assertThat(LogBackend.level(Map.of("JCCL_DEBUG", "DEBUG"))).isEqualTo("debug");
        assertThat(LogBackend.level(Map.of("JCCL_DEBUG", "trace"))).isEqualTo("trace");
    }

    @Test
    void unsetOrBadLeavesTheBackendAlone() {
        assertThat(LogBackend.level(Map.of())).isNull();
        assertThat(LogBackend.level(Map.of("JCCL_DEBUG", " "))).isNull();
        assertThat(LogBackend.level(Map.of("JCCL_DEBUG", "LOUD"))).isNull();
        assertThat(LogBackend.jvmOptions(Map.of("JCCL_DEBUG", "LOUD"))).isEmpty();
    }

    @Test
    void rankJvmsGetOneSystemProperty() {
        assertThat(LogBackend.jvmOptions(Map.of("JCCL_DEBUG", "INFO")))
                .containsExactly("-Dorg.slf4j.simpleLogger.log.io.jccl=info");
    }
}
