package io.jccl.metaroce.protocol;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A minimal deterministic driver for two or more endpoints (test scope): every datagram takes a fixed delay plus
 * seeded jitter, may be lost, duplicated or corrupted, and paths can be black-holed for a time window. Virtual
 * time only. The full simulator lives in io.jccl.metaroce.sim; this one exists to test the core on its own.
 */
final class MiniFabric {
    /** Datagrams delivered that the receiving engine said it dropped ({@link Engine#onDatagram} not null). */
    long refused;

    record Packet(long at, long seq, long from, long to, int path, byte[] bytes, boolean ecn) {
    }

    final Engine[] nodes;
    final SplittableRandom random;
    final PriorityQueue<Packet> inFlight = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
            : Long.compare(a.seq, b.seq));
    long now;
    long seq;
    long delayNs = 5_000;
    /**
     * 0: every node acts the moment a datagram or timer is due. Otherwise the length of a software driver's duty
     * cycle: nodes act only at multiples of it (what falls due in between waits for the next cycle).
     */
    long cycleNs;
    long jitterNs = 0;
    double loss;
    double duplicate;
    double corrupt;
    double ecnMark;
    int blackHolePath = -1;
    long blackHoleFromNs;
    long blackHoleUntilNs;
    boolean allPathsDown;
    /** Drops the datagrams (whole, as sent) it says yes to, before any random loss: a chosen packet lost. */
    java.util.function.Predicate<byte[]> dropIf = bytes -> false;
    long allDownUntilNs;
    long delivered;
    long dropped;
    final int[] generations = new int[64];
    /** Bit i set once a datagram went on path i, either way. */
    long pathsUsed;
    int reroutes;

    MiniFabric(long seed, Engine... nodes) {
        this.nodes = nodes;
        this.random = new SplittableRandom(seed);
    }

    /** Offer the engines claims in off-heap memory, and gather sends from them ({@link TransmitSink#gathers}). */
    boolean gather;
    /** Datagrams the engines handed over in pieces. */
    long gathered;
    private final java.lang.foreign.MemorySegment claimArea = java.lang.foreign.Arena.ofAuto().allocate(1 << 17, 64);
    private final org.agrona.concurrent.UnsafeBuffer claimView =
            new org.agrona.concurrent.UnsafeBuffer(claimArea.address(), (int) claimArea.byteSize());

    private final class Sink implements TransmitSink {
        long from;
        long claimedDestination;
        int claimedPath;

        @Override
        public int claim(long destination, int pathIndex, int maxLength) {
            if (!gather || maxLength > claimArea.byteSize()) {
                return -1;
            }
            claimedDestination = destination;
            claimedPath = pathIndex;
            return 0;
        }

        @Override
        public org.agrona.MutableDirectBuffer claimedBuffer() {
            return claimView;
        }

        @Override
        public java.lang.foreign.MemorySegment claimedSegment() {
            return claimArea;
        }

        @Override
        public void commit(int length) {
            transmit(claimedDestination, claimedPath, claimView, 0, length);
        }

        @Override
        public boolean gathers() {
            return gather;
        }

        @Override
        public void commitGather(int headerLength, java.lang.foreign.MemorySegment payload, long payloadOffset,
                                 int payloadLength, int trailerLength) {
            byte[] whole = new byte[headerLength + payloadLength + trailerLength];
            claimView.getBytes(0, whole, 0, headerLength);
            java.lang.foreign.MemorySegment.copy(payload, java.lang.foreign.ValueLayout.JAVA_BYTE, payloadOffset,
                    whole, headerLength, payloadLength);
            claimView.getBytes(headerLength, whole, headerLength + payloadLength, trailerLength);
            gathered++;
            transmit(claimedDestination, claimedPath, new UnsafeBuffer(whole), 0, whole.length);
        }

        @Override
        public void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length) {
            pathsUsed |= 1L << pathIndex;
            byte[] copy = new byte[length];
            buffer.getBytes(offset, copy);
            boolean blackHoled = (pathIndex == blackHolePath && generations[pathIndex] == 0
                    && now >= blackHoleFromNs && now < blackHoleUntilNs) || (allPathsDown && now < allDownUntilNs);
            if (blackHoled || dropIf.test(copy) || random.nextDouble() < loss) {
                dropped++;
                return;
            }
            if (random.nextDouble() < corrupt) {
                copy[random.nextInt(length)] ^= (byte) (1 << random.nextInt(8));
            }
            long at = now + delayNs + (jitterNs == 0 ? 0 : random.nextLong(jitterNs));
            inFlight.add(new Packet(at, seq++, from, destination, pathIndex, copy, random.nextDouble() < ecnMark));
            if (random.nextDouble() < duplicate) {
                inFlight.add(new Packet(at + delayNs / 2, seq++, from, destination, pathIndex, copy.clone(), false));
            }
        }

        @Override
        public void reroute(long destination, int pathIndex, int generation) {
            generations[pathIndex] = generation;
            reroutes++;
        }
    }

    private final Sink sink = new Sink();

    private void pump(int i) {
        sink.from = i;
        nodes[i].pollTransmit(now, sink);
    }

    /** Runs until {@code done} holds or virtual time passes the limit; returns true when done. */
    boolean run(java.util.function.BooleanSupplier done, long limitNs) {
        for (int i = 0; i < nodes.length; i++) {
            pump(i);
        }
        while (!done.getAsBoolean()) {
            long nextTimer = Long.MAX_VALUE;
            int timerNode = -1;
            for (int i = 0; i < nodes.length; i++) {
                long t = nodes[i].nextTimeoutNs();
                if (t < nextTimer) {
                    nextTimer = t;
                    timerNode = i;
                }
            }
            Packet p = inFlight.peek();
            long next = Math.min(nextTimer, p == null ? Long.MAX_VALUE : p.at);
            if (next == Long.MAX_VALUE) {
                return false;   // stuck: nothing in flight, no timer
            }
            now = Math.max(now, cycleNs == 0 ? next : (next + cycleNs - 1) / cycleNs * cycleNs);
            if (now > limitNs) {
                return false;
            }
            if (p != null && p.at <= nextTimer) {
                inFlight.poll();
                delivered++;
                Engine to = nodes[(int) p.to];
                if (to.onDatagram(now, p.from, p.path, new UnsafeBuffer(p.bytes), 0, p.bytes.length, p.ecn) != null) {
                    refused++;
                }
                pump((int) p.to);
            } else {
                nodes[timerNode].onTimeout(now);
                pump(timerNode);
            }
        }
        return true;
    }
}
