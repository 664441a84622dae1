package io.jccl.examples.djl;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Parameter;
import ai.djl.nn.ParameterList;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.listener.TrainingListenerAdapter;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.Batchifier;
import ai.djl.util.Pair;
import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;

/**
 * Data-parallel training of a small MLP on {@link SyntheticClassification}: every rank builds the same model,
 * takes its shard of every global batch, and averages gradients with {@link JcclGradientSync}. With one rank it
 * is plain single-process training on the whole global batch.
 *
 * <p>Each rank initializes its model from seed {@code seed + rank}, on purpose differently: the broadcast from
 * rank 0 makes them equal (the report carries each rank's parameter checksum before and after), and rank 0's
 * initialization is the one a single process makes, so runs on any number of ranks start from the same model.
 */
public final class MlpTraining {
    private MlpTraining() {
    }

    /**
     * What to train, and how.
     *
     * @param epochs        passes over the data, at least 1
     * @param samples       samples in the data set; the last partial global batch of an epoch is dropped
     * @param features      input width
     * @param classes       number of classes
     * @param hidden        width of each hidden layer
     * @param hiddenLayers  number of hidden layers (ReLU), at least 1
     * @param globalBatch   samples per step over all ranks; a multiple of the number of ranks
     * @param learningRate  SGD learning rate, positive
     * @param seed          seed of the data, the epoch orders and rank 0's initialization
     * @param strategy      how gradients go through JCCL
     */
    public record Settings(int epochs, int samples, int features, int classes, int hidden, int hiddenLayers,
                           int globalBatch, float learningRate, long seed, JcclGradientSync.Strategy strategy) {
        /** Checks the settings that do not depend on the number of ranks. */
        public Settings {
            Objects.requireNonNull(strategy, "strategy");
            positive("epochs", epochs);
            positive("features", features);
            positive("hidden", hidden);
            positive("hiddenLayers", hiddenLayers);
            positive("globalBatch", globalBatch);
            if (classes < 2) {
                throw new IllegalArgumentException("classes must be at least 2, got " + classes);
            }
            if (samples < globalBatch) {
                throw new IllegalArgumentException("samples " + samples + " is less than one global batch ("
                        + globalBatch + ")");
            }
            if (!(learningRate > 0) || Float.isInfinite(learningRate)) {
                throw new IllegalArgumentException("learningRate must be positive and finite, got " + learningRate);
            }
        }

        private static void positive(String name, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be at least 1, got " + value);
            }
        }

        /** @return steps in one epoch: whole global batches */
        public int stepsPerEpoch() {
            return samples / globalBatch;
        }

