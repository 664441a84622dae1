package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A rendezvous for ranks that are threads of one JVM: all-gather through shared memory, with the same contract
 * as {@link TcpBootstrap}. Each rank's bootstrap is used by one thread at a time.
 *
 * <p>Every round waits at most the group's timeout. A rank that times out fails the whole group, as with
 * {@link TcpBootstrap}: the other ranks' calls then fail with REMOTE_ERROR ("rank 2 left the rendezvous: it gave
 * up: ..."). A rank that is closed leaves the group after the rounds it completed; a rank that needs it in a later
 * round fails with REMOTE_ERROR instead of waiting for it. Contributions are copied in and results copied out, so ranks never share arrays.
 */
public final class InProcessBootstrap implements Bootstrap {
    private final Group group;
    private final int rank;
    private int round;
    private volatile boolean closed;
    private JcclException failure;

    private InProcessBootstrap(Group group, int rank) {
        this.group = group;
        this.rank = rank;
    }

    /**
     * Creates the bootstraps of {@code n} ranks that share one rendezvous.
     *
     * @param n       the number of ranks, at least 1
     * @param timeout how long each all-gather round may wait for the other ranks
     * @return the bootstraps, index = rank
     * @throws JcclException INVALID_ARGUMENT for n below 1 or a timeout that is not positive
     */
    public static List<Bootstrap> group(int n, Duration timeout) {
        if (n < 1) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the number of ranks " + n + " must be at least 1");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "timeout " + timeout + " must be positive");
        }
        Group group = new Group(n, Durations.saturatedNanos(timeout));
        List<Bootstrap> ranks = new ArrayList<>(n);
        for (int rank = 0; rank < n; rank++) {
            ranks.add(new InProcessBootstrap(group, rank));
        }
        return List.copyOf(ranks);
    }

    /** In one JVM nothing crosses a wire: a random secret shared by the group will do. */
    @Override
    public byte[] communicatorSecret() {
        return group.secret.clone();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return group.size;
    }

    @Override
    public synchronized byte[][] allGather(byte[] mine) {
        if (mine == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the all-gather contribution is null");
        }
        if (mine.length > RendezvousProtocol.MAX_PAYLOAD_BYTES) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the all-gather contribution of " + mine.length
                    + " bytes exceeds the limit of " + RendezvousProtocol.MAX_PAYLOAD_BYTES + " bytes (16 MiB)");
        }
        if (closed) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the bootstrap of rank " + rank + " is closed");
        }
        if (failure != null) {
            throw new JcclException(failure.code(), "an earlier rendezvous call of rank " + rank + " failed: "
                    + failure.detail(), failure);
        }
        try {
            byte[][] table = group.allGather(rank, round, mine.clone());
            round++;
            return table;
        } catch (JcclException e) {
            failure = e;
            throw e;
        }
    }

    /**
     * Leaves the group; ranks still expecting this one in a round then fail. A call of this rank that is waiting
     * fails with ABORTED. Idempotent; may be called from any thread.
     */
    @Override
    public void close() {
        closed = true;
        group.leave(rank);
    }

    @Override
    public String toString() {
        return "InProcessBootstrap[rank " + rank + " of " + group.size + "]";
    }

    /** The state the ranks share. */
    private static final class Group {
        private final int size;
        private final long timeoutNs;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final Map<Integer, Round> rounds = new HashMap<>();
        /** For each rank that left: the number of rounds it completed. */
        private final Map<Integer, Integer> left = new HashMap<>();
        private final int[] completed;
        private final byte[] secret = new byte[32];
        private final boolean[] closed;
        /** Why the group failed: a rank gave up (timed out or was interrupted); null while it is healthy. */
        private String failure;

        Group(int size, long timeoutNs) {
            this.size = size;
            this.timeoutNs = timeoutNs;
            this.completed = new int[size];
            this.closed = new boolean[size];
            new java.security.SecureRandom().nextBytes(secret);
        }

        byte[][] allGather(int rank, int roundNumber, byte[] mine) {
            lock.lock();
            try {
                if (failure != null) {
                    throw new JcclException(ErrorCode.REMOTE_ERROR, failure);
                }
                Round current = rounds.computeIfAbsent(roundNumber, r -> new Round(size));
                current.entries[rank] = mine;
                current.arrived++;
                if (current.arrived == size) {
                    changed.signalAll();
                }
                long deadlineNs = System.nanoTime() + timeoutNs;
                while (current.arrived < size) {
                    if (closed[rank]) {
                        throw new JcclException(ErrorCode.ABORTED, "the bootstrap of rank " + rank
                                + " was closed while it waited in all-gather round " + roundNumber);
                    }
                    if (failure != null) {
                        throw new JcclException(ErrorCode.REMOTE_ERROR, failure);
                    }
                    JcclException gone = departure(current, roundNumber);
                    if (gone != null) {
                        throw gone;
                    }
                    long remainingNs = deadlineNs - System.nanoTime();
                    if (remainingNs <= 0) {
                        List<Integer> missing = current.missing();
                        String message = "rank " + rank + " waited " + Durations.describe(timeoutNs)
                                + " at the in-process rendezvous for " + (missing.size() == 1 ? "rank " : "ranks ")
                                + missing + " in all-gather round " + roundNumber;
                        giveUpLocked(rank, message);
                        throw new JcclException(ErrorCode.TIMEOUT, message);
                    }
                    try {
                        changed.awaitNanos(remainingNs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        String message = "rank " + rank + " was interrupted while waiting at the in-process"
                                + " rendezvous in all-gather round " + roundNumber;
                        giveUpLocked(rank, message);
                        throw new JcclException(ErrorCode.ABORTED, message);
                    }
                }
                byte[][] result = new byte[size][];
                for (int r = 0; r < size; r++) {
                    result[r] = current.entries[r].clone();
                }
                if (++current.collected == size) {
                    rounds.remove(roundNumber);
                }
                completed[rank] = roundNumber + 1;
                return result;
            } finally {
                lock.unlock();
            }
        }

        void leave(int rank) {
            lock.lock();
            try {
                closed[rank] = true;
                leaveLocked(rank);
            } finally {
                lock.unlock();
            }
        }

        /** A rank gave up: the group fails, so nobody waits for what can no longer complete. */
        private void giveUpLocked(int rank, String why) {
            if (failure == null) {
                failure = "rank " + rank + " left the rendezvous: it gave up: " + why;
            }
            leaveLocked(rank);
        }

        private void leaveLocked(int rank) {
            left.putIfAbsent(rank, completed[rank]);
            changed.signalAll();
        }

        /** @return the error for a rank waiting in this round when a rank it needs has left, else null */
        private JcclException departure(Round current, int roundNumber) {
            for (Map.Entry<Integer, Integer> gone : left.entrySet()) {
                int who = gone.getKey();
                if (current.entries[who] == null && gone.getValue() <= roundNumber) {
                    return new JcclException(ErrorCode.REMOTE_ERROR, "rank " + who + " left the rendezvous after "
                            + gone.getValue() + " all-gather rounds, so round " + roundNumber + " cannot complete");
                }
            }
            return null;
        }
    }

    /** One all-gather round: who has arrived, and how many have taken the result. */
    private static final class Round {
        final byte[][] entries;
        int arrived;
        int collected;

        Round(int size) {
            entries = new byte[size][];
        }

        List<Integer> missing() {
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < entries.length; r++) {
                if (entries[r] == null) {
                    missing.add(r);
                }
            }
            return missing;
        }
    }
}
