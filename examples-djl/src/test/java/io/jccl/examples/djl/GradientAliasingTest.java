package io.jccl.examples.djl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.util.Pair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link JcclGradientSync} relies on: on the CPU, DJL's PyTorch engine hands out the gradient's and the
 * parameter's own storage from {@code toByteBuffer(true)}, so JCCL can reduce and broadcast in place.
 */
@EnabledIf("io.jccl.examples.djl.DjlTestSupport#pytorchNativesPresent")
class GradientAliasingTest {
    @Test
    void writesThroughTheGradientBufferReachTheGradient() {
        try (NDManager manager = NDManager.newBaseManager()) {
            Engine.getInstance().setRandomSeed(7);
            SequentialBlock block = new SequentialBlock().add(Linear.builder().setUnits(3).build());
            block.initialize(manager, DataType.FLOAT32, new Shape(2, 4));
            NDArray input = manager.randomNormal(new Shape(2, 4));
            try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
                NDArray output = block.forward(new ParameterStore(manager, false),
                        new ai.djl.ndarray.NDList(input), true).singletonOrThrow();
                collector.backward(output.square().sum());
            }
            for (Pair<String, Parameter> entry : block.getParameters()) {
                NDArray gradient = entry.getValue().getArray().getGradient();
                float[] before = gradient.toFloatArray();
                assertThat(before).as(entry.getKey()).isNotEqualTo(new float[before.length]);

                ByteBuffer buffer = gradient.toByteBuffer(true);
                assertThat(buffer.isDirect()).as(entry.getKey()).isTrue();
                assertThat(buffer.remaining()).isEqualTo(before.length * Float.BYTES);
                FloatBuffer floats = buffer.order(ByteOrder.nativeOrder()).asFloatBuffer();
                for (int i = 0; i < before.length; i++) {
                    floats.put(i, before[i] * 2 + 1);
                }

                // A fresh handle on the parameter's gradient sees the writes: the buffer was its storage.
                float[] after = entry.getValue().getArray().getGradient().toFloatArray();
                for (int i = 0; i < before.length; i++) {
                    assertThat(after[i]).as(entry.getKey() + "[" + i + "]").isEqualTo(before[i] * 2 + 1);
                }
            }
        }
    }

    @Test
    void aStridedGradientComesAsAFreshCopyEachTime() {
        try (NDManager manager = NDManager.newBaseManager()) {
            NDArray strided = manager.arange(12f).reshape(3, 4).transpose();
            strided.setRequiresGradient(true);
            try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
                collector.backward(strided.mul(strided).sum());
            }
            NDArray gradient = strided.getGradient();
            ByteBuffer first = gradient.toByteBuffer(true);
            ByteBuffer second = gradient.toByteBuffer(true);
            // Still direct, but two calls give two addresses: copies, which JcclGradientSync writes back.
            assertThat(first.isDirect()).isTrue();
            assertThat(MemorySegment.ofBuffer(second).address()).isNotEqualTo(MemorySegment.ofBuffer(first).address());
            // A contiguous gradient gives its storage, at the same address every time.
            NDArray dense = manager.arange(12f).reshape(3, 4);
            dense.setRequiresGradient(true);
            try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
                collector.backward(dense.mul(dense).sum());
            }
            assertThat(MemorySegment.ofBuffer(dense.getGradient().toByteBuffer(true)).address())
                    .isEqualTo(MemorySegment.ofBuffer(dense.getGradient().toByteBuffer(true)).address());
        }
    }

    @Test
    void writesThroughTheParameterBufferReachTheParameter() {
        try (NDManager manager = NDManager.newBaseManager()) {
            SequentialBlock block = new SequentialBlock().add(Linear.builder().setUnits(5).build());
            block.initialize(manager, DataType.FLOAT32, new Shape(1, 3));
            for (Pair<String, Parameter> entry : block.getParameters()) {
                NDArray array = entry.getValue().getArray();
                FloatBuffer floats = array.toByteBuffer(true).order(ByteOrder.nativeOrder()).asFloatBuffer();
                for (int i = 0; i < floats.limit(); i++) {
                    floats.put(i, i + 0.5f);
                }
                float[] read = array.toFloatArray();
                for (int i = 0; i < read.length; i++) {
                    assertThat(read[i]).as(entry.getKey() + "[" + i + "]").isEqualTo(i + 0.5f);
                }
            }
        }
    }
}