        /**
         * @param ranks the number of ranks
         * @return samples per rank per step
         * @throws IllegalArgumentException when the global batch does not split evenly
         */
        public int shardBatch(int ranks) {
            if (globalBatch % ranks != 0) {
                throw new IllegalArgumentException("the global batch " + globalBatch + " does not split evenly over "
                        + ranks + " ranks; choose a multiple of " + ranks);
            }
            return globalBatch / ranks;
        }
    }

    /**
     * What a rank saw.
     *
     * @param rank                    this rank
     * @param ranks                   the number of ranks
     * @param parameterCount          trainable values in the model
     * @param gradientBytes           bytes of gradient averaged per step (per rank)
     * @param stepLosses              the loss of every step on the global batch (the ranks' shard losses
     *                                averaged), in order
     * @param epochLosses             the mean of each epoch's step losses
     * @param stepNanos               wall time of every step on this rank: batch, forward, backward, averaging,
     *                                update
     * @param syncNanos               of which averaging the gradients
     * @param checksumBeforeBroadcast CRC32C of this rank's parameter bytes as initialized
     * @param checksumAfterBroadcast  the same after the broadcast from rank 0
     * @param checksumFinal           the same after training
     */
    public record Report(int rank, int ranks, long parameterCount, long gradientBytes, float[] stepLosses,
                         float[] epochLosses, long[] stepNanos, long[] syncNanos, long checksumBeforeBroadcast,
                         long checksumAfterBroadcast, long checksumFinal) {
        /** @return the mean loss of the last epoch */
        public float finalLoss() {
            return epochLosses[epochLosses.length - 1];
        }
    }

    /**
     * Trains on this rank. Collective: every rank of {@code comm} calls it with the same settings.
     *
     * @param comm     the ranks; one rank trains alone
     * @param settings what to train
     * @param onEpoch  told at the end of each epoch, on every rank
     * @param metrics  where to register the step timer ({@code jccl.djl.step}), the loss gauge
     *                 ({@code jccl.djl.loss}) and {@link JcclGradientSync}'s meters; null for none
     * @return this rank's report
     * @throws IllegalArgumentException when the global batch does not split over the ranks
     */
    public static Report train(Communicator comm, Settings settings, EpochListener onEpoch, MeterRegistry metrics) {
        int rank = comm.rank();
        int ranks = comm.size();
        int shard = settings.shardBatch(ranks);
        int steps = settings.stepsPerEpoch();
        SyntheticClassification data = SyntheticClassification.generate(settings.seed(), settings.samples(),
                settings.features(), settings.classes());

        Engine.getInstance().setRandomSeed((int) (settings.seed() + rank));
        JcclGradientSync sync = new JcclGradientSync(comm, settings.strategy());
        LastLoss lastLoss = new LastLoss();
        DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                .optOptimizer(Optimizer.sgd()
                        .setLearningRateTracker(Tracker.fixed(settings.learningRate()))
                        .build())
                .addTrainingListeners(sync, lastLoss);

        Timer stepTimer = null;
        AtomicReference<Float> lastEpochLoss = new AtomicReference<>(Float.NaN);
        if (metrics != null) {
            sync.bindTo(metrics);
            stepTimer = Timer.builder("jccl.djl.step")
                    .description("one training step on this rank: batch, forward, backward, averaging, update")
                    .register(metrics);
            metrics.gauge("jccl.djl.loss", List.of(), lastEpochLoss, AtomicReference::get);
        }
        float[] stepLosses = new float[settings.epochs() * steps];
        float[] epochLosses = new float[settings.epochs()];
        long[] stepNanos = new long[stepLosses.length];
        long[] syncNanos = new long[stepLosses.length];
        float[] inputs = new float[shard * settings.features()];
        float[] labels = new float[shard];
        try (Model model = Model.newInstance("mlp")) {
            model.setBlock(mlp(settings));
            try (Trainer trainer = model.newTrainer(config)) {
                trainer.initialize(new Shape(shard, settings.features()));
                ParameterList parameters = model.getBlock().getParameters();
                long before = checksum(parameters);
                sync.broadcastParameters(trainer);
                long after = checksum(parameters);

                for (int epoch = 0; epoch < settings.epochs(); epoch++) {
                    int[] order = data.order(epoch);
                    for (int step = 0; step < steps; step++) {
                        int index = epoch * steps + step;
                        long startNs = System.nanoTime();
                        int from = step * settings.globalBatch() + rank * shard;
                        data.inputs(order, from, shard, inputs);
                        data.labels(order, from, shard, labels);
                        NDManager stepManager = trainer.getManager().newSubManager();
                        // The batch owns the step's manager: closing it frees inputs, outputs and loss.
                        try (Batch batch = new Batch(stepManager,
                                new NDList(stepManager.create(inputs, new Shape(shard, settings.features()))),
                                new NDList(stepManager.create(labels, new Shape(shard))),
                                shard, Batchifier.STACK, Batchifier.STACK, step, steps)) {
                            EasyTrain.trainBatch(trainer, batch);
                            trainer.step();
                        }
                        stepNanos[index] = System.nanoTime() - startNs;
                        if (stepTimer != null) {
                            stepTimer.record(stepNanos[index], TimeUnit.NANOSECONDS);
                        }
                        syncNanos[index] = sync.lastSyncNanos();
                        stepLosses[index] = lastLoss.value;
                    }
                    // Shards are the same size, so the mean of the shard means is the global batch's mean.
                    Buffer epochLossesBuffer = Buffer.of(stepLosses)
                            .slice((long) epoch * steps * Float.BYTES, (long) steps * Float.BYTES);
                    comm.allReduce(epochLossesBuffer, epochLossesBuffer, steps, DataType.FLOAT32, ReduceOp.AVG).await();
                    double sum = 0;
                    for (int step = 0; step < steps; step++) {
                        sum += stepLosses[epoch * steps + step];
                    }
                    epochLosses[epoch] = (float) (sum / steps);
                    lastEpochLoss.set(epochLosses[epoch]);
                    onEpoch.epochDone(epoch + 1, epochLosses[epoch], stepNanos, syncNanos, (epoch + 1) * steps);
                }
                long parameterCount = 0;
                long gradientBytes = 0;
                for (Pair<String, Parameter> entry : parameters) {
                    NDArray array = entry.getValue().getArray();
                    parameterCount += array.size();
                    gradientBytes += array.size() * array.getDataType().getNumOfBytes();
                }
                return new Report(rank, ranks, parameterCount, gradientBytes, stepLosses, epochLosses,
                        stepNanos, syncNanos, before, after, checksum(parameters));
            }
        }
    }

    /** Told when an epoch ends. */
    @FunctionalInterface
    public interface EpochListener {
        /**
         * @param epoch     the epoch that ended, from 1
         * @param meanLoss  its mean loss on the global batches
         * @param stepNanos step times so far (only the first {@code stepsDone} are set)
         * @param syncNanos averaging times so far
         * @param stepsDone steps done so far
         */
        void epochDone(int epoch, float meanLoss, long[] stepNanos, long[] syncNanos, int stepsDone);
    }

    /**
     * The model: {@code hiddenLayers} × (Linear, ReLU), then a Linear to the class scores.
     *
     * @param settings the sizes
     * @return an uninitialized block
     */
    static SequentialBlock mlp(Settings settings) {
        SequentialBlock block = new SequentialBlock();
        for (int i = 0; i < settings.hiddenLayers(); i++) {
            block.add(Linear.builder().setUnits(settings.hidden()).build());
            block.add(Activation.reluBlock());
        }
        block.add(Linear.builder().setUnits(settings.classes()).build());
        return block;
    }

    /**
     * @param parameters a model's parameters
     * @return CRC32C of all their bytes in order: equal on two ranks exactly when the models are bit for bit
     *         equal (but for a 2<sup>-32</sup> chance)
     */
    static long checksum(ParameterList parameters) {
        CRC32C crc = new CRC32C();
        for (Pair<String, Parameter> entry : parameters) {
            ByteBuffer bytes = entry.getValue().getArray().toByteBuffer(true);
            crc.update(bytes);
        }
        return crc.getValue();
    }

    /** Keeps the loss of the last training batch, on this rank's shard. */
    private static final class LastLoss extends TrainingListenerAdapter {
        private float value;

        @Override
        public void onTrainingBatch(Trainer trainer, BatchData batchData) {
            NDList labels = batchData.getLabels().values().iterator().next();
            NDList predictions = batchData.getPredictions().values().iterator().next();
            try (NDArray loss = trainer.getLoss().evaluate(labels, predictions)) {
                value = loss.getFloat();
            }
        }
    }

    /** An {@link EpochListener} that does nothing. */
    static final EpochListener QUIET = (epoch, meanLoss, stepNanos, syncNanos, stepsDone) -> { };
}
