package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.reduce.Reducer;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;

import java.lang.foreign.MemorySegment;
import java.util.TreeSet;

/**
 * All-reduce between the ranks of one JVM ({@link DirectGroup}) without messages: each rank reduces its own block
 * of the message by reading every rank's input where it lies, then copies the other ranks' finished blocks out of
 * their receive buffers. A rank reads each input byte of its block once and writes each output byte once; a ring
 * moves every byte through staging and a transport copy as well.
 *
 * <p>Operation with call number {@code s} ({@code k = s + 1}) on rank {@code q}, as a non-blocking state machine
 * the executor steps:
 * <ol>
 * <li>publish: send, receive buffer, reducer, call number and fingerprint tag into the rank's slot, then phase
 *     {@code 3k-2}; wait until every peer reached it, comparing each peer's published (and, before it published,
 *     announced) call with this one: a difference fails the operation before anything is read;</li>
 * <li>reduce block {@code q}: this rank's contribution, then every peer's folded in (a peer's pre-mul-sum scalar
 *     applied with that peer's reducer), {@code finish} in the last pass; in slices of {@link #SLICE_BYTES}, each
 *     a read section; then phase {@code 3k-1}, and wait until every peer reached it;</li>
 * <li>copy every other rank's block out of its receive buffer; then phase {@code 3k}, and wait until every peer
 *     reached it: nobody reads this rank's buffers any more, the operation is done.</li>
 * </ol>
 * In place, a rank writes only its own block in step 2, which no peer reads; step 3 overwrites blocks peers read
 * in step 2, hence the wait between them. Each block is computed once, so every rank ends with the same bits.
 *
 * <p>A rank whose operation fails after it published marks the group broken and waits until no peer is inside a
 * read section ({@link #abandon()}), so the user may free its buffers once its future failed. A peer that sees
 * the group broken reads nothing more and waits: the failed rank's report, or the operation timeout, fails it.
 * Nothing here allocates once the operation runs.
 */
final class DirectAllReduce implements OpRun {
    private static final Logger LOG = JcclLog.logger(Subsystem.COLL, DirectAllReduce.class);

    /** The algorithm's name for listeners and metrics. */
    static final String ALGORITHM = "direct";
    /** Block boundaries fall on multiples of this many bytes (a cache line) where the count allows. */
    static final int BLOCK_ALIGN_BYTES = 64;
    /**
     * Bytes of output per slice of work, each one read section: small enough that a failing rank waits only
     * microseconds for its peers to leave theirs and that the output stays in cache while every input is folded
     * in, large enough that the per-slice checks cost nothing.
     */
    static final long SLICE_BYTES = 64 << 10;
    /** How long a failing rank waits, at most, for peers to leave their read sections (a slice each). */
    static final long ABANDON_WAIT_NS = 1_000_000_000L;

    private static final int IDLE = 0;
    private static final int PUBLISHED = 1;
    private static final int REDUCING = 2;
    private static final int REDUCED = 3;
    private static final int COPYING = 4;
    private static final int COPIED = 5;
    private static final int DONE = 6;

    private final DirectGroup group;
    private final DirectGroup.Slot me;
    private final int rank;
    private final int size;
    private final NanoClock clock;

    // The current run.
    private int state = IDLE;
    private long seq;
    private long tag;
    /** {@code 3k} for call number {@code k - 1}: the phase this run ends with. */
    private long lastPhase;
    private int elementBytes;
    private long count;
    private long sliceElements;
    private MemorySegment send;
    private MemorySegment recv;
    private Reducer reducer;
    /** This rank's block, in elements: [{@code blockStart}, {@code blockEnd}). */
    private long blockStart;
    private long blockEnd;
    /** REDUCING, COPYING: the element the next slice starts at. */
    private long at;
    /** COPYING: the block being copied is rank {@code (rank + copyStep) % size}'s; it ends at {@code copyEnd}. */
    private int copyStep;
    private long copyEnd;
    /** The group broke while this run had reading left to do: it reads nothing more and waits to be failed. */
    private boolean stalled;

    DirectAllReduce(DirectGroup group, int rank, NanoClock clock) {
        this.group = group;
        this.me = group.slot(rank);
        this.rank = rank;
        this.size = group.size();
        this.clock = clock;
    }

    /**
     * The first element of rank {@code block}'s block: the count split into {@code ranks} near-equal parts whose
     * boundaries are multiples of {@link #BLOCK_ALIGN_BYTES}; {@code block == ranks} gives {@code count}. When the
     * count is small, the last blocks are empty.
     */
    static long blockStart(long count, int elementBytes, int ranks, int block) {
        long align = Math.max(1, BLOCK_ALIGN_BYTES / elementBytes);
        long units = (count + align - 1) / align;
        long unitStart = units / ranks * block + Math.min(block, units % ranks);
        return Math.min(count, unitStart * align);
    }

