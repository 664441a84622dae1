package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** TEMPORARY stand-in (replaced at merge). */
public final class InProcessBootstrap implements Bootstrap {
    private final Shared shared;
    private final int rank;
    private int round;

    private static final class Shared {
        final int n;
        final long timeoutNs;
        final List<byte[][]> rounds = new ArrayList<>();
        final List<int[]> counts = new ArrayList<>();

        Shared(int n, long timeoutNs) {
            this.n = n;
            this.timeoutNs = timeoutNs;
        }
    }

    private InProcessBootstrap(Shared shared, int rank) {
        this.shared = shared;
        this.rank = rank;
    }

    public static List<Bootstrap> group(int n, Duration timeout) {
        Shared s = new Shared(n, timeout.toNanos());
        List<Bootstrap> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(new InProcessBootstrap(s, i));
        }
        return l;
    }

    @Override public int rank() { return rank; }
    @Override public int size() { return shared.n; }

    @Override
    public byte[][] allGather(byte[] mine) {
        int r = round++;
        long deadline = System.nanoTime() + shared.timeoutNs;
        synchronized (shared) {
            while (shared.rounds.size() <= r) {
                shared.rounds.add(new byte[shared.n][]);
                shared.counts.add(new int[1]);
            }
            shared.rounds.get(r)[rank] = mine.clone();
            shared.counts.get(r)[0]++;
            shared.notifyAll();
            while (shared.counts.get(r)[0] < shared.n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new JcclException(ErrorCode.TIMEOUT, "in-process bootstrap timed out");
                }
                try {
                    shared.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new JcclException(ErrorCode.SYSTEM_ERROR, "interrupted", e);
                }
            }
            byte[][] all = shared.rounds.get(r);
            byte[][] copy = new byte[all.length][];
            for (int i = 0; i < all.length; i++) {
                copy[i] = all[i].clone();
            }
            return copy;
        }
    }

    @Override public void close() { }
}
