package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.net.NetProperties;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.tune.Tuner;
import org.agrona.concurrent.NanoClock;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Internal, for deterministic simulation and tests: a communicator whose executor is stepped by the caller on an
 * injected clock. Not user API.
 *
 * <p>The communicator is the real one (argument checks, queue, futures, plans, {@link PlanRunner}, control
 * plane); only its executor has no thread. The caller calls {@link #doWork()} (one bounded step that never blocks)
 * and moves the clock; every time the executor reads (operation deadlines, liveness, heartbeats, the waits for
 * reports to leave) comes from that clock, so one thread can run many ranks in virtual time and replay a run
 * exactly. Heartbeats are sent from {@link #doWork()} when due.
 *
 * <p>In this mode nothing may block the stepping thread: {@link Communicator#close()} and
 * {@link Communicator#abort()} only ask (step until {@link #isTerminated()}); {@code await()}, {@code get()} and
 * {@link Communicator#synchronize()} throw {@code INVALID_USAGE} (poll {@code isDone()} and {@code error()}), and
 * so do split and shrink. The settings are taken from the given {@link CommConfig} alone, never from the
 * environment, so a run replays anywhere. At shutdown the communicator closes its connections but not the
 * transports behind them: the caller owns those.
 */
public final class SteppedCommunicator {
    /**
     * Connections to each peer (index = peer rank; own rank null), as the transport SPI gives them.
     *
     * @param dataSend    data connections to each peer
     * @param dataRecv    data connections from each peer
     * @param controlSend control connections to each peer (errors, heartbeats, goodbyes)
     * @param controlRecv control connections from each peer
     * @param properties  what the transport can do, for the tuner (one transport for all peers)
     */
    public record Links(SendConnection[] dataSend, RecvConnection[] dataRecv, SendConnection[] controlSend,
                        RecvConnection[] controlRecv, NetProperties properties) {
    }

    private final CommImpl comm;
    private final CommExecutor executor;
    private boolean crashed;

    private SteppedCommunicator(CommImpl comm) {
        this.comm = comm;
        this.executor = comm.executor();
    }

    /**
     * Builds the communicator of one rank over connections the caller made (no bootstrap, no connection hellos)
     * and posts its control receives; nothing else happens until it is stepped.
     *
     * @param rank   this rank
     * @param size   the number of ranks
     * @param config the settings (the environment is not read)
     * @param clock  the clock every time comes from; the caller moves it
     * @param links  the connections to every peer
     * @param name   the communicator's name, for logs and listeners
     * @return the stepped communicator
     * @throws IllegalArgumentException when the links do not fit rank and size
     */
    public static SteppedCommunicator create(int rank, int size, CommConfig config, NanoClock clock, Links links,
                                             String name) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(links, "links");
        Objects.requireNonNull(links.properties(), "links.properties");
        Objects.requireNonNull(name, "name");
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " of " + size + " ranks");
        }
        PeerLinks peers = new PeerLinks(size, List.of());   // no transports: the caller owns them
        copy("dataSend", links.dataSend(), peers.dataSend, rank);
        copy("dataRecv", links.dataRecv(), peers.dataRecv, rank);
        copy("controlSend", links.controlSend(), peers.controlSend, rank);
        copy("controlRecv", links.controlRecv(), peers.controlRecv, rank);
        NetProperties props = links.properties();
        String[] peerNames = new String[size];
        for (int p = 0; p < size; p++) {
            peerNames[p] = "rank " + p;
            if (p != rank) {
                peers.transportNames[p] = props.name();
            }
        }
        CommConfig.Resolved resolved = config.resolve(Map.of());
        // The cost model from the transport's properties alone (not this host's cores), so runs replay anywhere.
        long maxChunk = CommInit.maxChunkBytes(!props.name().equals("local"));
        Tuner tuner = new Tuner(size, Tuner.hopSeconds(props.latencyUs() * 1e-6, props.signalsCompletion()),
                Math.min(props.speedMbps() * 1e6 / 8, CommInit.CORE_COPY_BYTES_PER_SECOND),
                CommInit.CORE_COPY_BYTES_PER_SECOND, maxChunk,
                resolved.algorithm(), resolved.chunkSizeBytes());
        long slotBytes = resolved.chunkSizeBytes() > 0 ? resolved.chunkSizeBytes() : maxChunk;
        CommImpl comm = new CommImpl(name, rank, size, resolved, peers, new ExecutorSignal(), tuner, slotBytes,
                props.signalsCompletion(), Spin.NONE, peerNames, null, clock, true);
        comm.start();
        return new SteppedCommunicator(comm);
    }

    private static <T> void copy(String what, T[] from, T[] to, int rank) {
        if (from == null || from.length != to.length) {
            throw new IllegalArgumentException(what + " must have one entry per rank (" + to.length + ")");
        }
        for (int p = 0; p < to.length; p++) {
            if ((p == rank) != (from[p] == null)) {
                throw new IllegalArgumentException(what + "[" + p + "] must be " + (p == rank ? "null (this rank)"
                        : "a connection"));
            }
            to[p] = from[p];
        }
    }

    /** @return the communicator: the real one, whose executor this object steps */
    public Communicator communicator() {
        return comm;
    }

    /**
     * One bounded step of the executor: it never blocks. Call from one thread at a time.
     *
     * @return how much work was done: 0 when nothing progressed (a message must arrive or time pass)
     */
    public int doWork() {
        return crashed ? 0 : executor.doWork();
    }

    /**
     * @return when something time-based is next due if no input arrives before (an operation's deadline, a
     *         liveness check, a heartbeat, the end of a wait for reports), on the clock; {@link Long#MAX_VALUE} if
     *         nothing is; may lie in the past (due now)
     */
    public long nextDeadlineNs() {
        return crashed ? Long.MAX_VALUE : executor.nextDeadlineNs();
    }

    /** @return whether {@code close()} or {@code abort()} was requested and the shutdown finished */
    public boolean isTerminated() {
        return executor.isTerminated();
    }

    /**
     * Tests: stops dead, as a killed process would: no goodbye, no reports, no heartbeats, nothing closed, and it
     * never steps again. Its peers find out from the silence (or from connections the caller closes).
     */
    public void crash() {
        crashed = true;
    }

    /**
     * Frees the communicator's memory (its staging): once its transports are closed, whether it shut down (whose
     * transports may still be sending from that memory until they close, as a threaded communicator's close waits
     * for) or not (a crashed rank, a run cut short: then without goodbyes or closing anything). It must not be used
     * afterwards. Idempotent.
     */
    public void release() {
        crashed = true;
        executor.releaseAbandoned();
    }

    @Override
    public String toString() {
        return "SteppedCommunicator[" + comm + (crashed ? ", crashed" : "") + "]";
    }
}
