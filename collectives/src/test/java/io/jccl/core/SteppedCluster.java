package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.net.Listener;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.net.local.LocalTransport;
import org.agrona.concurrent.NanoClock;

import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.fail;

/**
 * N {@link SteppedCommunicator}s in one thread on virtual time, over the in-JVM transport (which needs no thread:
 * a message is copied when the second side posts, and a request only looks at its slot when tested).
 *
 * <p>A round steps every rank that did not crash once, in an order drawn from the seeded generator. After a round
 * that did some work the clock moves {@link #ROUND_NS}; after one that did none it jumps to the earliest time a
 * rank has something due ({@link SteppedCommunicator#nextDeadlineNs()}). Same seed, same run.
 */
final class SteppedCluster implements AutoCloseable {
    /** Virtual time a round takes when something progressed. */
    static final long ROUND_NS = 1_000;
    /** Where virtual time starts: far from 0, so nothing may take 0 as "never". */
    static final long START_NS = 1_000_000_000_000L;

    /** The clock every rank reads; only the cluster moves it. */
    static final class VirtualClock implements NanoClock {
        private long nowNs = START_NS;

        @Override
        public long nanoTime() {
            return nowNs;
        }
    }

    final VirtualClock clock = new VirtualClock();
    final SteppedCommunicator[] ranks;
    private final LocalTransport[] transports;
    private final boolean[] crashed;
    private final SplittableRandom random;
    private final int[] order;
    private long rounds;
    private long lastRoundNs;

    SteppedCluster(int n, CommConfig config, long seed) {
        this.random = new SplittableRandom(seed);
        this.ranks = new SteppedCommunicator[n];
        this.transports = new LocalTransport[n];
        this.crashed = new boolean[n];
        this.order = new int[n];
        SendConnection[][] dataSend = new SendConnection[n][n];
        RecvConnection[][] dataRecv = new RecvConnection[n][n];
        SendConnection[][] controlSend = new SendConnection[n][n];
        RecvConnection[][] controlRecv = new RecvConnection[n][n];
        Listener[] listeners = new Listener[n];
        for (int r = 0; r < n; r++) {
            transports[r] = new LocalTransport();
            listeners[r] = transports[r].listen(ProgressSignal.NONE);
        }
        for (int from = 0; from < n; from++) {
            for (int to = 0; to < n; to++) {
                if (from != to) {
                    byte[] handle = listeners[to].handle();
                    dataSend[from][to] = transports[from].connect(handle, ProgressSignal.NONE).poll();
                    dataRecv[to][from] = listeners[to].accept();
                    controlSend[from][to] = transports[from].connect(handle, ProgressSignal.NONE).poll();
                    controlRecv[to][from] = listeners[to].accept();
                }
            }
        }
        for (int r = 0; r < n; r++) {
            listeners[r].close();
            ranks[r] = SteppedCommunicator.create(r, n, config, clock, new SteppedCommunicator.Links(dataSend[r],
                    dataRecv[r], controlSend[r], controlRecv[r], transports[r].properties()), "sim");
        }
    }

    int size() {
        return ranks.length;
    }

    long nowNs() {
        return clock.nowNs;
    }

    /** @return the virtual time the last round ran at (the clock moved on after it) */
    long lastRoundNs() {
        return lastRoundNs;
    }

    /** The rank stops dead (see {@link SteppedCommunicator#crash()}); it is never stepped again. */
    void crash(int rank) {
        ranks[rank].crash();
        crashed[rank] = true;
    }

    /** Closes every connection of the rank's transport, as the kernel does for a process that was killed. */
    void closeConnectionsOf(int rank) {
        transports[rank].close();
    }

    /**
     * Steps every live rank once, in a seeded random order, then moves the clock.
     *
     * @return the work done in the round
     */
    int round() {
        int n = ranks.length;
        for (int i = 0; i < n; i++) {
            int j = random.nextInt(i + 1);
            order[i] = order[j];
            order[j] = i;
        }
        int work = 0;
        lastRoundNs = clock.nowNs;
        for (int r : order) {
            if (!crashed[r]) {
                work += ranks[r].doWork();
            }
        }
        rounds++;
        if (work > 0) {
            clock.nowNs += ROUND_NS;
            return work;
        }
        long next = Long.MAX_VALUE;
        for (SteppedCommunicator c : ranks) {
            next = Math.min(next, c.nextDeadlineNs());
        }
        if (next == Long.MAX_VALUE) {
            return 0;   // nothing will ever happen: the caller's condition decides
        }
        clock.nowNs = Math.max(clock.nowNs + ROUND_NS, next);
        return 0;
    }

    /**
     * Runs rounds until {@code done}, at most {@code maxVirtualNs} of virtual time (a hang, reported with what).
     *
     * @param afterRound called after each round (e.g. to note completions at the current time)
     */
    void runUntil(BooleanSupplier done, long maxVirtualNs, Runnable afterRound, String what) {
        long endNs = clock.nowNs + maxVirtualNs;
        while (!done.getAsBoolean()) {
            if (clock.nowNs - endNs > 0) {
                fail("no end within %d ms of virtual time (%d rounds): %s", maxVirtualNs / 1_000_000, rounds, what);
            }
            int work = round();
            afterRound.run();
            if (work == 0 && !done.getAsBoolean() && nothingDue()) {
                fail("stuck: no rank can progress and nothing is due: %s", what);
            }
        }
    }

    void runUntil(BooleanSupplier done, long maxVirtualNs, String what) {
        runUntil(done, maxVirtualNs, () -> { }, what);
    }

    /** Runs rounds for {@code durationNs} of virtual time. */
    void runFor(long durationNs, Runnable afterRound) {
        long endNs = clock.nowNs + durationNs;
        while (clock.nowNs - endNs < 0) {
            round();
            afterRound.run();
            if (nothingDue()) {
                return;
            }
        }
    }

    private boolean nothingDue() {
        for (SteppedCommunicator c : ranks) {
            if (c.nextDeadlineNs() != Long.MAX_VALUE) {
                return false;
            }
        }
        return true;
    }

    boolean allTerminated() {
        for (int r = 0; r < ranks.length; r++) {
            if (!crashed[r] && !ranks[r].isTerminated()) {
                return false;
            }
        }
        return true;
    }

    /** Closes the transports (the communicators leave them to their owner). */
    @Override
    public void close() {
        for (LocalTransport t : transports) {
            t.close();
        }
    }
}
