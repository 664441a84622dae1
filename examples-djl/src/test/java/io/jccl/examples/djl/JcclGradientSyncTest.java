package io.jccl.examples.djl;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.nn.ParameterList;
import ai.djl.nn.SequentialBlock;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.loss.Loss;
import io.jccl.Communicator;
import io.jccl.examples.djl.JcclGradientSync.Strategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JcclGradientSync} with ranks as threads of this JVM ({@link Communicator#local(int)}): gradients become
 * the ranks' mean, parameters rank 0's. Every rank's gradients come from one backward pass over all ranks'
 * parameters together, because DJL's PyTorch engine lets only one gradient collector run in a JVM at a time and
 * zeroes every gradient of the JVM when one starts; training with a backward pass per rank is in
 * {@link DataParallelTrainingTest}, one rank per process.
 */
@EnabledIf("io.jccl.examples.djl.DjlTestSupport#pytorchNativesPresent")
class JcclGradientSyncTest {
    private static final int RANKS = 2;
    private static final String[] TRAINABLE = {"w1", "b1", "scale", "w2", "wt"};

    /**
     * The ranks' parameters: float32 and float64 ones (two runs of one type for {@link Strategy#FLAT}), a strided
     * one, and a frozen one without a gradient, which must be left alone; values and gradients drawn from each
     * rank's seed.
     */
    private static ParameterList[] parameters(NDManager manager, long... seeds) {
        ParameterList[] ranks = new ParameterList[seeds.length];
        for (int r = 0; r < seeds.length; r++) {
            SplittableRandom random = new SplittableRandom(seeds[r]);
            ranks[r] = new ParameterList();
            ranks[r].add("w1", trainable(manager, random, "w1", new Shape(33, 7), DataType.FLOAT32));
            ranks[r].add("b1", trainable(manager, random, "b1", new Shape(7), DataType.FLOAT32));
            ranks[r].add("scale", trainable(manager, random, "scale", new Shape(5), DataType.FLOAT64));
            ranks[r].add("w2", trainable(manager, random, "w2", new Shape(7, 3), DataType.FLOAT32));
            // A transposed view: strided, so the engine hands out contiguous copies, written back after averaging.
            NDArray strided = manager.create(gaussian(random, 12), new Shape(3, 4)).transpose();
            strided.setRequiresGradient(true);
            ranks[r].add("wt", Parameter.builder().setName("wt").setType(Parameter.Type.WEIGHT).optArray(strided)
                    .build());
            ranks[r].add("frozen", Parameter.builder().setName("frozen").setType(Parameter.Type.RUNNING_MEAN)
                    .optArray(manager.create(new float[] {1, 2, 3})).optRequiresGrad(false).build());
        }
        // Every gradient is set by a backward pass of sum(array x coefficients), whose gradient is the coefficients
        // exactly. One collector for all ranks, one backward per array (keeping each in its own type: DJL's toType
        // leaves the autograd graph).
        try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
            for (int r = 0; r < seeds.length; r++) {
                SplittableRandom random = new SplittableRandom(~seeds[r]);
                for (String name : TRAINABLE) {
                    NDArray array = ranks[r].get(name).getArray();
                    float[] values = gaussian(random, (int) array.size());
                    // The gradient is laid out like the product, so the strided array's coefficients are strided.
                    NDArray coefficients = name.equals("wt")
                            ? manager.create(values, new Shape(3, 4)).transpose()
                            : manager.create(values, array.getShape()).toType(array.getDataType(), false);
                    collector.backward(array.mul(coefficients).sum());
                }
            }
        }
        return ranks;
    }

    private static Parameter trainable(NDManager manager, SplittableRandom random, String name, Shape shape,
                                       DataType type) {
        NDArray array = manager.create(gaussian(random, (int) shape.size()), shape).toType(type, false);
        array.setRequiresGradient(true);
        return Parameter.builder().setName(name).setType(Parameter.Type.WEIGHT).optArray(array).build();
    }

    private static float[] gaussian(SplittableRandom random, int n) {
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = (float) (random.nextGaussian() * 3);
        }
        return values;
    }

    private static double[] gradient(ParameterList parameters, String name) {
        try (NDArray gradient = parameters.get(name).getArray().getGradient()) {
            return gradient.toType(DataType.FLOAT64, true).toDoubleArray();
        }
    }

    /** Runs {@code body} for every rank at once, each on its own thread. */
    private static void onEveryRank(IntFunction<Runnable> body) throws Exception {
        List<CompletableFuture<Void>> ranks = new ArrayList<>();
        for (int r = 0; r < RANKS; r++) {
            ranks.add(CompletableFuture.runAsync(body.apply(r), runnable -> Thread.ofPlatform().start(runnable)));
        }
        CompletableFuture.allOf(ranks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void everyGradientBecomesTheMeanOfTheRanksGradients(Strategy strategy) throws Exception {
        List<Communicator> comms = Communicator.local(RANKS);
        try (NDManager manager = NDManager.newBaseManager()) {
            ParameterList[] ranks = parameters(manager, 100, 200);
            String[] trainable = TRAINABLE;
            List<double[][]> before = new ArrayList<>();
            for (String name : trainable) {
                before.add(new double[][] {gradient(ranks[0], name), gradient(ranks[1], name)});
            }
            for (double[][] both : before) {
                // Every gradient came from the backward pass: no zeros, and the ranks' differ everywhere.
                for (int i = 0; i < both[0].length; i++) {
                    assertThat(both[0][i]).isNotZero().isNotEqualTo(both[1][i]);
                }
            }
            try (NDArray strided = ranks[0].get("wt").getArray().getGradient()) {
                // The write-back path runs: this gradient's buffers are copies (another address each time).
                assertThat(MemorySegment.ofBuffer(strided.toByteBuffer(true)).address())
                        .isNotEqualTo(MemorySegment.ofBuffer(strided.toByteBuffer(true)).address());
            }
            JcclGradientSync[] syncs = {new JcclGradientSync(comms.get(0), strategy),
                    new JcclGradientSync(comms.get(1), strategy)};

            onEveryRank(r -> () -> syncs[r].allReduceGradients(ranks[r]));

            for (int p = 0; p < trainable.length; p++) {
                boolean single = ranks[0].get(trainable[p]).getArray().getDataType() == DataType.FLOAT32;
                double[] g0 = before.get(p)[0];
                double[] g1 = before.get(p)[1];
                for (int r = 0; r < RANKS; r++) {
                    double[] after = gradient(ranks[r], trainable[p]);
                    for (int i = 0; i < after.length; i++) {
                        // Two ranks: AVG's sum is one rounded addition and halving is exact, so the mean in the
                        // gradient's own precision is exact to the bit.
                        double expected = single ? (float) g0[i] + (float) g1[i] : g0[i] + g1[i];
                        expected = single ? (float) expected / 2 : expected / 2;
                        assertThat(after[i]).as("rank %d %s[%d]", r, trainable[p], i).isEqualTo(expected);
                    }
                }
            }
            assertThat(syncs[0].lastGradientBytes())
                    .isEqualTo((33 * 7 + 7 + 7 * 3 + 4 * 3) * Float.BYTES + 5 * Double.BYTES);
            for (int r = 0; r < RANKS; r++) {
                assertThat(ranks[r].get("frozen").getArray().toFloatArray()).containsExactly(1, 2, 3);
                assertThat(syncs[r].syncCount()).isEqualTo(1);
            }
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void broadcastGivesEveryRankRankZerosParameters() throws Exception {
        List<Communicator> comms = Communicator.local(RANKS);
        try (NDManager manager = NDManager.newBaseManager()) {
            ParameterList[] ranks = parameters(manager, 1, 2);
            double[] rankZeroW1 = values(ranks[0], "w1");
            double[] rankZeroScale = values(ranks[0], "scale");
            double[] rankZeroStrided = values(ranks[0], "wt");
            assertThat(values(ranks[1], "w1")).isNotEqualTo(rankZeroW1);
            JcclGradientSync[] syncs = {new JcclGradientSync(comms.get(0)), new JcclGradientSync(comms.get(1))};

            onEveryRank(r -> () -> syncs[r].broadcastParameters(ranks[r]));

            for (int r = 0; r < RANKS; r++) {
                assertThat(values(ranks[r], "w1")).as("rank %d", r).isEqualTo(rankZeroW1);
                assertThat(values(ranks[r], "scale")).as("rank %d", r).isEqualTo(rankZeroScale);
                assertThat(values(ranks[r], "wt")).as("rank %d", r).isEqualTo(rankZeroStrided);
                assertThat(syncs[r].parametersBroadcast()).isTrue();
            }
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    private static double[] values(ParameterList parameters, String name) {
        return parameters.get(name).getArray().toType(DataType.FLOAT64, true).toDoubleArray();
    }

    @Test
    void aTrainerOnAnInitializedModelBroadcastsWhenTrainingBegins() throws Exception {
        List<Communicator> comms = Communicator.local(RANKS);
        List<Model> models = new ArrayList<>();
        try {
            for (int r = 0; r < RANKS; r++) {
                Engine.getInstance().setRandomSeed(10 + r);
                Model model = Model.newInstance("rank" + r);
                SequentialBlock block = MlpTraining.mlp(new MlpTraining.Settings(1, 8, 4, 3, 6, 1, 8, 0.1f, 0,
                        Strategy.FLAT));
                block.initialize(model.getNDManager(), DataType.FLOAT32, new Shape(8, 4));
                model.setBlock(block);
                models.add(model);
            }
            long rankZero = MlpTraining.checksum(models.get(0).getBlock().getParameters());
            assertThat(MlpTraining.checksum(models.get(1).getBlock().getParameters())).isNotEqualTo(rankZero);
            JcclGradientSync[] syncs = {new JcclGradientSync(comms.get(0)), new JcclGradientSync(comms.get(1))};
            Trainer[] trainers = new Trainer[RANKS];

            // DJL tells the listeners that training begins from the Trainer's constructor.
            onEveryRank(r -> () -> trainers[r] = models.get(r).newTrainer(
                    new DefaultTrainingConfig(Loss.l2Loss()).addTrainingListeners(syncs[r])));

            for (int r = 0; r < RANKS; r++) {
                assertThat(syncs[r].parametersBroadcast()).isTrue();
                assertThat(MlpTraining.checksum(models.get(r).getBlock().getParameters())).isEqualTo(rankZero);
                trainers[r].close();
            }
        } finally {
            models.forEach(Model::close);
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void refusesToAverageBeforeTheParametersWereBroadcast() {
        List<Communicator> comms = Communicator.local(1);
        try {
            JcclGradientSync sync = new JcclGradientSync(comms.get(0));
            // The check comes before the trainer is looked at.
            assertThatThrownBy(() -> sync.onTrainingBatch(null, null))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("call broadcastParameters(trainer) after trainer.initialize");
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void uninitializedParametersCannotBeBroadcast() {
        List<Communicator> comms = Communicator.local(1);
        try {
            SequentialBlock block = MlpTraining.mlp(new MlpTraining.Settings(1, 8, 4, 3, 6, 1, 8, 0.1f, 0,
                    Strategy.FLAT));
            JcclGradientSync sync = new JcclGradientSync(comms.get(0));
            assertThatThrownBy(() -> sync.broadcastParameters(block.getParameters()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is not initialized");
            assertThat(sync.parametersBroadcast()).isFalse();
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void oneRankLeavesTheGradientsAsTheyAre() throws Exception {
        List<Communicator> comms = Communicator.local(1);
        try (NDManager manager = NDManager.newBaseManager()) {
            ParameterList parameters = parameters(manager, 5)[0];
            double[] before = gradient(parameters, "w1");
            JcclGradientSync sync = new JcclGradientSync(comms.get(0));
            sync.allReduceGradients(parameters);
            assertThat(gradient(parameters, "w1")).isEqualTo(before);
            assertThat(sync.lastGradientBytes()).isZero();
        } finally {
            comms.forEach(Communicator::close);
        }
    }
}
