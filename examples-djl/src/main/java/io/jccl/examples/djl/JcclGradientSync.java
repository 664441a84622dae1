package io.jccl.examples.djl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.nn.ParameterList;
import ai.djl.training.Trainer;
import ai.djl.training.listener.TrainingListenerAdapter;
import ai.djl.util.Pair;
import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Data-parallel training for DJL: a {@link ai.djl.training.listener.TrainingListener} that averages every
 * parameter's gradient across the ranks of a JCCL {@link Communicator} after each backward pass, before
 * {@link Trainer#step()}, and broadcasts rank 0's parameters at the start so that every rank begins from the same
 * model.
 *
 * <pre>{@code
 * try (Communicator comm = Communicator.fromEnvironment()) {
 *     JcclGradientSync sync = new JcclGradientSync(comm);
 *     TrainingConfig config = new DefaultTrainingConfig(loss).optOptimizer(sgd).addTrainingListeners(sync);
 *     try (Trainer trainer = model.newTrainer(config)) {
 *         trainer.initialize(inputShape);
 *         sync.broadcastParameters(trainer);          // every rank now holds rank 0's initial parameters
 *         for (Batch batch : myShardOfEachGlobalBatch) {
 *             EasyTrain.trainBatch(trainer, batch);   // forward, backward, then this listener averages
 *             trainer.step();
 *             batch.close();
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Each rank feeds its own shard of every global batch, all shards the same size. DJL's losses are means over
 * the batch, so the average of the ranks' gradients is the gradient of the global batch's mean loss: the update
 * single-process training on the whole global batch makes, up to the order of floating-point additions.
 *
 * <p>The gradients are reduced where they are. For a parameter on the CPU, DJL's PyTorch engine returns from
 * {@code getGradient().toByteBuffer(true)} a direct buffer over the gradient tensor's own storage (the tests check
 * that writing through it changes the gradient), so {@link Strategy#IN_PLACE} all-reduces those buffers with no
 * copy at all. Where the engine hands out a copy instead (a heap buffer; a host copy of an array on a GPU; a
 * contiguous copy of a strided array, found out once per parameter because a second call returns another
 * address), the averaged copy is written back with {@link NDArray#set(java.nio.Buffer)}.
 *
 * <p>A listener is used by one training loop: its methods must not run concurrently. Every rank must train the
 * same model (the same parameters in the same order, with the same shapes and types), or the all-reduce fails
 * with the mismatch JCCL detects. JCCL's timeouts and failures surface here as {@link io.jccl.JcclException}.
 */
public final class JcclGradientSync extends TrainingListenerAdapter implements MeterBinder {
    /** The rank whose parameters {@link #broadcastParameters(ParameterList)} gives to everyone. */
    public static final int ROOT_RANK = 0;

    /** How the gradients of one step go through JCCL. */
    public enum Strategy {
        /** One all-reduce per gradient, in place on the gradient's own storage; all issued before any is awaited. */
        IN_PLACE,
        /**
         * The gradients are copied into one buffer per element type, all-reduced with a single call, and copied
         * back: two copies of the gradients, but one collective's latency instead of one per parameter.
         */
        FLAT
    }

    private final Communicator comm;
    private final Strategy strategy;
    /** Whether each parameter's gradient buffer is its storage, found out on the first averaging. */
    private final Map<Parameter, Boolean> gradientAliased = new IdentityHashMap<>();
    private ByteBuffer flat;
    private boolean parametersBroadcast;
    private long syncCount;
    private long totalSyncNanos;
    private long lastSyncNanos;
    private volatile long lastGradientBytes;
    private volatile Timer syncTimer;

    /**
     * Averages gradients with {@link Strategy#FLAT}, the faster of the two for models of many small parameters
     * (docs/examples-djl.md has the measurements).
     *
     * @param comm the ranks that train together; not closed by this listener
     */
    public JcclGradientSync(Communicator comm) {
        this(comm, Strategy.FLAT);
    }

    /**
     * Averages gradients the way {@code strategy} says.
     *
     * @param comm     the ranks that train together; not closed by this listener
     * @param strategy how the gradients go through JCCL
     */
    public JcclGradientSync(Communicator comm, Strategy strategy) {
        this.comm = Objects.requireNonNull(comm, "comm");
        this.strategy = Objects.requireNonNull(strategy, "strategy");
    }

    /** @return how gradients go through JCCL */
    public Strategy strategy() {
        return strategy;
    }

    /**
     * Broadcasts the parameters from the trainer's model. See {@link #broadcastParameters(ParameterList)}.
     *
     * @param trainer a trainer whose model is initialized ({@link Trainer#initialize})
     */
    public void broadcastParameters(Trainer trainer) {
        broadcastParameters(trainer.getModel().getBlock().getParameters());
    }

    /**
     * Overwrites every parameter with rank {@value #ROOT_RANK}'s value, so that all ranks start training from the
     * same model however each initialized its own. Collective: every rank calls it with the same parameters. Call
     * it after {@link Trainer#initialize}; the listener calls it itself when training begins on an already
     * initialized model.
     *
     * @param parameters the model's parameters, all initialized
     * @throws IllegalStateException when a parameter is not initialized yet
     */
    public void broadcastParameters(ParameterList parameters) {
        List<NDArray> arrays = new ArrayList<>();
        for (Pair<String, Parameter> entry : parameters) {
            if (!entry.getValue().isInitialized()) {
                throw new IllegalStateException("parameter " + entry.getKey() + " is not initialized: call "
                        + "broadcastParameters after Trainer.initialize");
            }
            arrays.add(entry.getValue().getArray());
        }
        List<HostView> views = new ArrayList<>(arrays.size());
        List<CollectiveFuture> pending = new ArrayList<>(arrays.size());
        for (NDArray array : arrays) {
            HostView view = HostView.of(array, null);
            views.add(view);
            pending.add(comm.broadcast(Buffer.of(view.buffer()), array.size(), jcclType(array), ROOT_RANK));
        }
        for (int i = 0; i < arrays.size(); i++) {
            pending.get(i).await();
            views.get(i).writeBackUnlessAliased();
        }
        parametersBroadcast = true;
    }

    /**
     * Replaces every gradient of {@code parameters} by its average over the ranks. Collective. The listener
     * calls it after each backward pass; call it yourself in a loop of your own, between the backward pass and
     * {@link Trainer#step()}.
     *
     * @param parameters the model's parameters; those without a gradient are skipped (the same on every rank)
     */
    public void allReduceGradients(ParameterList parameters) {
        long startNs = System.nanoTime();
        if (comm.size() == 1) {
            // The average over one rank is its own gradient: single-process training pays nothing here.
            lastGradientBytes = 0;
        } else {
            List<NDArray> gradients = new ArrayList<>();
            try {
                List<HostView> views = new ArrayList<>();
                for (Pair<String, Parameter> entry : parameters) {
                    Parameter parameter = entry.getValue();
                    if (parameter.requiresGradient() && parameter.isInitialized()
                            && parameter.getArray().hasGradient()) {
                        NDArray gradient = parameter.getArray().getGradient();
                        gradients.add(gradient);
                        Boolean aliased = gradientAliased.get(parameter);
                        HostView view = HostView.of(gradient, aliased);
                        if (aliased == null) {
                            gradientAliased.put(parameter, view.aliased());
                        }
                        views.add(view);
                    }
                }
                lastGradientBytes = switch (strategy) {
                    case IN_PLACE -> allReduceInPlace(views);
                    case FLAT -> allReduceFlat(views);
                };
            } finally {
                // getGradient() hands out a new handle on the gradient each time; closing it leaves the gradient.
                gradients.forEach(NDArray::close);
            }
        }
        lastSyncNanos = System.nanoTime() - startNs;
        totalSyncNanos += lastSyncNanos;
        syncCount++;
        Timer timer = syncTimer;
        if (timer != null) {
            timer.record(lastSyncNanos, TimeUnit.NANOSECONDS);
        }
    }

    private long allReduceInPlace(List<HostView> views) {
        List<CollectiveFuture> pending = new ArrayList<>(views.size());
        long bytes = 0;
        for (HostView view : views) {
            bytes += view.buffer().remaining();
            Buffer gradient = Buffer.of(view.buffer());
            pending.add(comm.allReduce(gradient, gradient, view.array().size(), jcclType(view.array()), ReduceOp.AVG));
        }
        for (int i = 0; i < views.size(); i++) {
            pending.get(i).await();
            views.get(i).writeBackUnlessAliased();
        }
        return bytes;
    }

    private long allReduceFlat(List<HostView> views) {
        long total = 0;
        for (HostView view : views) {
            total += view.buffer().remaining();
        }
        if (total > Integer.MAX_VALUE) {
            throw new IllegalStateException("the gradients hold " + total + " bytes, more than one flat buffer can ("
                    + Integer.MAX_VALUE + "); use Strategy.IN_PLACE");
        }
        if (flat == null || flat.capacity() < total) {
            flat = ByteBuffer.allocateDirect((int) total).order(ByteOrder.nativeOrder());
        }
        // One all-reduce per run of gradients of the same element type: usually all of them, in one call.
        int runStart = 0;
        int runStartBytes = 0;
        while (runStart < views.size()) {
            DataType type = jcclType(views.get(runStart).array());
            int runEnd = runStart;
            int runBytes = 0;
            while (runEnd < views.size() && jcclType(views.get(runEnd).array()) == type) {
                ByteBuffer source = views.get(runEnd).buffer();
                flat.put(runStartBytes + runBytes, source, source.position(), source.remaining());
                runBytes += source.remaining();
                runEnd++;
            }
            ByteBuffer run = flat.slice(runStartBytes, runBytes).order(ByteOrder.nativeOrder());
            Buffer runBuffer = Buffer.of(run);
            comm.allReduce(runBuffer, runBuffer, runBytes / type.sizeBytes(), type, ReduceOp.AVG).await();
            int offset = runStartBytes;
            for (int i = runStart; i < runEnd; i++) {
                ByteBuffer target = views.get(i).buffer();
                target.put(target.position(), flat, offset, target.remaining());
                offset += target.remaining();
                views.get(i).writeBackUnlessAliased();
            }
            runStart = runEnd;
            runStartBytes += runBytes;
        }
        return total;
    }

    /**
     * Broadcasts the parameters when training begins on an initialized model. DJL calls this from the
     * {@link Trainer}'s constructor, usually before {@link Trainer#initialize}; then the parameters are not there
     * yet and {@link #broadcastParameters(Trainer)} must be called after initializing.
     */
    @Override
    public void onTrainingBegin(Trainer trainer) {
        ParameterList parameters = trainer.getModel().getBlock().getParameters();
        boolean initialized = !parameters.isEmpty();
        for (Pair<String, Parameter> entry : parameters) {
            initialized &= entry.getValue().isInitialized();
        }
        if (initialized) {
            broadcastParameters(parameters);
        }
    }

    /**
     * Averages the gradients of the batch just back-propagated ({@link ai.djl.training.EasyTrain#trainBatch} calls
     * the listeners after the backward pass and before the caller's {@link Trainer#step()}).
     *
     * @throws IllegalStateException when the parameters were never broadcast: the ranks would each train a
     *                               different model
     */
    @Override
    public void onTrainingBatch(Trainer trainer, BatchData batchData) {
        if (!parametersBroadcast) {
            throw new IllegalStateException("JcclGradientSync: the parameters were not broadcast from rank "
                    + ROOT_RANK + "; call broadcastParameters(trainer) after trainer.initialize(...)");
        }
        allReduceGradients(trainer.getModel().getBlock().getParameters());
    }

    /** @return whether {@link #broadcastParameters(ParameterList)} has run */
    public boolean parametersBroadcast() {
        return parametersBroadcast;
    }

    /** @return how many times the gradients were averaged */
    public long syncCount() {
        return syncCount;
    }

    /** @return nanoseconds spent averaging gradients, all steps together (including fetching and copies) */
    public long totalSyncNanos() {
        return totalSyncNanos;
    }

    /** @return nanoseconds the last averaging took */
    public long lastSyncNanos() {
        return lastSyncNanos;
    }

    /** @return bytes of gradient the last averaging reduced on this rank (0 with one rank: nothing to do) */
    public long lastGradientBytes() {
        return lastGradientBytes;
    }

    /**
     * Registers {@code jccl.djl.gradient.sync}, a timer of each averaging (tag {@code strategy}), and
     * {@code jccl.djl.gradient.bytes}, the bytes of gradient averaged in the last step.
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        String tag = strategy.name().toLowerCase(Locale.ROOT);
        syncTimer = Timer.builder("jccl.djl.gradient.sync")
                .description("time to average the gradients of one step across the ranks")
                .tag("strategy", tag)
                .register(registry);
        registry.gauge("jccl.djl.gradient.bytes", List.of(Tag.of("strategy", tag)), this, s -> s.lastGradientBytes);
    }

    /**
     * An array's bytes on the host, as {@code toByteBuffer(true)} hands them out, in the native byte order, and
     * whether they are the array's own storage.
     *
     * @param array   the array
     * @param buffer  its bytes
     * @param aliased whether writing {@code buffer} writes the array
     */
    private record HostView(NDArray array, ByteBuffer buffer, boolean aliased) {
        /**
         * @param array         the array
         * @param knownAliasing whether this array's buffers were found to alias it before (for a parameter's
         *                      gradient, which keeps its layout), or null to find out
         */
        static HostView of(NDArray array, Boolean knownAliasing) {
            ByteBuffer buffer = array.toByteBuffer(true).order(ByteOrder.nativeOrder());
            if (!buffer.isDirect() || !Device.Type.CPU.equals(array.getDevice().getDeviceType())) {
                // A heap copy, or a host copy of a GPU array.
                return new HostView(array, buffer, false);
            }
            if (knownAliasing != null) {
                return new HostView(array, buffer, knownAliasing);
            }
            // A direct buffer is a view of the storage when the array is dense and contiguous; otherwise the
            // engine made a contiguous copy, kept alive by the array's manager. A second call then makes another
            // copy at another address, while a view is at the same address again.
            ByteBuffer again = array.toByteBuffer(true);
            boolean sameMemory = MemorySegment.ofBuffer(buffer).address() == MemorySegment.ofBuffer(again).address();
            return new HostView(array, buffer, sameMemory);
        }

        /** Writes the buffer into the array unless it is the array's storage already. */
        void writeBackUnlessAliased() {
            if (!aliased) {
                array.set(buffer.rewind());
            }
        }
    }

    /**
     * @return the JCCL type of the array's elements
     * @throws IllegalArgumentException for a type DJL has and JCCL cannot average
     */
    static DataType jcclType(NDArray array) {
        return switch (array.getDataType()) {
            case FLOAT32 -> DataType.FLOAT32;
            case FLOAT64 -> DataType.FLOAT64;
            case FLOAT16 -> DataType.FLOAT16;
            case BFLOAT16 -> DataType.BFLOAT16;
            case INT8 -> DataType.INT8;
            case UINT8 -> DataType.UINT8;
            case INT32 -> DataType.INT32;
            case INT64 -> DataType.INT64;
            default -> throw new IllegalArgumentException("JCCL cannot reduce DJL arrays of type "
                    + array.getDataType() + " (array " + array.getName() + ", shape " + array.getShape() + ")");
        };
    }
}
