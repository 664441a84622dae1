package io.jccl.examples;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AllReduceExampleTest {
    @Test
    void averagesAcrossRanks() {
        assertThat(AllReduceExample.run(4, 1000)).isEqualTo(1.5f);
        assertThat(AllReduceExample.run(3, 7)).isEqualTo(1.0f);
    }
}
