package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Decides, call by call and alike on every rank, whether an all-reduce the tuner allows to go single copy
 * ({@link io.jccl.tune.Tuner#singleCopy}) does so (recursive doubling, each rank reading the peer's input where it
 * lies) or takes the ring's pipelined copies instead. Neither wins everywhere, and the host decides which: where the
 * two ranks' cores share a last-level cache the pipelined copies win (1 MiB out of place: 57–61 µs against 115–121),
 * where they do not, single copy wins (110–114 µs against 200–207), and a hypervisor moves the cores between those
 * placements every few seconds to minutes (docs/performance.md). So both are timed, again and again.
 *
 * <p>Per size class (bytes rounded down to a power of two), calls are counted; the counts are the same on every rank
 * because the ranks make the same calls (where they do not, the calls fail as mismatched). A probe of
 * {@link #PROBE_CALLS} calls alternates the two ways by call index, each rank timing its own calls. The call after the
 * probe, each rank publishes its verdict (median pipelined time less median single-copy time, ns) in its box lines,
 * stamped with the probe's number; the call after that, each rank adds up every rank's verdict and takes single copy
 * when the sum is positive. Every rank adds the same numbers, so every rank decides alike; none waits for the verdicts:
 * a rank that starts call k+1 of a class has finished call k, which needed every peer's data of call k, sent after
 * that peer published its verdict. The next probe comes {@link #FIRST_PERIOD_CALLS} calls after the first, twice as
 * many after each later one, up to {@link #PERIOD_CALLS}: early probes meet a cold JIT, later ones follow the host.
 * A probe costs its slower half (under 1% of the calls at a period of 2048).
 *
 * <p>The verdicts lie in the box lines from {@link #VOTES} on, one 8-byte word per class: the probe's number in the
 * high 32 bits (so the word only rises, as box lines' words must) and the verdict in the low 32. Single-threaded (the
 * executor's stepping thread); allocates nothing once built.
 */
final class SingleCopyChoice {
    /** Where the verdicts start in a rank's box lines (after {@link BoxAllReduce}'s three lines). */
    static final long VOTES = 192;
    /** Size classes: one per power of two of bytes per rank; larger operations share the last. */
    static final int CLASSES = 32;
    /** Bytes of the verdict words, from {@link #VOTES}. */
    static final long VOTES_BYTES = CLASSES * 8L;
    /** Calls per probe, half of them each way. */
    static final int PROBE_CALLS = 32;
    /** Calls from the first probe's start to the second's. */
    static final long FIRST_PERIOD_CALLS = 64;
    /** The most calls from one probe's start to the next's. */
    static final long PERIOD_CALLS = 2048;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int HALF = PROBE_CALLS / 2;

    private final int rank;
    private final MemorySegment own;
    private final MemorySegment[] peerLines;

    private final long[] calls = new long[CLASSES];
    private final long[] probeStart = new long[CLASSES];
    /** The number of the class's current or last probe, from 1. */
    private final long[] probe = new long[CLASSES];
    private final boolean[] single = new boolean[CLASSES];
    private final int[] ownVerdict = new int[CLASSES];
    private final long[][] pipelinedNs = new long[CLASSES][HALF];
    private final long[][] singleNs = new long[CLASSES][HALF];
    private final int[] pipelinedCount = new int[CLASSES];
    private final int[] singleCount = new int[CLASSES];
    private final long[] sorted = new long[HALF];

    /** The probing call whose time {@link #record} takes next: its class, or -1. */
    private int pendingClass = -1;
    private boolean pendingSingle;

    /**
     * @param rank      this rank
     * @param own       this rank's box lines, at least {@link #VOTES} + {@link #VOTES_BYTES} bytes
     * @param peerLines every rank's box lines as this process maps them, null at {@code rank}
     */
    SingleCopyChoice(int rank, MemorySegment own, MemorySegment[] peerLines) {
        if (own.byteSize() < VOTES + VOTES_BYTES) {
            throw new IllegalArgumentException("box lines of " + own.byteSize() + " bytes, need "
                    + (VOTES + VOTES_BYTES));
        }
        this.rank = rank;
        this.own = own;
        this.peerLines = peerLines.clone();
        Arrays.fill(single, true);   // until the first verdict: the tuner's rule
        Arrays.fill(probe, 1);
    }

    /**
     * The way of one call, which {@link io.jccl.tune.Tuner#singleCopy} allows to go single copy; every rank calls
     * this for the same calls in the same order.
     *
     * @param bytes bytes per rank
     * @return true for single copy, false for the pipelined copies
     * @throws JcclException when a peer's verdict is not the one this call expects (the ranks' calls differ)
     */
    boolean choose(long bytes) {
        int c = sizeClass(bytes);
        long since = calls[c]++ - probeStart[c];
        pendingClass = -1;
        if (since >= 0 && since < PROBE_CALLS) {
            if (since == 0) {
                pipelinedCount[c] = 0;
                singleCount[c] = 0;
            }
            pendingClass = c;
            pendingSingle = (since & 1) == 0;
            return pendingSingle;
        }
        if (since == PROBE_CALLS) {
            publish(c);
        } else if (since == PROBE_CALLS + 1) {
            single[c] = agree(c, bytes);
            probeStart[c] += Math.min(PERIOD_CALLS, FIRST_PERIOD_CALLS << Math.min(probe[c] - 1, 32));
            probe[c]++;
        }
        return single[c];
    }

    /** @return whether the call {@link #choose} answered last is timed: then {@link #record} takes its time */
    boolean timing() {
        return pendingClass >= 0;
    }

    /** The time the call {@link #choose} answered last took on this rank, start to end. */
    void record(long durationNs) {
        int c = pendingClass;
        if (c < 0) {
            return;
        }
        pendingClass = -1;
        if (pendingSingle) {
            if (singleCount[c] < HALF) {
                singleNs[c][singleCount[c]++] = durationNs;
            }
        } else if (pipelinedCount[c] < HALF) {
            pipelinedNs[c][pipelinedCount[c]++] = durationNs;
        }
    }

    /** @return the current verdict for {@code bytes}: true for single copy (tests read it) */
    boolean current(long bytes) {
        return single[sizeClass(bytes)];
    }

    static int sizeClass(long bytes) {
        return bytes <= 1 ? 0 : Math.min(CLASSES - 1, 63 - Long.numberOfLeadingZeros(bytes));
    }

    private void publish(int c) {
        long verdict = pipelinedCount[c] == 0 || singleCount[c] == 0 ? 0
                : median(pipelinedNs[c], pipelinedCount[c]) - median(singleNs[c], singleCount[c]);
        ownVerdict[c] = (int) Math.max(Integer.MIN_VALUE + 1, Math.min(Integer.MAX_VALUE, verdict));
        LONG.setRelease(own, VOTES + 8L * c, (probe[c] << 32) | (ownVerdict[c] & 0xFFFF_FFFFL));
    }

    private boolean agree(int c, long bytes) {
        long sum = ownVerdict[c];
        for (int p = 0; p < peerLines.length; p++) {
            if (p == rank) {
                continue;
            }
            long word = (long) LONG.getAcquire(peerLines[p], VOTES + 8L * c);
            if (word >>> 32 != probe[c]) {
                throw new JcclException(ErrorCode.INVALID_USAGE, "operations do not match across ranks: rank " + p
                        + " has timed " + (word >>> 32) + " rounds of all-reduces of about " + bytes
                        + " bytes where rank " + rank + " has timed " + probe[c]
                        + " (the ranks made different calls)");
            }
            sum += (int) word;
        }
        return sum > 0;
    }

    private long median(long[] samples, int n) {
        System.arraycopy(samples, 0, sorted, 0, n);
        Arrays.sort(sorted, 0, n);
        return sorted[n / 2];
    }
}
