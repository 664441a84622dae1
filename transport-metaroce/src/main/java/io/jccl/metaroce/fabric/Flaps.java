package io.jccl.metaroce.fabric;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Flap schedules by path index, shared by both relays: from {@code startNs} (by {@link System#nanoTime()}) a path is
 * down for {@code downNs}, then up for {@code upNs}, and again, for {@code cycles} cycles (0: until
 * {@link #stop()}). A flap follows the path index, not a source port: it models a flapping NIC or switch port, so
 * every flow on the path, old or new, re-routed or not, is cut while it is down. Set from any thread, read on the
 * relay's thread.
 */
final class Flaps {
    private record Flap(int path, long startNs, long upNs, long downNs, long cycles) {
        boolean isDown(long nowNs) {
            if (nowNs < startNs) {
                return false;
            }
            long period = upNs + downNs;
            long elapsed = nowNs - startNs;
            if (cycles > 0 && elapsed / period >= cycles) {
                return false;
            }
            return elapsed % period < downNs;
        }
    }

    private final CopyOnWriteArrayList<Flap> flaps = new CopyOnWriteArrayList<>();

    /**
     * Adds a schedule.
     *
     * @param paths how many path indexes there are (64 in proxy mode)
     * @throws IllegalArgumentException naming the bad value
     */
    void add(int path, int paths, long startNs, long upNs, long downNs, int cycles) {
        if (path < 0 || path >= paths) {
            throw new IllegalArgumentException("flapPath: path " + path + " must be 0-" + (paths - 1));
        }
        if (upNs <= 0 || downNs <= 0 || upNs > 3_600_000_000_000L || downNs > 3_600_000_000_000L) {
            throw new IllegalArgumentException("flapPath: upNs=" + upNs + " and downNs=" + downNs
                    + " must be > 0 and at most an hour");
        }
        if (cycles < 0) {
            throw new IllegalArgumentException("flapPath: cycles=" + cycles + " must be >= 0 (0: until stopped)");
        }
        flaps.add(new Flap(path, startNs, upNs, downNs, cycles));
    }

    void stop() {
        flaps.clear();
    }

    /** @return true when a schedule has {@code path} down at {@code nowNs} */
    boolean isDown(int path, long nowNs) {
        if (flaps.isEmpty()) {
            return false;
        }
        for (Flap f : flaps) {
            if (f.path() == path && f.isDown(nowNs)) {
                return true;
            }
        }
        return false;
    }
}
