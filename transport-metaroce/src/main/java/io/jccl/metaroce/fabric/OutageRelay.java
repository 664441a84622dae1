package io.jccl.metaroce.fabric;

import org.agrona.concurrent.BackoffIdleStrategy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What both impairing relays share: their counters, the one thread their forwarding loop runs on, and the outages
 * (flap schedules and black-hole windows) the loop consults for every datagram. Each relay says which key a black
 * hole follows (a path index, or a source port).
 */
abstract class OutageRelay implements Relay {
    /** What the relay counts ({@link RelayCounters}). */
    protected final RelayCounters counters;
    /** Flap schedules by path index. */
    protected final Flaps flaps = new Flaps();
    /** The thread the forwarding loop ({@link #poll()}) runs on. */
    protected final RelayThread loopThread;
    /** Black-hole windows, {key, fromNs, untilNs}: added by any thread, read by the loop. */
    private final List<long[]> blackHoles = new CopyOnWriteArrayList<>();

    /**
     * @param counterCount how many counters the relay keeps (of {@link RelayCounters}' indexes)
     * @param loopThread   the thread its loop runs on
     */
    OutageRelay(int counterCount, RelayThread loopThread) {
        this.counters = new RelayCounters(counterCount);
        this.loopThread = loopThread;
    }

    /** @return how many path indexes the relay accepts in {@link #blackHolePath} and {@link #flapPath} */
    abstract int pathIndexes();

    /** Called on the relay's thread before its first {@link #poll()}. */
    void beforeLoop() {
    }

    /**
     * One pass of the forwarding loop, on the relay's thread.
     *
     * @return how much work it did: 0 when there was none (the loop backs off)
     */
    abstract int poll();

    private void loop() {
        // Backs off when idle (spin, yield, then park up to 50 us): on a machine with fewer cores than busy threads a
        // spinning relay would take the CPU its endpoints need.
        BackoffIdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 50_000);
        beforeLoop();
        while (loopThread.running()) {
            idle.idle(poll());
        }
    }

    /**
     * Checks a {@link #blackHolePath} request.
     *
     * @throws IllegalArgumentException when the path is not one of {@link #pathIndexes()} or the window is empty
     */
    final void checkBlackHole(int path, long fromNs, long untilNs) {
        int paths = pathIndexes();
        if (path < 0 || path >= paths || untilNs <= fromNs) {
            throw new IllegalArgumentException("blackHolePath(" + path + ", " + fromNs + ", " + untilNs + "): path "
                    + "must be 0-" + (paths - 1) + " and the window non-empty");
        }
    }

    /**
     * Adds a black-hole window (checked by {@link #checkBlackHole}).
     *
     * @param key what the window follows: {@link #blackHoled} is asked with the same key
     */
    final void addBlackHole(long key, long fromNs, long untilNs) {
        blackHoles.add(new long[] {key, fromNs, untilNs});
    }

    /** @return whether any black-hole window was added (the loop skips working out keys while none was) */
    final boolean anyBlackHoles() {
        return !blackHoles.isEmpty();
    }

    /**
     * @param key      what the windows follow
     * @param nowNs    now, by {@link System#nanoTime()}
     * @param existsNs since when the traffic exists: a window that opened before it does not cut it
     * @return whether a black hole cuts the traffic of {@code key} now
     */
    final boolean blackHoled(long key, long nowNs, long existsNs) {
        for (long[] h : blackHoles) {
            if (h[0] == key && nowNs >= h[1] && nowNs < h[2] && existsNs <= h[1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Makes a path flap both ways: from {@code startNs} (by {@link System#nanoTime()}) down for {@code downNs}, then
     * up for {@code upNs}, repeating. Unlike a black hole it follows no source port or flow: a re-routed path flaps
     * too (a flapping port, not one ECMP link).
     *
     * @param cycles down-up cycles, 0: until {@link #stopFlaps()}
     */
    @Override
    public final void flapPath(int path, long startNs, long upNs, long downNs, int cycles) {
        flaps.add(path, pathIndexes(), startNs, upNs, downNs, cycles);
    }

    /** Ends every flap schedule (the paths stay up). */
    @Override
    public final void stopFlaps() {
        flaps.stop();
    }

    /** Starts the relay's thread. */
    @Override
    public final void start() {
        loopThread.start(this::loop);
    }

    /** @return one counter (see {@link RelayCounters}) */
    @Override
    public final long counter(int index) {
        return counters.get(index);
    }

    /** @return every counter, {@code name=value} on one line */
    @Override
    public final String counters() {
        return counters.toString();
    }
}
