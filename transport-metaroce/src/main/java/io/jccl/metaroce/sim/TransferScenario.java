package io.jccl.metaroce.sim;

import io.jccl.config.Arguments;
import io.jccl.metaroce.impair.Impairments;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A checked transfer between simulated endpoints: builds N {@link Verbs} endpoints with a {@link VerbsFactory},
 * connects them over a {@link Simulator}, posts WRITEs and SENDs (with their RECVs, some posted late to provoke
 * receiver-not-ready), runs the simulation, and checks the outcome. Everything, the workload included, follows from
 * the seed: a failure's message names it, and the same scenario with that seed replays it.
 *
 * <h2>Writing a scenario</h2>
 * <pre>{@code
 * ScenarioResult r = TransferScenario.builder(seed)
 *         .protocol(Protocols.goBackN(GoBackNConfig.defaults()))   // or Protocols.metaRoCE()
 *         .nodes(3)
 *         .impairments(Impairments.NONE.withLossRate(0.01))       // on every route
 *         .setup(sim -> sim.fabric().blackHole(1, 2, 0, 0, 50_000))
 *         .write(0, 1, 100_000)                                   // node index 0 writes 100 kB into node 1
 *         .send(0, 2, 7, 5_000, 0, 80_000)                        // SEND on stream 7, RECV posted at 80 µs
 *         .randomWork(20, 20_000, 3)                              // plus 20 random items from the seed
 *         .build().run();                                         // throws ScenarioFailure
 * }</pre>
 * Node index {@code i} has node id {@link #nodeId nodeId(i)} = {@code i + 1}. For each pair of nodes that exchange
 * work the lower index connects at time 0; work is posted on each side once its post time has come and its
 * connection is known there ({@link Verbs#connectionTo} is not -1), in the order it was added.
 *
 * <h2>What is checked</h2>
 * <ul>
 *   <li>every posted item completes exactly once, with {@link CompletionStatus#OK}, its kind and its byte count;
 *       nothing completes that was not posted;</li>
 *   <li>SEND completions (at the sender) and RECV completions (at the receiver) come in posting order per
 *       connection and stream;</li>
 *   <li>when a WRITE or SEND completes, the bytes are already in place and equal to what was sent (likewise for a
 *       RECV);</li>
 *   <li>after everything completed and the network drained: all data is still correct (no late writes), no byte
 *       outside the targets changed (each region and receive arena has guard zones around it and gaps between
 *       targets, all filled with a known pattern; a receive buffer's unused tail counts as outside), and the sources
 *       are unchanged;</li>
 *   <li>when the endpoints count {@link Counter#PAYLOAD_BYTES_PLACED}, their total equals the payload exactly (each
 *       byte placed once);</li>
 *   <li>the simulation finishes: a stuck, livelocked or timed-out run fails, listing the work still
 *       outstanding; an exception from an endpoint fails with it as the cause.</li>
 * </ul>
 * Data and guards are position-addressed pseudo-random streams of the seed, so checking them costs no shadow
 * copies.
 */
public final class TransferScenario {
    private final long seed;
    private final int nodes;
    private final VerbsFactory protocol;
    private final EndpointConfig endpointConfig;
    private final FabricConfig fabric;
    private final int guardBytes;
    private final int gapBytes;
    private final int recvSlackBytes;
    private final long timeLimitNs;
    private final long maxEvents;
    private final long drainNs;
    private final Consumer<Simulator> setup;
    private final DeliveryObserver observer;
    private final LongSupplier wallClock;
    private final List<OpSpec> ops;

    /** One work item as added to the builder. */
    private record OpSpec(boolean send, int from, int to, int stream, long bytes, long postAtNs, long recvAtNs) {
    }

    private TransferScenario(Builder b) {
        seed = b.seed;
        nodes = b.nodes;
        protocol = Objects.requireNonNull(b.protocol, "protocol (a VerbsFactory) must be set");
        EndpointConfig c = b.endpointConfig != null ? b.endpointConfig : EndpointConfig.defaults(key(b.seed));
        endpointConfig = b.paths > 0 ? c.withPaths(b.paths) : c;
        int needed = Math.min(65536, endpointConfig.payloadBytes() + 512);
        fabric = b.fabric.maxDatagramBytes() >= needed ? b.fabric : b.fabric.withMaxDatagramBytes(needed);
        guardBytes = b.guardBytes;
        gapBytes = b.gapBytes;
        recvSlackBytes = b.recvSlackBytes;
        timeLimitNs = b.timeLimitNs;
        maxEvents = b.maxEvents;
        drainNs = b.drainNs;
        setup = b.setup;
        observer = b.observer;
        wallClock = b.wallClock;
        ops = List.copyOf(b.ops);
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("a scenario needs at least one work item");
        }
    }

    private static byte[] key(long seed) {
        byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = Patterns.byteAt(seed ^ 0x6B6579L, i);
        }
        return k;
    }

    /**
     * @param seed the seed of everything random in the scenario (fabric, endpoints, generated work, data)
     * @return a builder
     */
    public static Builder builder(long seed) {
        return new Builder(seed);
    }

    /** @return the node id of node index {@code index} */
    public static long nodeId(int index) {
        return index + 1L;
    }

    /** @return the seed */
    public long seed() {
        return seed;
    }

    /** @return the endpoint settings every node gets */
    public EndpointConfig endpointConfig() {
        return endpointConfig;
    }

    /** @return the fabric */
    public FabricConfig fabric() {
        return fabric;
    }

    /** @return work items */
    public int workItems() {
        return ops.size();
    }

    /**
     * Runs the scenario (again: each run starts afresh from the seed).
     *
     * @return what it measured
     * @throws ScenarioFailure when a check fails or the simulation cannot finish
     */
    public ScenarioResult run() {
        return new Run().execute();
    }

    /** Builds a {@link TransferScenario}. */
    public static final class Builder {
        private final long seed;
        private int nodes = 2;
        private VerbsFactory protocol;
        private EndpointConfig endpointConfig;
        private int paths;
        private FabricConfig fabric = FabricConfig.datacenter();
        private int guardBytes = 64;
        private int gapBytes = 16;
        private int recvSlackBytes = 16;
        private long timeLimitNs = 60_000_000_000L;
        private long maxEvents = 4_000_000_000L;
        private long drainNs = 2_000_000;
        private Consumer<Simulator> setup = sim -> { };
        private DeliveryObserver observer;
        private LongSupplier wallClock = () -> 0;
        private final List<OpSpec> ops = new ArrayList<>();

        private Builder(long seed) {
            this.seed = seed;
        }

        /** Sets the number of nodes (2-1024, default 2). */
        public Builder nodes(int n) {
            nodes = inRange("nodes", n, 2, 1024);
            return this;
        }

        /** Sets the protocol under test. */
        public Builder protocol(VerbsFactory factory) {
            protocol = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** Sets the endpoint settings (default: {@link EndpointConfig#defaults} with a key from the seed). */
        public Builder endpointConfig(EndpointConfig config) {
            endpointConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Sets the paths per connection, over whatever endpoint settings are used. */
        public Builder paths(int n) {
            paths = inRange("paths", n, 1, EndpointConfig.MAX_PATHS);
            return this;
        }

        /** Sets the fabric (default {@link FabricConfig#datacenter()}). */
        public Builder fabric(FabricConfig config) {
            fabric = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Sets what every route does to packets. */
        public Builder impairments(Impairments impairments) {
            fabric = fabric.withImpairments(impairments);
            return this;
        }

        /** Runs {@code s} on the simulator before anything starts (black holes, per-route impairments...). */
        public Builder setup(Consumer<Simulator> s) {
            setup = Objects.requireNonNull(s, "setup");
            return this;
        }

        /** Sets an observer of every delivered datagram. */
        public Builder observeDeliveries(DeliveryObserver o) {
            observer = o;
            return this;
        }

        /** Sets the guard zone before and after each region and receive arena (default 64 bytes). */
        public Builder guardBytes(int bytes) {
            guardBytes = inRange("guardBytes", bytes, 0, 1 << 20);
            return this;
        }

        /** Sets the untouchable gap between targets inside a region or receive arena (default 16 bytes). */
        public Builder gapBytes(int bytes) {
            gapBytes = inRange("gapBytes", bytes, 0, 1 << 20);
            return this;
        }

        /** Sets how much larger than its message each receive buffer is (default 16 bytes). */
        public Builder recvSlackBytes(int bytes) {
            recvSlackBytes = inRange("recvSlackBytes", bytes, 0, 1 << 20);
            return this;
        }

        /**
         * @return {@code value}
         * @throws IllegalArgumentException naming the setting when {@code value} is not {@code min}-{@code max}
         */
        private static int inRange(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + "=" + value + " must be " + min + "-" + max);
            }
            return value;
        }

        /** Sets the virtual-time limit (default 60 s). */
        public Builder timeLimitNs(long ns) {
            Arguments.require(ns > 0 && ns <= 8_000_000_000_000L, "timeLimitNs", ns, "in (0, 8e12]");
            timeLimitNs = ns;
            return this;
        }

        /** Sets the event budget (default 4e9). */
        public Builder maxEvents(long n) {
            maxEvents = Arguments.positive("maxEvents", n);
            return this;
        }

        /** Sets how long the network keeps running after the last completion before the final checks (2 ms). */
        public Builder drainNs(long ns) {
            drainNs = Arguments.atLeast("drainNs", ns, 0);
            return this;
        }

        /**
         * Sets the clock that times the simulation loop for {@link ScenarioResult#runWallNs} (e.g. nanoTime); the
         * data checks made at completions are left out of that time.
         */
        public Builder wallClock(LongSupplier clock) {
            wallClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Adds a WRITE of {@code bytes} from node index {@code from} into node {@code to}, posted at 0. */
        public Builder write(int from, int to, long bytes) {
            return write(from, to, bytes, 0);
        }

        /** Adds a WRITE posted at {@code postAtNs}. */
        public Builder write(int from, int to, long bytes, long postAtNs) {
            ops.add(new OpSpec(false, checkNode(from), checkPeer(from, to), 0, checkBytes(bytes),
                    checkTime(postAtNs), 0));
            return this;
        }

        /** Adds a SEND on {@code stream}, posted at 0, its RECV posted as soon as possible. */
        public Builder send(int from, int to, int stream, long bytes) {
            return send(from, to, stream, bytes, 0, 0);
        }

        /**
         * Adds a SEND on {@code stream} posted at {@code postAtNs}; its RECV is posted at {@code recvAtNs} (a late
         * RECV provokes receiver-not-ready). Within one stream, later items are posted no earlier than earlier
         * ones.
         */
        public Builder send(int from, int to, int stream, long bytes, long postAtNs, long recvAtNs) {
            ops.add(new OpSpec(true, checkNode(from), checkPeer(from, to), stream, checkBytes(bytes),
                    checkTime(postAtNs), checkTime(recvAtNs)));
            return this;
        }

        /**
         * Adds {@code count} work items drawn from the seed: WRITEs and SENDs between random distinct nodes, sizes
         * from 0 to {@code maxBytes} (favouring 0, 1 and packet-size boundaries), on {@code streams} streams,
         * posted at 0 or within the first 50 µs, a third of the RECVs posted up to 200 µs late.
         */
        public Builder randomWork(int count, long maxBytes, int streams) {
            if (count < 0 || maxBytes < 0 || streams < 1) {
                throw new IllegalArgumentException("randomWork(" + count + ", " + maxBytes + ", " + streams + ")");
            }
            SplittableRandom r = new SplittableRandom(Fabric.splitmix(seed ^ 0x776F726BL) ^ ops.size());
            int payload = endpointConfig != null ? endpointConfig.payloadBytes() : 4096;
            for (int k = 0; k < count; k++) {
                int from = r.nextInt(nodes);
                int to = (from + 1 + r.nextInt(nodes - 1)) % nodes;
                long bytes = switch (r.nextInt(8)) {
                    case 0 -> r.nextInt(2);
                    case 1 -> Math.max(0, Math.min(maxBytes, payload + r.nextInt(3) - 1));
                    case 2 -> Math.max(0, Math.min(maxBytes, 2L * payload + r.nextInt(3) - 1));
                    default -> maxBytes == 0 ? 0 : r.nextLong(maxBytes + 1);
                };
                long postAt = r.nextBoolean() ? 0 : r.nextLong(50_000);
                if (r.nextInt(5) < 2) {
                    write(from, to, bytes, postAt);
                } else {
                    long recvAt = r.nextInt(3) == 0 ? postAt + r.nextLong(200_000) : 0;
                    send(from, to, r.nextInt(streams), bytes, postAt, recvAt);
                }
            }
            return this;
        }

        private int checkNode(int i) {
            if (i < 0 || i >= nodes) {
                throw new IllegalArgumentException("node index " + i + " is not in 0-" + (nodes - 1)
                        + " (set nodes first)");
            }
            return i;
        }

        private int checkPeer(int from, int to) {
            checkNode(to);
            if (to == from) {
                throw new IllegalArgumentException("a node cannot send to itself (node index " + from + ")");
            }
            return to;
        }

        private static long checkBytes(long bytes) {
            return Arguments.inRange("bytes", bytes, 0, Integer.MAX_VALUE - (1 << 22));
        }

        private static long checkTime(long ns) {
            if (ns < 0) {
                throw new IllegalArgumentException("time " + ns + " ns must be >= 0");
            }
            return ns;
        }

        /** @return the scenario */
        public TransferScenario build() {
            return new TransferScenario(this);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** A work item being run. */
    private static final class Op {
        final int index;
        final OpSpec spec;
        final long postAtNs;
        final long recvAtNs;
        int sourceOffset;
        int targetOffset;
        long capacity;
        boolean senderDone;
        boolean receiverDone;
        long doneNs;

        Op(int index, OpSpec spec, long postAtNs, long recvAtNs) {
            this.index = index;
            this.spec = spec;
            this.postAtNs = postAtNs;
            this.recvAtNs = recvAtNs;
        }

        boolean done() {
            return senderDone && (!spec.send || receiverDone);
        }

        @Override
        public String toString() {
            OpSpec s = spec;
            return String.format(Locale.ROOT, "%s #%d (node %d -> node %d%s, %d bytes, posted at %d ns%s)",
                    s.send ? "SEND" : "WRITE", index, nodeId(s.from), nodeId(s.to),
                    s.send ? ", stream " + s.stream : "", s.bytes, postAtNs,
                    s.send ? ", RECV posted at " + recvAtNs + " ns" : "");
        }
    }

    /** A post waiting for its time and its connection. */
    private record Task(Op op, boolean receiverSide, long atNs) {
    }

    /** A completion we expect: the item and which side. */
    private record Role(Op op, boolean receiverSide) {
    }

    /** A (node, connection, stream, direction) whose completions must come in posting order. */
    private record StreamKey(int node, int connection, int stream, boolean receives) {
    }

    /** The memory of one node: its sources, its WRITE region and its receive arena, with guards. */
    private static final class NodeMemory {
        byte[] source = new byte[0];
        MemorySegment sourceSegment;
        byte[] region;
        MemorySegment regionSegment;
        int regionKey;
        byte[] recv;
        MemorySegment recvSegment;
    }

    /** One execution. */
    private final class Run {
        private final List<String> problems = new ArrayList<>();
        private final Op[] work = new Op[ops.size()];
        private final NodeMemory[] memory = new NodeMemory[nodes];
        private final Verbs[] verbs = new Verbs[nodes];
        private final List<Map<Long, Role>> expected = new ArrayList<>();
        private final Map<StreamKey, ArrayDeque<Long>> streamOrder = new HashMap<>();
        private final List<ArrayDeque<Task>> tasks = new ArrayList<>();
        private Simulator sim;
        private int outstanding;
        private long lastCompletionNs;
        private long payloadBytes;
        /** Wall time spent checking data inside the loop, left out of the loop's time. */
        private long checkWallNs;

        ScenarioResult execute() {
            Throwable cause = null;
            long wall = 0;
            try {
                plan();
                sim = new Simulator(fabric, seed);
                if (observer != null) {
                    sim.fabric().observeDeliveries(observer);
                }
                for (int i = 0; i < nodes; i++) {
                    SplittableRandom nodeRandom = new SplittableRandom(Fabric.splitmix(seed ^ (0xE0E0L + i)));
                    verbs[i] = Objects.requireNonNull(protocol.create(endpointConfig, nodeId(i), nodeRandom),
                            "the factory returned null");
                    allocate(i);
                    int node = i;
                    CompletionHandler handler = (conn, workId, kind, status, bytes) ->
                            onCompletion(node, conn, workId, kind, status, bytes);
                    sim.addNode(nodeId(i), verbs[i], now -> {
                        verbs[node].pollCompletions(handler);
                        postReady(node, now);
                    });
                }
                setup.accept(sim);
                connectAndSchedule();
                long start = wallClock.getAsLong();
                RunResult r = sim.run(() -> outstanding == 0 || !problems.isEmpty(), maxEvents, timeLimitNs);
                if (r.reason() != StopReason.DONE) {
                    problems.add(describeUnfinished(r));
                } else if (problems.isEmpty()) {
                    long doneAt = sim.nowNs();
                    RunResult drained = sim.run(null, maxEvents, Math.min(timeLimitNs + drainNs, doneAt + drainNs));
                    if (drained.reason() == StopReason.LIVELOCK || drained.reason() == StopReason.EVENT_BUDGET) {
                        problems.add("after the last completion, the drain ended in " + drained.reason() + " at t="
                                + drained.nowNs() + " ns");
                    }
                    for (int i = 0; i < nodes; i++) {
                        long id = nodeId(i);
                        verbs[i].pollCompletions((conn, workId, kind, status, bytes) -> problems.add("node " + id
                                + " completed " + kind + " work id " + workId + " (" + status
                                + ") after everything had completed"));
                    }
                }
                wall = wallClock.getAsLong() - start - checkWallNs;
                if (problems.isEmpty()) {
                    finalChecks();
                }
            } catch (ScenarioFailure f) {
                throw f;
            } catch (RuntimeException | StackOverflowError e) {
                cause = e;
                problems.add("exception at t=" + (sim == null ? 0 : sim.nowNs()) + " ns: " + e);
            }
            if (!problems.isEmpty()) {
                List<String> shown = problems.size() > 25 ? problems.subList(0, 25) : problems;
                List<String> list = new ArrayList<>(shown);
                if (problems.size() > 25) {
                    list.add("... and " + (problems.size() - 25) + " more");
                }
                for (int i = 0; verbs != null && i < verbs.length; i++) {
                    if (verbs[i] != null) {   // what each endpoint counted: usually says why
                        list.add("node " + nodeId(i) + " counters: " + verbs[i].counters().toString().strip()
                                .replace('\n', ' '));
                    }
                }
                throw new ScenarioFailure(seed, list, cause);
            }
            return result(wall);
        }

        /** Lays out every item's source bytes and target, orders posts. */
        private void plan() {
            long[] sourceSize = new long[nodes];
            long[] regionSize = new long[nodes];
            long[] recvSize = new long[nodes];
            Arrays.fill(regionSize, gapBytes);
            Arrays.fill(recvSize, gapBytes);
            Map<List<Integer>, long[]> streamTimes = new HashMap<>();
            for (int k = 0; k < ops.size(); k++) {
                OpSpec s = ops.get(k);
                long postAt = s.postAtNs;
                long recvAt = s.recvAtNs;
                if (s.send) {
                    // Within a stream, keep posting order = item order on both sides.
                    long[] last = streamTimes.computeIfAbsent(List.of(s.from, s.to, s.stream), x -> new long[2]);
                    postAt = Math.max(postAt, last[0]);
                    recvAt = Math.max(recvAt, last[1]);
                    last[0] = postAt;
                    last[1] = recvAt;
                }
                Op op = new Op(k, s, postAt, recvAt);
                op.sourceOffset = (int) sourceSize[s.from];
                sourceSize[s.from] += s.bytes;
                if (s.send) {
                    op.capacity = s.bytes + recvSlackBytes;
                    op.targetOffset = (int) recvSize[s.to];
                    recvSize[s.to] += op.capacity + gapBytes;
                } else {
                    op.targetOffset = (int) regionSize[s.to];
                    regionSize[s.to] += s.bytes + gapBytes;
                }
                payloadBytes += s.bytes;
                work[k] = op;
                outstanding++;
            }
            for (int i = 0; i < nodes; i++) {
                long biggest = Math.max(sourceSize[i], Math.max(regionSize[i], recvSize[i])) + 2L * guardBytes;
                if (biggest > Integer.MAX_VALUE - 16) {
                    throw new IllegalArgumentException("node index " + i + " needs " + biggest
                            + " bytes in one buffer; a scenario keeps each under 2 GiB");
                }
                NodeMemory m = new NodeMemory();
                m.source = new byte[(int) sourceSize[i]];
                m.region = regionSize[i] > gapBytes ? new byte[(int) regionSize[i] + 2 * guardBytes] : null;
                m.recv = recvSize[i] > gapBytes ? new byte[(int) recvSize[i] + 2 * guardBytes] : null;
                memory[i] = m;
                expected.add(new HashMap<>());
                tasks.add(new ArrayDeque<>());
            }
            // Posts per node, by time, then item order (stable).
            List<List<Task>> perNode = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                perNode.add(new ArrayList<>());
            }
            for (Op op : work) {
                perNode.get(op.spec.from).add(new Task(op, false, op.postAtNs));
                if (op.spec.send) {
                    perNode.get(op.spec.to).add(new Task(op, true, op.recvAtNs));
                }
            }
            for (int i = 0; i < nodes; i++) {
                List<Task> l = perNode.get(i);
                l.sort((a, b) -> Long.compare(a.atNs, b.atNs));
                tasks.get(i).addAll(l);
            }
        }

        private long dataStream(int node) {
            return Fabric.splitmix(seed * 31 + node) ^ 0xDA7AL;
        }

        private long guardStream(int node, int arena) {
            return Fabric.splitmix(seed * 131 + node * 7L + arena) ^ 0x6A4DL;
        }

        private void allocate(int i) {
            NodeMemory m = memory[i];
            Verbs v = verbs[i];
            Patterns.fill(m.source, 0, m.source.length, dataStream(i), 0);
            m.sourceSegment = MemorySegment.ofArray(m.source);
            if (m.source.length > 0) {
                v.registerRegion(m.sourceSegment, false);
            }
            if (m.region != null) {
                Patterns.fill(m.region, 0, m.region.length, guardStream(i, 1), 0);
                m.regionSegment = MemorySegment.ofArray(m.region).asSlice(guardBytes,
                        m.region.length - 2L * guardBytes);
                m.regionKey = v.registerRegion(m.regionSegment, true);
            }
            if (m.recv != null) {
                Patterns.fill(m.recv, 0, m.recv.length, guardStream(i, 2), 0);
                m.recvSegment = MemorySegment.ofArray(m.recv).asSlice(guardBytes, m.recv.length - 2L * guardBytes);
            }
        }

        private void connectAndSchedule() {
            boolean[][] linked = new boolean[nodes][nodes];
            for (Op op : work) {
                int a = Math.min(op.spec.from, op.spec.to);
                int b = Math.max(op.spec.from, op.spec.to);
                if (!linked[a][b]) {
                    linked[a][b] = true;
                    verbs[a].connect(0, nodeId(b));
                }
            }
            for (int i = 0; i < nodes; i++) {
                sim.wake(nodeId(i));
                long lastWake = 0;
                for (Task t : tasks.get(i)) {
                    if (t.atNs > lastWake) {
                        lastWake = t.atNs;
                        long id = nodeId(i);
                        sim.schedule(t.atNs, () -> sim.wake(id));
                    }
                }
            }
        }

        /** Posts, in order, every task of the node whose time has come and whose connection is known here. */
        private void postReady(int node, long nowNs) {
            ArrayDeque<Task> q = tasks.get(node);
            Verbs v = verbs[node];
            while (!q.isEmpty()) {
                Task t = q.peek();
                if (t.atNs > nowNs) {
                    return;
                }
                OpSpec s = t.op.spec;
                int peer = t.receiverSide ? s.from : s.to;
                int conn = v.connectionTo(nodeId(peer));
                if (conn < 0) {
                    return;
                }
                Op op = t.op;
                long id;
                if (t.receiverSide) {
                    id = v.postRecv(conn, s.stream, memory[node].recvSegment, op.targetOffset, op.capacity);
                } else if (s.send) {
                    id = v.postSend(conn, s.stream, memory[node].sourceSegment, op.sourceOffset, s.bytes);
                } else {
                    id = v.postWrite(conn, memory[s.to].regionKey, op.targetOffset, memory[node].sourceSegment,
                            op.sourceOffset, s.bytes);
                }
                if (id == Verbs.QUEUE_FULL) {
                    return; // retried at the node's next step
                }
                q.poll();
                if (id < 0) {
                    problems.add("node " + nodeId(node) + ": posting " + op + " returned work id " + id);
                    continue;
                }
                if (expected.get(node).put(id, new Role(op, t.receiverSide)) != null) {
                    problems.add("node " + nodeId(node) + " returned work id " + id + " twice (for " + op + ")");
                }
                if (s.send) {
                    streamOrder.computeIfAbsent(new StreamKey(node, conn, s.stream, t.receiverSide), k -> new ArrayDeque<>()).add(id);
                }
            }
        }

        private void onCompletion(int node, int conn, long workId, WorkKind kind, CompletionStatus status,
                                  long bytes) {
            Role role = expected.get(node).remove(workId);
            if (role == null) {
                problems.add(String.format(Locale.ROOT, "node %d completed %s work id %d (%s, %d bytes) on "
                                + "connection %d, which was never posted or already completed", nodeId(node), kind,
                        workId, status, bytes, conn));
                return;
            }
            Op op = role.op;
            OpSpec s = op.spec;
            String side = role.receiverSide ? ": its RECV" : "";
            WorkKind want = role.receiverSide ? WorkKind.RECV : s.send ? WorkKind.SEND : WorkKind.WRITE;
            if (kind != want) {
                problems.add(op + side + " completed as " + kind + ", not " + want);
            }
            if (status != CompletionStatus.OK) {
                problems.add(op + side + " completed with status " + status + " at t=" + sim.nowNs() + " ns");
            }
            if (bytes != s.bytes) {
                problems.add(op + side + " completed with " + bytes + " bytes, not " + s.bytes);
            }
            if (s.send) {
                ArrayDeque<Long> order = streamOrder.get(new StreamKey(node, conn, s.stream, role.receiverSide));
                Long head = order == null ? null : order.peek();
                if (head == null || head != workId) {
                    problems.add(op + side + " completed out of order on node " + nodeId(node) + ", connection "
                            + conn + ", stream " + s.stream + ": work id " + workId + " before work id " + head
                            + ", posted earlier");
                    if (order != null) {
                        order.remove(workId);
                    }
                } else {
                    order.poll();
                }
            }
            long checkStart = wallClock.getAsLong();
            String where = checkData(op);
            checkWallNs += wallClock.getAsLong() - checkStart;
            if (where != null) {
                problems.add(op + side + " completed at t=" + sim.nowNs() + " ns but " + where);
            }
            if (role.receiverSide) {
                op.receiverDone = true;
            } else {
                op.senderDone = true;
            }
            if (op.done()) {
                op.doneNs = sim.nowNs();
                lastCompletionNs = Math.max(lastCompletionNs, op.doneNs);
                outstanding--;
            }
        }

        /** @return null when the item's target holds its data, else where it differs */
        private String checkData(Op op) {
            OpSpec s = op.spec;
            NodeMemory src = memory[s.from];
            NodeMemory dst = memory[s.to];
            byte[] target = s.send ? dst.recv : dst.region;
            int at = guardBytes + op.targetOffset;
            int n = (int) s.bytes;
            int d = Arrays.mismatch(target, at, at + n, src.source, op.sourceOffset, op.sourceOffset + n);
            if (d < 0) {
                return null;
            }
            byte guard = Patterns.byteAt(guardStream(s.to, s.send ? 2 : 1), at + d);
            return String.format(Locale.ROOT, "byte %d of %d differs in node %d's %s: expected 0x%02x, found 0x%02x%s",
                    d, n, nodeId(s.to), s.send ? "receive buffer" : "region at offset " + (op.targetOffset + d),
                    src.source[op.sourceOffset + d] & 0xFF, target[at + d] & 0xFF,
                    target[at + d] == guard ? " (never written)" : "");
        }

        private String describeUnfinished(RunResult r) {
            StringBuilder sb = new StringBuilder();
            sb.append(switch (r.reason()) {
                case STUCK -> "the simulation is stuck (no event left)";
                case TIME_LIMIT -> "the virtual-time limit of " + timeLimitNs + " ns passed";
                case EVENT_BUDGET -> "the event budget of " + maxEvents + " events ran out";
                case LIVELOCK -> "livelock: too many events at one instant";
                default -> "the simulation stopped (" + r.reason() + ")";
            });
            sb.append(" at t=").append(r.nowNs()).append(" ns after ").append(sim.events()).append(" events, with ")
                    .append(outstanding).append(" of ").append(work.length).append(" work items outstanding:");
            int shown = 0;
            for (Op op : work) {
                if (!op.done()) {
                    if (shown++ == 8) {
                        sb.append(" ...");
                        break;
                    }
                    sb.append(' ').append(op).append(" [")
                            .append(op.senderDone ? "sender completed" : "sender not completed");
                    if (op.spec.send) {
                        sb.append(op.receiverDone ? ", RECV completed" : ", RECV not completed");
                    }
                    sb.append("];");
                }
            }
            return sb.toString();
        }

        /** Data still right, guards and gaps untouched, sources unchanged, placements counted once. */
        private void finalChecks() {
            for (Op op : work) {
                String where = checkData(op);
                if (where != null) {
                    problems.add(op + ": after the network drained, " + where + " (a late or stray write)");
                }
            }
            for (int i = 0; i < nodes; i++) {
                NodeMemory m = memory[i];
                int bad = Patterns.firstMismatch(m.source, 0, m.source.length, dataStream(i), 0);
                if (bad >= 0) {
                    problems.add("node " + nodeId(i) + "'s source buffer changed at byte " + bad);
                }
                checkOutside(i, m.region, 1, false);
                checkOutside(i, m.recv, 2, true);
            }
            long placed = 0;
            for (Verbs v : verbs) {
                placed += v.counters().get(Counter.PAYLOAD_BYTES_PLACED);
            }
            if (placed != 0 && placed != payloadBytes) {
                problems.add("the endpoints counted " + placed + " payload bytes placed for the first time, but "
                        + payloadBytes + " were transferred" + (placed > payloadBytes ? " (bytes placed more than once)"
                        : ""));
            }
        }

        /** Checks that every byte of an arena outside its items' data still holds the guard pattern. */
        private void checkOutside(int node, byte[] arena, int kind, boolean recv) {
            if (arena == null) {
                return;
            }
            long stream = guardStream(node, kind);
            int from = 0;
            for (Op op : work) {
                if (op.spec.to != node || op.spec.send != recv) {
                    continue;
                }
                int start = guardBytes + op.targetOffset;
                reportOutside(node, arena, from, start, stream, recv);
                from = start + (int) op.spec.bytes;
            }
            reportOutside(node, arena, from, arena.length, stream, recv);
        }

        private void reportOutside(int node, byte[] arena, int from, int to, long stream, boolean recv) {
            int bad = Patterns.firstMismatch(arena, from, to, stream, 0);
            if (bad < 0) {
                return;
            }
            int inner = bad - guardBytes;
            String what = recv ? "receive arena" : "region";
            String zone = bad < guardBytes ? "in the guard zone before node " + nodeId(node) + "'s " + what
                    : bad >= arena.length - guardBytes ? "in the guard zone after node " + nodeId(node) + "'s " + what
                    : "at offset " + inner + " of node " + nodeId(node) + "'s " + what + ", outside every target";
            problems.add("a write landed outside its target: byte " + zone + " changed to 0x"
                    + Integer.toHexString(arena[bad] & 0xFF));
        }

        private ScenarioResult result(long wallNs) {
            long retransmits = 0;
            String[] summaries = new String[nodes];
            Counters[] counters = new Counters[nodes];
            for (int i = 0; i < nodes; i++) {
                retransmits += verbs[i].counters().get(Counter.RETRANSMITS_SACK)
                        + verbs[i].counters().get(Counter.RETRANSMITS_RTO)
                        + verbs[i].counters().get(Counter.RETRANSMITS_REROUTED);
                summaries[i] = verbs[i].counters().toString();
                counters[i] = verbs[i].counters();
            }
            Map<FabricCounter, Long> fc = new EnumMap<>(FabricCounter.class);
            for (FabricCounter c : FabricCounter.values()) {
                fc.put(c, sim.fabric().count(c));
            }
            long[] doneNs = new long[work.length];
            for (Op op : work) {
                doneNs[op.index] = op.doneNs;
            }
            double goodput = lastCompletionNs == 0 ? 0 : payloadBytes * 1e9 / lastCompletionNs;
            return new ScenarioResult(seed, lastCompletionNs, payloadBytes, goodput, retransmits, sim.events(),
                    sim.traceHash(), wallNs, fc, doneNs, summaries, counters);
        }
    }
}