    /**
     * Publishes the operation: peers may read {@code op}'s buffers from now on, until this run is done or abandoned.
     *
     * @param op      the all-reduce, its buffers in host memory (device buffers staged)
     * @param seq     its call number
     * @param tag     its fingerprint tag
     * @param reducer this rank's reducer for it
     */
    void start(OpRequest op, long seq, long tag, Reducer reducer) {
        if (op.count > 0 && (op.send == null || op.recv == null)) {
            throw new JcclException(ErrorCode.INTERNAL_ERROR, op.describe() + " on rank " + rank
                    + " has no host buffer to reduce directly");
        }
        this.seq = seq;
        this.tag = tag;
        this.lastPhase = 3 * (seq + 1);
        this.elementBytes = op.dataType.sizeBytes();
        this.count = op.count;
        this.sliceElements = Math.max(1, SLICE_BYTES / elementBytes);
        this.send = op.send;
        this.recv = op.recv;
        this.reducer = reducer;
        this.blockStart = blockStart(count, elementBytes, size, rank);
        this.blockEnd = blockStart(count, elementBytes, size, rank + 1);
        this.stalled = false;
        me.send = send;
        me.recv = recv;
        me.reducer = reducer;
        me.seq = seq;
        me.tag = tag;
        state = PUBLISHED;
        advance(lastPhase - 2);
    }

    @Override
    public boolean progress() {
        boolean progressed = false;
        while (true) {
            switch (state) {
                case PUBLISHED -> {
                    if (!peersReached(lastPhase - 2, true)) {
                        return progressed;
                    }
                    state = REDUCING;
                    at = blockStart;
                }
                case REDUCING -> {
                    if (at < blockEnd) {
                        if (!reduceSlice()) {
                            return progressed;
                        }
                        if (at < blockEnd) {
                            return true;   // one slice per call: the executor looks at aborts and reports between
                        }
                    }
                    state = REDUCED;
                    advance(lastPhase - 1);
                }
                case REDUCED -> {
                    if (!peersReached(lastPhase - 1, false)) {
                        return progressed;
                    }
                    state = COPYING;
                    copyStep = 0;
                    nextCopyBlock();
                }
                case COPYING -> {
                    if (copyStep < size) {
                        if (!copySlice()) {
                            return progressed;
                        }
                        if (copyStep < size) {
                            return true;
                        }
                    }
                    state = COPIED;
                    advance(lastPhase);
                }
                case COPIED -> {
                    if (!peersReached(lastPhase, false)) {
                        return progressed;
                    }
                    forget();
                    state = DONE;
                    return true;
                }
                default -> {
                    return progressed;
                }
            }
            progressed = true;
        }
    }

    @Override
    public boolean done() {
        return state == DONE;
    }

    /** Sets this rank's phase and wakes the peers, which may wait for it. */
    private void advance(long phase) {
        me.phase(phase);
        group.signalPeers(rank);
    }

    /**
     * @param check compare the peers' calls with this one (before anything of theirs is read)
     * @return whether every peer's phase reached {@code target}
     * @throws JcclException INVALID_USAGE when {@code check} and a peer called something else
     */
    private boolean peersReached(long target, boolean check) {
        boolean all = true;
        for (int p = 0; p < size; p++) {
            if (p == rank) {
                continue;
            }
            DirectGroup.Slot s = group.slot(p);
            if (check) {
                // The announced call first: a peer in another collective with this call number never publishes.
                long announcedSeq = s.announcedSeq;
                if (announcedSeq >= seq) {
                    long announcedTag = s.announcedTag;
                    if (announcedSeq != seq || announcedTag != tag) {
                        throw mismatch(p, announcedTag);
                    }
                }
            }
            if (s.phase() < target) {
                if (!check) {
                    return false;
                }
                all = false;
            } else if (check && (s.seq != seq || s.tag != tag)) {
                throw mismatch(p, s.tag);
            }
        }
        return all;
    }

    private JcclException mismatch(int peer, long theirs) {
        return PlanRunner.callsDiffer(peer, theirs, rank, tag);
    }

    /**
     * Enters a read section: from here until {@link #leaveRead()} this rank may read peers' buffers, unless the
     * group broke (then this run stalls and reads nothing more).
     *
     * @return whether to read
     */
    private boolean enterRead() {
        me.reading = true;
        if (group.broken()) {
            me.reading = false;
            stalled = true;
            return false;
        }
        return true;
    }

    private void leaveRead() {
        me.reading = false;
    }

