package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;
import io.jccl.metaroce.protocol.RingArrays;

import java.util.SplittableRandom;

/**
 * One FIFO queue and its wire (see {@link LinkConfig}). The queue is modelled by the time its wire will be free:
 * a packet arriving at {@code t} starts serializing at {@code max(t, busyUntil)}, and the bytes still ahead of it
 * are {@code (busyUntil - t) * rate}, which decides tail drop and ECN marking. Departures need no events. Time is
 * kept in femtoseconds so that serialization times add up without rounding drift.
 */
final class Link {
    final int id;
    final String name;
    final long femtosPerByte;
    final long delayNs;
    final long bufferBytes;
    final long ecnThresholdBytes;
    long busyUntilFs;

    /** Impairments, or null when none (routes only). */
    Impairments impairments;
    final SplittableRandom random;
    boolean burstBad;

    // Packets held back for reordering, a FIFO ring.
    int[] heldHandle = new int[0];
    long[] heldReleaseAt = new long[0];
    int[] heldTicket = new int[0];
    int heldHead;
    int heldCount;
    int nextTicket;
    /** Packets that went through (not held), the clock of the reorder ring. */
    long passed;

    // Black-hole windows [from, until).
    final TimeWindows blackHoles = new TimeWindows();

    long packetsIn;
    long packetsDropped;

    Link(int id, String name, LinkConfig config, long seed) {
        this.id = id;
        this.name = name;
        this.femtosPerByte = config.femtosPerByte();
        this.delayNs = config.delayNs();
        this.bufferBytes = config.bufferBytes();
        this.ecnThresholdBytes = config.ecnThresholdBytes();
        this.random = new SplittableRandom(seed);
    }

    /** Result bit of {@link #enqueue}: the packet found more than the ECN threshold queued. */
    static final long MARK = Long.MIN_VALUE;
    /** Result of {@link #enqueue}: tail-dropped (never equal to a departure, marked or not). */
    static final long DROPPED = -1;

    /**
     * Queues a packet.
     *
     * @param nowNs     arrival time
     * @param wireBytes its size on the wire
     * @return when its last bit leaves (ns, rounded up), with {@link #MARK} or'ed in when it must be marked; -1 when
     *         it is tail-dropped
     */
    long enqueue(long nowNs, long wireBytes) {
        packetsIn++;
        long nowFs = nowNs * 1_000_000L;
        long busy = busyUntilFs;
        long backlogBytes = 0;
        if (busy > nowFs) {
            backlogBytes = (busy - nowFs) / femtosPerByte;
        } else {
            busy = nowFs;
        }
        if (backlogBytes + wireBytes > bufferBytes) {
            packetsDropped++;
            return DROPPED;
        }
        busy += wireBytes * femtosPerByte;
        busyUntilFs = busy;
        long departNs = (busy + 999_999) / 1_000_000L;
        return backlogBytes > ecnThresholdBytes ? departNs | MARK : departNs;
    }

    /** @return bytes queued at {@code nowNs} */
    long backlogBytes(long nowNs) {
        long nowFs = nowNs * 1_000_000L;
        return busyUntilFs > nowFs && femtosPerByte > 0 ? (busyUntilFs - nowFs) / femtosPerByte : 0;
    }

    /** Appends a held packet; the caller has made room. @return its ticket */
    int hold(int handle, long releaseAt) {
        if (heldCount == heldHandle.length) {
            growHeld();
        }
        int j = (heldHead + heldCount) % heldHandle.length;
        int ticket = nextTicket;
        nextTicket = (nextTicket + 1) & Simulator.ARG_MASK;
        heldHandle[j] = handle;
        heldReleaseAt[j] = releaseAt;
        heldTicket[j] = ticket;
        heldCount++;
        return ticket;
    }

    /** Doubles the held-packet ring (16 at first), the oldest packet moved to index 0. */
    private void growHeld() {
        int n = Math.max(16, heldHandle.length * 2);
        heldHandle = RingArrays.unwrap(heldHandle, heldHead, heldCount, new int[n]);
        heldReleaseAt = RingArrays.unwrap(heldReleaseAt, heldHead, heldCount, new long[n]);
        heldTicket = RingArrays.unwrap(heldTicket, heldHead, heldCount, new int[n]);
        heldHead = 0;
    }

    /** @return the oldest held packet's handle (the caller checks {@link #heldCount}) */
    int heldHeadHandle() {
        return heldHandle[heldHead];
    }

    long heldHeadReleaseAt() {
        return heldReleaseAt[heldHead];
    }

    int heldHeadTicket() {
        return heldTicket[heldHead];
    }

    void dropHeldHead() {
        heldHead = (heldHead + 1) % heldHandle.length;
        heldCount--;
    }

    @Override
    public String toString() {
        return name;
    }
}
