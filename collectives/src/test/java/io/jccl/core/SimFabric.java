package io.jccl.core;

import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.RecvConnection;
import io.jccl.net.RecvSink;
import io.jccl.net.SendConnection;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A deterministic, single-threaded fabric for the transport SPI: posted sends and receives wait on their
 * connection until the test driver {@linkplain #deliverOne delivers} one, chosen by a seeded random generator,
 * so message timing and interleaving are varied yet reproducible. Each connection holds only a small, random
 * number of messages in flight, to exercise the "no room, try later" paths. Like the shm transport, whose sender
 * writes into the log only when posting to an idle connection or when its request is tested, a send is
 * deliverable either at once (chosen at random when posted) or only after its request was tested once: a runner
 * that stops testing a send while it waits for something else deadlocks here as it would on shm.
 *
 * <p>Built with {@code receiverDriven}, its connections behave as metaroce's do where the collectives see it: they
 * ask for receives posted ahead ({@link RecvConnection#receivesAhead()}) and take sinks, which get each message in
 * pieces of random length (multiples of {@link RecvSink#ALIGN_BYTES}, the last one excepted) in random order.
 */
final class SimFabric {
    private final int size;
    private final SplittableRandom random;
    private final Link[][] links;

    SimFabric(int size, long seed) {
        this(size, seed, false);
    }

    SimFabric(int size, long seed, boolean receiverDriven) {
        this.size = size;
        this.random = new SplittableRandom(seed);
        this.links = new Link[size][size];
        for (int from = 0; from < size; from++) {
            for (int to = 0; to < size; to++) {
                if (from != to) {
                    links[from][to] = new Link(1 + random.nextInt(4), random, receiverDriven);   // 1-4 in flight
                }
            }
        }
    }

    SendConnection sendEnd(int from, int to) {
        return links[from][to];
    }

    /** @return {single-copy sends, all sends} posted on the link from {@code from} to {@code to} */
    int[] sendCounts(int from, int to) {
        return new int[] {links[from][to].singleCopySends, links[from][to].allSends};
    }

    RecvConnection recvEnd(int from, int to) {
        return links[from][to];
    }

    /** @return true when a message was delivered (matched, checked, copied) */
    boolean deliverOne() {
        List<Link> ready = new ArrayList<>();
        for (Link[] row : links) {
            for (Link l : row) {
                if (l != null && !l.sends.isEmpty() && l.sends.peek().pushed && !l.recvs.isEmpty()) {
                    ready.add(l);
                }
            }
        }
        if (ready.isEmpty()) {
            return false;
        }
        ready.get(random.nextInt(ready.size())).deliver();
        return true;
    }

    /** @return true when nothing is posted anywhere */
    boolean quiet() {
        for (Link[] row : links) {
            for (Link l : row) {
                if (l != null && (!l.sends.isEmpty() || !l.recvs.isEmpty())) {
                    return false;
                }
            }
        }
        return true;
    }

    int size() {
        return size;
    }

    private static final class Req implements NetRequest {
        MemorySegment buffer;
        RecvSink sink;
        long offset;
        long bytes;
        long tag;
        long seq;
        boolean sendSide;
        /** Send: whether its data left the sender (posted eagerly, or its request was tested since). */
        boolean pushed;
        long result = NOT_DONE;
        NetException failure;
        final Link link;

        Req(Link link) {
            this.link = link;
        }

        @Override
        public long test() {
            pushed = true;
            if (failure != null) {
                link.retire(this);
                throw failure;
            }
            if (result != NOT_DONE) {
                link.retire(this);
            }
            return result;
        }
    }

    /**
     * One direction between two ranks, modelled on the in-JVM transport: message k holds one of
     * {@code capacity} slots, shared by its send and its receive, from the first post until both sides have seen
     * it complete; a side may post message k only while k is below the oldest unretired message plus capacity.
     * It is both ends of its direction: the send end the sender is given and the receive end the receiver is given.
     */
    private static final class Link implements SendConnection, RecvConnection {
        final int capacity;
        final SplittableRandom random;
        final boolean receiverDriven;
        long sendSeq;
        long recvSeq;
        long retiredBelow;
        final java.util.Map<Long, Integer> retiredSides = new java.util.HashMap<>();
        final ArrayDeque<Req> sends = new ArrayDeque<>();
        final ArrayDeque<Req> recvs = new ArrayDeque<>();
        /** Sends posted with {@code isendSingleCopy}, and all sends. */
        int singleCopySends;
        int allSends;
        Link(int capacity, SplittableRandom random, boolean receiverDriven) {
            this.capacity = capacity;
            this.random = random;
            this.receiverDriven = receiverDriven;
        }

        @Override
        public NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
            return postSend(false, buffer, offset, sizeBytes, tag);
        }

        @Override
        public NetRequest isendSingleCopy(MemorySegment buffer, long offset, long sizeBytes, long tag,
                                          MemoryRegistration mr) {
            return postSend(true, buffer, offset, sizeBytes, tag);
        }

        @Override
        public NetRequest irecv(MemorySegment buffer, long offset, long capacityBytes, long expectedTag,
                                MemoryRegistration mr) {
            return post(false, buffer, offset, capacityBytes, expectedTag);
        }

        @Override
        public boolean receivesAhead() {
            return receiverDriven;
        }

        @Override
        public boolean acceptsSinks() {
            return receiverDriven;
        }

        @Override
        public NetRequest irecv(RecvSink sink, long capacityBytes, long expectedTag) {
            if (!receiverDriven) {
                return RecvConnection.super.irecv(sink, capacityBytes, expectedTag);
            }
            Req r = (Req) post(false, null, 0, capacityBytes, expectedTag);
            if (r != null) {
                r.sink = sink;
            }
            return r;
        }

        /** Closes both ends: there is nothing to release. */
        @Override
        public void close() {
        }

        /** Posts a send and counts it, in {@link #singleCopySends} too where it was posted as one. */
        private NetRequest postSend(boolean singleCopy, MemorySegment buffer, long offset, long sizeBytes, long tag) {
            NetRequest r = post(true, buffer, offset, sizeBytes, tag);
            if (r != null) {
                allSends++;
                singleCopySends += singleCopy ? 1 : 0;
            }
            return r;
        }

        private NetRequest post(boolean sendSide, MemorySegment buffer, long offset, long bytes, long tag) {
            long seq = sendSide ? sendSeq : recvSeq;
            if (seq >= retiredBelow + capacity) {
                return null;
            }
            Req r = new Req(this);
            r.buffer = buffer;
            r.offset = offset;
            r.bytes = bytes;
            r.tag = tag;
            r.seq = seq;
            r.sendSide = sendSide;
            r.pushed = !sendSide || random.nextBoolean();
            if (sendSide) {
                sendSeq++;
                sends.add(r);
            } else {
                recvSeq++;
                recvs.add(r);
            }
            return r;
        }

        void retire(Req r) {
            int sides = retiredSides.merge(r.seq, 1, Integer::sum);
            if (sides == 2) {
                retiredSides.remove(r.seq);
                if (r.seq == retiredBelow) {
                    retiredBelow++;
                    while (retiredSides.getOrDefault(retiredBelow, 0) == -1) {
                        retiredSides.remove(retiredBelow);
                        retiredBelow++;
                    }
                } else {
                    retiredSides.put(r.seq, -1);   // fully retired, waiting for older ones
                }
            }
        }

        void deliver() {
            Req s = sends.poll();
            Req r = recvs.poll();
            if (s.tag != r.tag) {
                r.failure = NetException.tagMismatch(r.tag, s.tag);
                s.failure = NetException.tagMismatch(s.tag, r.tag);
            } else if (s.bytes > r.bytes) {
                r.failure = new NetException(NetException.Reason.TRUNCATED, s.bytes + " > " + r.bytes);
                s.failure = new NetException(NetException.Reason.TRUNCATED, s.bytes + " > " + r.bytes);
            } else {
                if (s.bytes > 0 && r.sink != null) {
                    toSink(s, r.sink);
                } else if (s.bytes > 0) {
                    MemorySegment.copy(s.buffer, s.offset, r.buffer, r.offset, s.bytes);
                }
                r.result = s.bytes;
                s.result = s.bytes;
            }
        }

        /** The message in pieces of random length, in random order, each byte once. */
        private void toSink(Req s, RecvSink sink) {
            List<long[]> pieces = new ArrayList<>();
            for (long at = 0; at < s.bytes; ) {
                long n = Math.min(s.bytes - at, RecvSink.ALIGN_BYTES * (1 + random.nextInt(8)));
                pieces.add(new long[] {at, n});
                at += n;
            }
            java.util.Collections.shuffle(pieces, new java.util.Random(random.nextLong()));
            for (long[] p : pieces) {
                sink.accept(s.buffer, s.offset + p[0], p[0], p[1]);
            }
        }
    }
}
