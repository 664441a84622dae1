package io.jccl.metaroce.fabric;

import io.jccl.config.Arguments;
import io.jccl.metaroce.impair.Impairments;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * What both relays do to a datagram once they know its {@link Lane}, in the order {@link Impairments} documents:
 * random and bursty loss, the lane's rate-limit queue ({@link PacedQueue}: tail drop, ECN marking, pacing), then
 * corruption, duplication, base delay, jitter and reordering (held back), then the send. Used only on the relay's
 * thread; the datagram being handled is in {@link #io}.
 */
final class Forwarder {
    /** Where the relay reads each datagram, from position 0. */
    final ByteBuffer io = ByteBuffer.allocateDirect(65536);
    private final RelayCounters counters;
    private final Impairments impairments;
    private final long baseDelayNs;
    private final PriorityQueue<Held> held = new PriorityQueue<>();
    private final ArrayList<byte[]> spare = new ArrayList<>();
    private Lane[] pacing = new Lane[16];   // lanes whose queue is not empty
    private int pacingCount;
    private long sequence;

    private record Held(long releaseNs, long seq, byte[] bytes, int length, Lane lane, int tos)
            implements Comparable<Held> {
        @Override
        public int compareTo(Held o) {
            return releaseNs != o.releaseNs ? Long.compare(releaseNs, o.releaseNs) : Long.compare(seq, o.seq);
        }
    }

    Forwarder(RelayCounters counters, Impairments impairments, long baseDelayNs) {
        this.counters = counters;
        this.impairments = impairments;
        this.baseDelayNs = baseDelayNs;
    }

    /**
     * Reads the next datagram waiting on {@code ch} into {@link #io} from position 0: its length is then the buffer's
     * position.
     *
     * @return where it came from, or null when none is waiting or the read failed (either way the caller leaves this
     *         socket for now)
     */
    InetSocketAddress receive(DatagramChannel ch) {
        io.clear();
        try {
            return (InetSocketAddress) ch.receive(io);
        } catch (IOException e) {
            return null;
        }
    }

    /** Checks a base delay for the relays' constructors. */
    static void checkBaseDelay(long baseDelayNs) {
        Arguments.require(baseDelayNs >= 0 && baseDelayNs <= 10_000_000_000L, "baseDelayNs", baseDelayNs, "0-10 s");
    }

    /** Handles the datagram in {@link #io}{@code [0, length)}, received at {@code nowNs}, bound along {@code lane}. */
    void forward(Lane lane, int length, long nowNs) {
        SplittableRandom r = lane.random;
        Impairments im = impairments;
        if (im.lossRate() > 0 && r.nextDouble() < im.lossRate()) {
            counters.increment(RelayCounters.DROPPED_LOSS);
            return;
        }
        if (im.burstGoodToBad() > 0) {
            lane.burstBad = lane.burstBad ? r.nextDouble() >= im.burstBadToGood()
                    : r.nextDouble() < im.burstGoodToBad();
            if (lane.burstBad && r.nextDouble() < im.burstLossInBad()) {
                counters.increment(RelayCounters.DROPPED_LOSS);
                return;
            }
        }
        if (lane.queue == null) {
            io.limit(length).position(0);
            afterQueue(lane, length, nowNs, Port.TOS_UNCHANGED);
            return;
        }
        int verdict = lane.queue.offer(io, length);
        if (verdict == PacedQueue.DROPPED) {
            counters.increment(RelayCounters.DROPPED_QUEUE_FULL);
            return;
        }
        if (verdict == PacedQueue.QUEUED_MARKED) {
            counters.increment(RelayCounters.ECN_MARKED);
        }
        if (!lane.pacing) {
            lane.pacing = true;
            if (pacingCount == pacing.length) {
                pacing = Arrays.copyOf(pacing, 2 * pacing.length);   // grows with the flows, not per datagram
            }
            pacing[pacingCount++] = lane;
        }
    }

    /** The datagram in {@link #io} (position 0, limit its length) has left the queue: the remaining impairments. */
    private void afterQueue(Lane lane, int length, long nowNs, int tos) {
        SplittableRandom r = lane.random;
        Impairments im = impairments;
        if (im.corruptRate() > 0 && r.nextDouble() < im.corruptRate() && length > 0) {
            int at = r.nextInt(length);
            io.put(at, (byte) (io.get(at) ^ (1 << r.nextInt(8))));
            counters.increment(RelayCounters.CORRUPTED);
        }
        long release = nowNs + baseDelayNs + (im.jitterNs() > 0 ? r.nextLong(im.jitterNs() + 1) : 0);
        if (im.reorderRate() > 0 && r.nextDouble() < im.reorderRate()) {
            release += im.reorderMaxHoldNs();
            counters.increment(RelayCounters.REORDERED);
        }
        boolean duplicate = im.duplicateRate() > 0 && r.nextDouble() < im.duplicateRate();
        if (release == nowNs && !duplicate && held.isEmpty()) {
            send(lane, tos);   // nothing to wait for: straight on, no copy
            return;
        }
        byte[] bytes = spare.isEmpty() ? new byte[65536] : spare.removeLast();
        io.get(0, bytes, 0, length);
        if (duplicate) {
            byte[] copy = spare.isEmpty() ? new byte[65536] : spare.removeLast();
            System.arraycopy(bytes, 0, copy, 0, length);
            held.add(new Held(release, sequence++, copy, length, lane, tos));
            counters.increment(RelayCounters.DUPLICATED);
        }
        held.add(new Held(release, sequence++, bytes, length, lane, tos));
    }

    /**
     * Sends what is due: datagrams whose hold has passed, and the heads of rate-limited queues the bucket allows.
     *
     * @return datagrams handled
     */
    int poll(long nowNs) {
        int n = 0;
        while (!held.isEmpty() && held.peek().releaseNs() <= nowNs) {
            Held h = held.poll();
            io.clear();
            io.put(h.bytes(), 0, h.length()).flip();
            send(h.lane(), h.tos());
            spare.add(h.bytes());
            n++;
        }
        for (int i = 0; i < pacingCount; ) {
            Lane lane = pacing[i];
            PacedQueue q = lane.queue;
            while (q.ready(nowNs)) {
                int tos = q.headTos();
                int length = q.poll(io, nowNs);
                afterQueue(lane, length, nowNs, tos);
                n++;
            }
            if (q.isEmpty()) {
                lane.pacing = false;
                pacing[i] = pacing[--pacingCount];
                pacing[pacingCount] = null;
            } else {
                i++;
            }
        }
        return n;
    }

    private void send(Lane lane, int tos) {
        if (lane.closed) {
            return;   // its flow was forgotten while this was held
        }
        try {
            lane.out.tos(tos);
            if (lane.out.channel.send(io, lane.destination()) == 0) {
                counters.increment(RelayCounters.SEND_REFUSED);
            } else {
                counters.increment(RelayCounters.FORWARDED);
            }
        } catch (IOException e) {
            counters.increment(RelayCounters.SEND_REFUSED);
        }
    }
}
