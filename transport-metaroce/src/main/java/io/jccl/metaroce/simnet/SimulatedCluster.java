package io.jccl.metaroce.simnet;

import io.jccl.metaroce.net.MetaRoceNetTransport;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Engine;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.sim.FabricConfig;
import io.jccl.metaroce.sim.RunResult;
import io.jccl.metaroce.sim.Simulator;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * Ranks whose {@code metaroce} transports talk over one deterministic {@link Simulator}. Rank {@code r}'s accepting
 * endpoint is node {@code 2r}, its initiating endpoint node {@code 2r + 1}; both run on the simulator's virtual clock,
 * with randomness drawn from the run's seed, in invoker mode: the rank's {@link RankProcess} polls the transport, so
 * nothing runs that the simulator did not schedule. After every interaction with one of its nodes the rank is
 * stepped; when the step did work, its other node is woken too (to transmit what the step posted there). The rank's
 * own deadlines are the nodes' timers as well.
 *
 * <p>Not thread-safe: one thread builds and runs it.
 */
public final class SimulatedCluster {
    private final Simulator simulator;
    private final SplittableRandom random;
    private final NanoClock clock;
    private final List<Rank> ranks = new ArrayList<>();

    /** One rank: its transport, its two nodes, its process. */
    private static final class Rank {
        final int rank;
        MetaRoceNetTransport transport;
        SimDataPath accepting;
        SimDataPath initiating;
        RankProcess process;
        boolean crashed;

        Rank(int rank) {
            this.rank = rank;
        }
    }

    /**
     * @param fabric the simulated network
     * @param seed   the seed of everything random in the run: the fabric's impairments and the endpoints' keys,
     *               nonces and choices
     */
    public SimulatedCluster(FabricConfig fabric, long seed) {
        this.simulator = new Simulator(Objects.requireNonNull(fabric, "fabric"), seed);
        this.random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.clock = simulator::nowNs;
    }

    /** @return the simulator (its fabric takes impairments and failures) */
    public Simulator simulator() {
        return simulator;
    }

    /** @return the virtual clock */
    public NanoClock clock() {
        return clock;
    }

    /** @return the node id of a rank's accepting ({@code true}) or initiating endpoint */
    public static long nodeOf(int rank, boolean accepting) {
        return 2L * rank + (accepting ? 0 : 1);
    }

    /**
     * Adds the next rank (ranks are numbered in the order they are added) with its transport.
     *
     * @param size    the number of ranks the transports' contexts state
     * @param options {@code JCCL_*} options of the transport
     * @return the rank's transport
     */
    public MetaRoceNetTransport addRank(int size, Map<String, String> options) {
        Rank r = new Rank(ranks.size());
        if (nodeOf(r.rank, false) > SimDataPath.MAX_NODE_ID) {
            throw new IllegalStateException("too many simulated ranks");
        }
        ranks.add(r);
        TransportContext context = new TransportContext(new PeerIdentity(r.rank, "sim-host-" + r.rank,
                "sim-jvm-" + r.rank), size, InetAddress.getLoopbackAddress(), Duration.ofSeconds(60), options);
        SplittableRandom transportRandom = random.split();
        r.transport = MetaRoceNetTransport.simulated(context, (config, accepting) -> {
            SimDataPath path = new SimDataPath(config, transportRandom.split(), nodeOf(r.rank, accepting));
            if (accepting) {
                r.accepting = path;
            } else {
                r.initiating = path;
            }
            simulator.addNode(path.nodeId(), new NodeEngine(r, path), now -> onStep(r, path, now));
            return path;
        }, clock, transportRandom);
        return r.transport;
    }

    /** Sets what rank {@code rank} runs above its transport. */
    public void process(int rank, RankProcess process) {
        ranks.get(rank).process = Objects.requireNonNull(process, "process");
    }

    /**
     * Gives each process every rank's listener handle, then makes it its rank's process ({@link #process}): process
     * {@code r} runs rank {@code r}.
     */
    void connectAll(List<? extends PeeredProcess> processes) {
        byte[][] handles = new byte[processes.size()][];
        for (int r = 0; r < handles.length; r++) {
            handles[r] = processes.get(r).handle();
        }
        for (int r = 0; r < handles.length; r++) {
            processes.get(r).peers(handles);
            process(r, processes.get(r));
        }
    }

    /** @return rank {@code rank}'s transport */
    public MetaRoceNetTransport transport(int rank) {
        return ranks.get(rank).transport;
    }

    /**
     * Stops a rank dead, as a killed process: its nodes drop everything from now on and it is never stepped again.
     */
    public void crash(int rank) {
        Rank r = ranks.get(rank);
        r.crashed = true;
        r.accepting.close();
        r.initiating.close();
    }

    /** Wakes every rank now: each is stepped once (call after setting the processes, to start them). */
    public void wakeAll() {
        for (Rank r : ranks) {
            simulator.wake(r.accepting.nodeId());
        }
    }

    /**
     * Runs the simulation.
     *
     * @param done    when to stop (checked before every event)
     * @param untilNs virtual-time limit
     * @return why it stopped
     */
    public RunResult run(BooleanSupplier done, long untilNs) {
        return simulator.runUntil(done, untilNs);
    }

    private void onStep(Rank r, SimDataPath path, long nowNs) {
        if (r.crashed || r.process == null) {
            return;
        }
        long cyclesBefore = r.transport.cycleWork();
        if (r.process.step(nowNs) > 0 || r.transport.cycleWork() != cyclesBefore) {
            SimDataPath other = path == r.accepting ? r.initiating : r.accepting;
            if (other != null) {
                simulator.wake(other.nodeId());
            }
        }
    }

    /** A rank's endpoint as the simulator drives it, with the rank's deadlines among its timers. */
    private static final class NodeEngine implements Engine {
        private final Rank rank;
        private final SimDataPath path;
        private final Endpoint endpoint;

        NodeEngine(Rank rank, SimDataPath path) {
            this.rank = rank;
            this.path = path;
            this.endpoint = path.endpoint();
        }

        @Override
        public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                     int length, boolean ecnMarked) {
            if (path.isClosed()) {
                return DropReason.UNEXPECTED;   // a stopped rank takes nothing (and counts nothing)
            }
            return endpoint.onDatagram(nowNs, source, pathIndex, buffer, offset, length, ecnMarked);
        }

        @Override
        public void onTimeout(long nowNs) {
            if (!path.isClosed()) {
                endpoint.onTimeout(nowNs);
            }
        }

        @Override
        public long nextTimeoutNs() {
            if (path.isClosed() || rank.crashed) {
                return Long.MAX_VALUE;
            }
            long next = endpoint.nextTimeoutNs();
            // The rank's own deadlines ride on its accepting node's timer.
            if (rank.process != null && path == rank.accepting) {
                next = Math.min(next, rank.process.nextDeadlineNs());
            }
            return next;
        }

        @Override
        public int pollTransmit(long nowNs, TransmitSink sink) {
            return rank.crashed ? 0 : endpoint.pollTransmit(nowNs, sink);
        }
    }
}
