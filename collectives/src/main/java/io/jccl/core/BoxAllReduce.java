package io.jccl.core;

import io.jccl.net.BoxPeer;
import io.jccl.reduce.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * All-reduce of a few bytes between the ranks of one host without messages, as Open MPI's fast boxes and NCCL's LL
 * protocol move small data: each rank writes its contribution, its call number and its fingerprint into one cache
 * line of its own memory, which every peer maps ({@link BoxPeer}); every rank reads every rank's line and reduces
 * them all, in rank order, so every rank ends with the same bits. A call costs one line written and one read per
 * peer, where the ring's exchange costs a request, a record, an acknowledgement and the plan around them.
 *
 * <p>A rank's box lines ({@link BoxPeer#BOX_BYTES}):
 * <pre>
 *   0 int64 entered: call number + 1 of the last collective this rank started by another algorithm
 *   8 int64 its fingerprint tag
 *  64 line of parity 0, 128 line of parity 1, for call number + 1 = k with k % 2 == parity:
 *     +0 int64 stamp k (written last, with release)   +8 int64 fingerprint tag   +16 payload, up to 48 bytes
 * 192 the verdicts of {@link SingleCopyChoice}, to the end
 * </pre>
 * Reuse: call k overwrites the line of call k - 2, which a peer has finished reading once it started call k - 1 (it
 * completes a call before it starts the next, and completes a box call only after reading every line). A peer that
 * published call k - 1 in a box, or announced it ({@code entered}), has; after consecutive box calls this rank has
 * seen that already, so it waits for nothing before writing.
 *
 * <p>Which ranks take this path is decided by what every rank has in common: the host-wide box (agreed when the
 * communicator was created), the kind, the configured algorithm, the count and the type; never by a rank's own
 * state. A peer that called something else with the same call number shows it: in its line (another tag), or by the
 * call it announced; the run fails with the two calls named instead of waiting. Nothing here allocates once running.
 */
final class BoxAllReduce implements OpRun {
    /** The algorithm's name for listeners and metrics. */
    static final String ALGORITHM = "box";
    /** The most bytes one rank's contribution may have: a 64-byte line less its stamp and tag. */
    static final int PAYLOAD_BYTES = 48;

    static final long ENTERED = 0;
    static final long ENTERED_TAG = 8;
    static final long LINE = 64;
    static final long STAMP = 0;
    static final long TAG = 8;
    static final long PAYLOAD = 16;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private static final int IDLE = 0;
    private static final int GUARDING = 1;
    private static final int WAITING = 2;
    private static final int DONE = 3;

    private final int rank;
    private final int size;
    private final MemorySegment own;
    private final BoxPeer[] peers;
    private final MemorySegment[] lines;
    /** Per peer: the highest call number + 1 it has been seen to start (so it has completed the one before). */
    private final long[] entered;

    private int state = IDLE;
    private long k;
    private long tag;
    private long count;
    private MemorySegment send;
    private MemorySegment recv;
    private Reducer reducer;
    private long line;
    /** WAITING: peers before this index (in rank order, this rank skipped) have published call k. */
    private int nextPeer;