    /** Reduces the next slice of this rank's block into its receive buffer. @return false when stalled */
    private boolean reduceSlice() {
        long n = Math.min(sliceElements, blockEnd - at);
        long offset = at * elementBytes;
        if (!enterRead()) {
            return false;
        }
        try {
            MemorySegment dst = recv;
            DirectGroup.Slot first = group.slot((rank + 1) % size);
            Reducer mine = reducer;
            Reducer theirs = first.reducer;
            boolean last = size == 2;
            // The first pass reads this rank's input and the next rank's, and writes the output once; a pre-mul-sum
            // scalar of 1 needs no preparing, so most calls take the plain combine.
            if (!mine.needsPrepare() && !theirs.needsPrepare()) {
                mine.combine(send, offset, first.send, offset, dst, offset, n, last);
            } else if (!theirs.needsPrepare()) {
                mine.combineLocal(first.send, offset, send, offset, dst, offset, n, last);
            } else if (!mine.needsPrepare()) {
                theirs.combineLocal(send, offset, first.send, offset, dst, offset, n, last);
            } else {
                mine.prepare(send, offset, dst, offset, n);
                theirs.combineLocal(dst, offset, first.send, offset, dst, offset, n, last);
            }
            for (int i = 2; i < size; i++) {
                DirectGroup.Slot s = group.slot((rank + i) % size);
                last = i == size - 1;
                if (s.reducer.needsPrepare()) {
                    s.reducer.combineLocal(dst, offset, s.send, offset, dst, offset, n, last);
                } else {
                    mine.combine(dst, offset, s.send, offset, dst, offset, n, last);
                }
            }
        } finally {
            leaveRead();
        }
        at += n;
        return true;
    }

    /** Moves to the next non-empty block to copy; {@code copyStep == size} when there is none. */
    private void nextCopyBlock() {
        while (++copyStep < size) {
            int owner = (rank + copyStep) % size;
            at = blockStart(count, elementBytes, size, owner);
            copyEnd = blockStart(count, elementBytes, size, owner + 1);
            if (at < copyEnd) {
                return;
            }
        }
    }

    /** Copies the next slice of another rank's finished block. @return false when stalled */
    private boolean copySlice() {
        long n = Math.min(sliceElements, copyEnd - at);
        long offset = at * elementBytes;
        if (!enterRead()) {
            return false;
        }
        try {
            MemorySegment.copy(group.slot((rank + copyStep) % size).recv, offset, recv, offset, n * elementBytes);
        } finally {
            leaveRead();
        }
        at += n;
        if (at >= copyEnd) {
            nextCopyBlock();
        }
        return true;
    }

    @Override
    public String waitingFor() {
        long target;
        String what;
        switch (state) {
            case PUBLISHED -> {
                target = lastPhase - 2;
                what = "to start the same allReduce (direct read, call #" + seq + ")";
            }
            case REDUCED -> {
                target = lastPhase - 1;
                what = "to finish reducing their blocks (direct read)";
            }
            case COPIED -> {
                target = lastPhase;
                what = "to finish copying the result (direct read), which they read from this rank";
            }
            default -> {
                return stalled ? "the report of a rank that failed during a direct all-reduce (it broke the group)"
                        : "local work";
            }
        }
        TreeSet<Integer> ranks = new TreeSet<>();
        for (int p = 0; p < size; p++) {
            if (p != rank && group.slot(p).phase() < target) {
                ranks.add(p);
            }
        }
        String text = ranks.isEmpty() ? "local work" : "ranks " + ranks + " " + what;
        return group.broken() ? text + "; a rank failed during a direct all-reduce (its report is awaited)" : text;
    }

    /**
     * After a failure: when this run published, the group breaks (no peer starts reading this rank's buffers any
     * more) and this waits, bounded, until no peer is inside a read section.
     */
    @Override
    public void abandon() {
        if (state != IDLE && state != DONE) {
            group.markBroken();
            long deadlineNs = clock.nanoTime() + ABANDON_WAIT_NS;
            int spins = 0;
            peers:
            for (int p = 0; p < size; p++) {
                DirectGroup.Slot s = group.slot(p);
                while (p != rank && s.reading) {
                    if (clock.nanoTime() - deadlineNs >= 0) {
                        // Only a reader descheduled for that long (a slice takes microseconds).
                        LOG.warn("rank {}: rank {} still reads peers' buffers {} ms after this rank's direct "
                                + "all-reduce failed; failing it anyway", rank, p, ABANDON_WAIT_NS / 1_000_000);
                        break peers;
                    }
                    if (++spins < 100) {
                        Thread.onSpinWait();
                    } else {
                        Thread.yield();
                    }
                }
            }
        }
        forget();
        state = IDLE;
    }

    /** Drops the references to the operation's buffers (and the published ones: nobody reads them any more). */
    private void forget() {
        me.send = null;
        me.recv = null;
        me.reducer = null;
        send = null;
        recv = null;
        reducer = null;
    }
}
