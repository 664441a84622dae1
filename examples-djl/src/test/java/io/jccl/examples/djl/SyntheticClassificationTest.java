package io.jccl.examples.djl;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The synthetic task is a function of its seed alone, and every class occurs. */
class SyntheticClassificationTest {
    @Test
    void theSameSeedGivesTheSameSamplesAndOrders() {
        SyntheticClassification a = SyntheticClassification.generate(42, 500, 8, 4);
        SyntheticClassification b = SyntheticClassification.generate(42, 500, 8, 4);
        int[] order = a.order(3);
        assertThat(b.order(3)).isEqualTo(order);
        assertThat(a.order(4)).isNotEqualTo(order);
        assertThat(Arrays.stream(order).sorted().toArray()).isEqualTo(java.util.stream.IntStream.range(0, 500)
                .toArray());

        float[] inputsA = new float[500 * 8];
        float[] inputsB = new float[500 * 8];
        float[] labelsA = new float[500];
        float[] labelsB = new float[500];
        a.inputs(order, 0, 500, inputsA);
        b.inputs(order, 0, 500, inputsB);
        a.labels(order, 0, 500, labelsA);
        b.labels(order, 0, 500, labelsB);
        assertThat(inputsB).isEqualTo(inputsA);
        assertThat(labelsB).isEqualTo(labelsA);

        float[] otherSeed = new float[500 * 8];
        SyntheticClassification.generate(43, 500, 8, 4).inputs(order, 0, 500, otherSeed);
        assertThat(otherSeed).isNotEqualTo(inputsA);
    }

    @Test
    void everyClassOccursWithLabelsInRange() {
        SyntheticClassification data = SyntheticClassification.generate(42, 4096, 32, 4);
        float[] labels = new float[4096];
        data.labels(data.order(0), 0, 4096, labels);
        int[] counts = new int[4];
        for (float label : labels) {
            assertThat(label).isBetween(0f, 3f).isEqualTo((float) Math.rint(label));
            counts[(int) label]++;
        }
        // No class is rare: a model must learn all of them to get the loss down.
        assertThat(Arrays.stream(counts).min().orElseThrow()).isGreaterThan(4096 / 16);
    }

    @Test
    void refusesBadSizesAndRanges() {
        assertThatThrownBy(() -> SyntheticClassification.generate(1, 0, 8, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("samples 0");
        assertThatThrownBy(() -> SyntheticClassification.generate(1, 10, 8, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("classes 1");
        SyntheticClassification data = SyntheticClassification.generate(1, 10, 2, 2);
        assertThatThrownBy(() -> data.inputs(data.order(0), 8, 3, new float[6]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("samples 8 to 11");
        assertThatThrownBy(() -> data.inputs(data.order(0), 0, 3, new float[5]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 samples need 6");
        assertThatThrownBy(() -> data.order(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
