package io.jccl.core;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** On Linux, with native access (the build's test JVMs have it), the calling thread's timer slack is shortened. */
class TimerSlackTest {
    @Test
    void setsTheCallingThreadsSlackOnLinux() throws Exception {
        Path slack = Path.of("/proc/thread-self/timerslack_ns");
        boolean set = TimerSlack.setForCurrentThread(2_000);
        if (!Files.isReadable(slack)) {
            return;   // not Linux: a no-op
        }
        assertThat(set).isTrue();
        assertThat(Files.readString(slack).trim()).isEqualTo("2000");
    }
}
