package io.jccl.metaroce.sim.dc;

import java.util.Arrays;

/**
 * The fabric's packets, pooled as parallel arrays (a packet is an index): its 5-tuple, wire size, flags, two numbers
 * its transport gave it ({@link IdealSprayHost}: flow and sequence number; {@link EngineHost}: the datagram's handle in
 * the {@link DatagramStore} and its path), and the links of the one queue it is in. Nothing is allocated per packet
 * once the arrays have grown to the most packets alive at once.
 */
public final class PacketStore {
    /** Flag: the packet is ECN-capable. */
    public static final int ECT = 1;
    /** Flag: a switch marked it (congestion experienced). */
    public static final int CE = 2;
    /** Flag: it is data (loss applies to data only); otherwise control (ACK, NACK, credit). */
    public static final int DATA = 4;

    private int[] src;
    private int[] dst;
    private int[] srcPort;
    private int[] size;
    private int[] flags;
    private int[] flow;
    private int[] seq;
    private int[] next;
    private long[] arriveAtPs;
    /** {@link ClosTopology#flowHash} of its 5-tuple, which every switch's ECMP choice starts from: once per packet. */
    private long[] flowHash;
    private int freeHead = -1;
    private int used;
    private int alive;
    private int peakAlive;

    PacketStore(int initialCapacity) {
        int n = Math.max(16, initialCapacity);
        src = new int[n];
        dst = new int[n];
        srcPort = new int[n];
        size = new int[n];
        flags = new int[n];
        flow = new int[n];
        seq = new int[n];
        next = new int[n];
        arriveAtPs = new long[n];
        flowHash = new long[n];
    }

    /** @return a new packet with these fields (its queue link cleared) */
    public int allocate(int source, int destination, int udpSourcePort, int sizeBytes, int packetFlags, int flowId,
                        int sequence) {
        return allocate(source, destination, udpSourcePort, ClosTopology.UDP_DESTINATION_PORT, sizeBytes, packetFlags,
                flowId, sequence);
    }

    /** As above, to UDP port {@code udpDestinationPort} (part of the 5-tuple ECMP hashes) instead of RoCEv2's 4791. */
    public int allocate(int source, int destination, int udpSourcePort, int udpDestinationPort, int sizeBytes,
                        int packetFlags, int flowId, int sequence) {
        int p;
        if (freeHead >= 0) {
            p = freeHead;
            freeHead = next[p];
        } else {
            if (used == src.length) {
                grow();
            }
            p = used++;
        }
        src[p] = source;
        dst[p] = destination;
        srcPort[p] = udpSourcePort;
        size[p] = sizeBytes;
        flags[p] = packetFlags;
        flow[p] = flowId;
        seq[p] = sequence;
        next[p] = -1;
        flowHash[p] = ClosTopology.flowHash(source, destination, udpSourcePort, udpDestinationPort);
        if (++alive > peakAlive) {
            peakAlive = alive;
        }
        return p;
    }

    /** Returns a packet to the pool. */
    public void free(int p) {
        next[p] = freeHead;
        freeHead = p;
        alive--;
    }

    private void grow() {
        int n = src.length * 2;
        src = Arrays.copyOf(src, n);
        dst = Arrays.copyOf(dst, n);
        srcPort = Arrays.copyOf(srcPort, n);
        size = Arrays.copyOf(size, n);
        flags = Arrays.copyOf(flags, n);
        flow = Arrays.copyOf(flow, n);
        seq = Arrays.copyOf(seq, n);
        next = Arrays.copyOf(next, n);
        arriveAtPs = Arrays.copyOf(arriveAtPs, n);
        flowHash = Arrays.copyOf(flowHash, n);
    }

    /** @return the source host */
    public int src(int p) {
        return src[p];
    }

    /** @return the destination host */
    public int dst(int p) {
        return dst[p];
    }

    /** @return the UDP source port (the path's entropy) */
    public int srcPort(int p) {
        return srcPort[p];
    }

    /** @return the size on the wire, in bytes */
    public int size(int p) {
        return size[p];
    }

    /** @return the flags ({@link #ECT}, {@link #CE}, {@link #DATA}) */
    public int flags(int p) {
        return flags[p];
    }

    /** @return the first number its transport gave it (a flow, or a datagram handle) */
    public int flow(int p) {
        return flow[p];
    }

    /** @return the second number its transport gave it (a sequence number, or a path) */
    public int seq(int p) {
        return seq[p];
    }

    /** @return the hash of its 5-tuple ({@link ClosTopology#flowHash}) */
    long flowHash(int p) {
        return flowHash[p];
    }

    void mark(int p) {
        flags[p] |= CE;
    }

    int next(int p) {
        return next[p];
    }

    void next(int p, int n) {
        next[p] = n;
    }

    long arriveAtPs(int p) {
        return arriveAtPs[p];
    }

    void arriveAtPs(int p, long ps) {
        arriveAtPs[p] = ps;
    }

    /** @return packets alive now */
    public int alive() {
        return alive;
    }

    /** @return the most packets alive at once */
    public int peakAlive() {
        return peakAlive;
    }
}