    /**
     * @param rank  this rank
     * @param own   this rank's box lines
     * @param peers every rank's box lines as this process maps them, null at {@code rank}; at least 2 ranks
     */
    BoxAllReduce(int rank, MemorySegment own, BoxPeer[] peers) {
        if (peers.length < 2) {
            throw new IllegalArgumentException("a box all-reduce needs at least 2 ranks, got " + peers.length);
        }
        if (own.byteSize() < BoxPeer.BOX_BYTES) {
            throw new IllegalArgumentException("box lines of " + own.byteSize() + " bytes, need " + BoxPeer.BOX_BYTES);
        }
        this.rank = rank;
        this.size = peers.length;
        this.own = own;
        this.peers = peers.clone();
        this.lines = new MemorySegment[size];
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                lines[p] = peers[p].lines();
            }
        }
        this.entered = new long[size];
    }

    /** @return this rank's box lines */
    MemorySegment ownLines() {
        return own;
    }

    /** @return every rank's box lines as this process maps them, null at this rank */
    MemorySegment[] peerLines() {
        return lines.clone();
    }

    /** @return whether an all-reduce of {@code bytes} per rank fits a box line */
    static boolean fits(long bytes) {
        return bytes <= PAYLOAD_BYTES;
    }

    /**
     * This rank starts collective {@code seq} by another algorithm: written where a peer waiting in a box for the
     * same call number looks, so it fails with both calls named instead of waiting for a line that never comes.
     */
    void announce(long seq, long tag) {
        LONG.set(own, ENTERED_TAG, tag);
        LONG.setRelease(own, ENTERED, seq + 1);
        wakePeers();
    }

    /**
     * Starts an all-reduce; {@code op.send} and {@code op.recv} are host memory.
     *
     * @param op      the all-reduce, at most {@link #PAYLOAD_BYTES} per rank
     * @param seq     its call number
     * @param tag     its fingerprint tag
     * @param reducer this rank's reducer for it
     */
    void start(OpRequest op, long seq, long tag, Reducer reducer) {
        this.k = seq + 1;
        this.tag = tag;
        this.count = op.count;
        this.send = op.send;
        this.recv = op.recv;
        this.reducer = reducer;
        this.line = LINE + LINE * (k & 1);
        this.nextPeer = 0;
        state = GUARDING;
    }

    @Override
    public boolean progress() {
        boolean published = false;
        if (state == GUARDING) {
            if (!peersFinished(k - 2)) {
                return false;
            }
            publish();
            state = WAITING;
            published = true;
        }
        if (state != WAITING) {
            return false;
        }
        int firstWaitedFor = nextPeer;
        while (nextPeer < size) {
            if (nextPeer == rank) {
                nextPeer++;
                continue;
            }
            MemorySegment theirs = lines[nextPeer];
            long stamp = (long) LONG.getAcquire(theirs, line + STAMP);
            if (stamp == k) {
                long theirTag = (long) LONG.get(theirs, line + TAG);
                if (theirTag != tag) {
                    throw PlanRunner.callsDiffer(nextPeer, theirTag, rank, tag);
                }
            } else {
                checkAnnouncements();
                return published || nextPeer != firstWaitedFor;
            }
            entered[nextPeer] = k;
            nextPeer++;
        }
        reduce();
        state = DONE;
        send = null;
        recv = null;
        return true;
    }

    /**
     * A peer that has not published this call but announced its call number (or a later one) runs another algorithm
     * for it: the calls differ, and waiting would never end.
     */
    private void checkAnnouncements() {
        for (int p = nextPeer; p < size; p++) {
            if (p != rank && (long) LONG.getAcquire(lines[p], ENTERED) >= k
                    && (long) LONG.getAcquire(lines[p], line + STAMP) != k) {
                throw PlanRunner.callsDiffer(p, (long) LONG.get(lines[p], ENTERED_TAG), rank, tag);
            }
        }
    }

    /** @return whether every peer has started a call after {@code call - 1}, i.e. finished reading call {@code call} */
    private boolean peersFinished(long call) {
        for (int p = 0; p < size; p++) {
            if (p == rank || entered[p] > call) {
                continue;
            }
            MemorySegment theirs = lines[p];
            long seen = Math.max((long) LONG.getAcquire(theirs, ENTERED),
                    Math.max((long) LONG.getAcquire(theirs, LINE + STAMP),
                            (long) LONG.getAcquire(theirs, 2 * LINE + STAMP)));
            entered[p] = Math.max(entered[p], seen);
            if (seen <= call) {
                return false;
            }
        }
        return true;
    }

    private void publish() {
        long bytes = count * reducer.type().sizeBytes();
        if (bytes > 0) {
            if (reducer.needsPrepare()) {
                reducer.prepare(send, 0, own, line + PAYLOAD, count);
            } else {
                MemorySegment.copy(send, 0, own, line + PAYLOAD, bytes);
            }
        }
        LONG.set(own, line + TAG, tag);
        LONG.setRelease(own, line + STAMP, k);
        wakePeers();
    }

    private void wakePeers() {
        for (int p = 0; p < size; p++) {
            if (p != rank) {
                peers[p].wakeIfAsleep();
            }
        }
    }

    /** Every rank's contribution, in rank order, into the receive buffer; the last combine finishes (AVG). */
    private void reduce() {
        if (count == 0) {
            return;
        }
        long at = line + PAYLOAD;
        MemorySegment first = lineOf(0);
        reducer.combine(first, at, lineOf(1), at, recv, 0, count, size == 2);
        for (int p = 2; p < size; p++) {
            reducer.combine(recv, 0, lineOf(p), at, recv, 0, count, p == size - 1);
        }
    }

    private MemorySegment lineOf(int p) {
        return p == rank ? own : lines[p];
    }

    @Override
    public boolean done() {
        return state == DONE;
    }

    @Override
    public String waitingFor() {
        if (state == GUARDING) {
            return "ranks " + behind(k - 2) + " to finish the call before the last (box lines)";
        }
        List<Integer> missing = new ArrayList<>();
        for (int p = nextPeer; p < size; p++) {
            if (p != rank) {
                missing.add(p);
            }
        }
        return "the box lines of ranks " + missing;
    }

    private List<Integer> behind(long call) {
        List<Integer> ranks = new ArrayList<>();
        for (int p = 0; p < size; p++) {
            if (p != rank && entered[p] <= call) {
                ranks.add(p);
            }
        }
        return ranks;
    }

    /** Nobody reads this rank's buffers (only its box lines, which it no longer writes for this call). */
    @Override
    public void abandon() {
        state = IDLE;
        send = null;
        recv = null;
    }
}
