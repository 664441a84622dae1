package io.jccl.cli.bench.loss;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressBarTest {
    @Test
    void redrawsInPlaceAndClearsItself() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, 4);
        bar.update(1, "tcp loss 1%", 0.5);
        String first = bytes.toString(StandardCharsets.UTF_8);
        assertThat(first).startsWith("\r[#########...............] 1/4 tcp loss 1%  50% 0:0").doesNotContain("\n");
        bar.update(2, "tcp", 0);
        String second = bytes.toString(StandardCharsets.UTF_8).substring(first.length());
        assertThat(second).startsWith("\r[############............] 2/4 tcp   0% 0:0");
        assertThat(second.length()).as("padded over the longer line before").isEqualTo(first.length());
        bar.clear();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).endsWith("\r").doesNotContain("\n");
    }

    @Test
    void aDisabledBarPrintsNothing() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, 4);
        bar.update(1, "tcp", 0.5);
        bar.clear();
        assertThat(bytes.size()).isZero();
    }
}
