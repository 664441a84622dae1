package io.jccl.metaroce.sim.dc;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import io.jccl.metaroce.sim.DcqcnConfig;
import io.jccl.metaroce.sim.GoBackNConfig;
import io.jccl.metaroce.sim.GoBackNEndpoint;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * A transport engine on every host of a {@link ClosFabric}: the production MetaRoCE engine ({@link Endpoint}, the class
 * the UDP driver runs), or the RoCEv2 baseline ({@link GoBackNEndpoint}: go-back-N, one path per connection, DCQCN
 * or no congestion control). Each
 * host connects to the destinations of its flows at time 0. With MetaRoCE, once a connection is up the flow goes as
 * one WRITE with immediate (the flow's id) into a sink region of its destination, and is done when the destination's
 * engine reports the immediate: every byte placed. With RoCEv2 the destination posts a RECV into its memory as soon as
 * it learns of the connection, the source a SEND once the connection is up, and the flow is done when the RECV
 * completes. Its completion time counts from the post.
 *
 * <p>Two payload modes. <b>Checked</b>: every flow sends its own bytes (a pattern of its id) and the destination
 * compares every placed byte with them ({@link #wrongBytes}, {@link #placedBytes}). <b>Shared</b>, for thousands of
 * hosts: every flow sends from one shared buffer and placement keeps nothing; the engines still compute and check
 * each packet's CRC32C over its payload. Either way a packet in the fabric holds its headers only
 * ({@link DatagramStore}).
 */
public final class EngineHosts {
    /** Bytes of Ethernet, IPv4 and UDP headers around every MetaRoCE frame. */
    public static final int UDP_IP_ETHERNET_BYTES = 42;
    /** Bytes of a WRITE's frame that are not payload: the DATA header, the immediate and the CRC. */
    public static final int FRAME_OVERHEAD_BYTES = DataFlyweight.DATA_HEADER_LENGTH + DataFlyweight.IMMEDIATE_LENGTH
            + DataFlyweight.CRC_LENGTH;

    /**
     * The smallest MTU: the engine's smallest payload (256 bytes) and the headers around it (MetaRoCE's, the longer:
     * the baseline's fit within it).
     */
    public static final int MIN_MTU_BYTES = 256 + FRAME_OVERHEAD_BYTES + UDP_IP_ETHERNET_BYTES;
    /** The largest MTU: the engine's largest payload (65,000 bytes) and the headers around it. */
    public static final int MAX_MTU_BYTES = 65_000 + FRAME_OVERHEAD_BYTES + UDP_IP_ETHERNET_BYTES;

    /**
     * Work items a connection holds at once: a flow is one WRITE, and the engine preallocates this many per
     * connection (its default, 4,096, would cost about 1 MiB per connection: 1 GiB at 1,024 hosts).
     */
    static final int MAX_PENDING_WORK = 16;

    /**
     * The RoCEv2 baseline's settings on this fabric: a window of 128 packets (about the bandwidth-delay product of a
     * three-tier 400 Gbit/s fabric at 4 KiB), a retransmission timeout of 100 us (a RoCE NIC's is 4.096 us x 2^n,
     * commonly milliseconds: this is generous), NAK after a gap, line-rate sending, and with {@code dcqcn} DCQCN's
     * rate control with the paper's settings ({@link DcqcnConfig#paper}).
     */
    static GoBackNConfig roceConfig(double linkGbps, boolean dcqcn) {
        long lineRate = (long) (linkGbps * 1e9);
        GoBackNConfig c = GoBackNConfig.defaults().withWindowPackets(128).withRtoNs(100_000)
                .withLineRate(lineRate, UDP_IP_ETHERNET_BYTES);
        return dcqcn ? c.withDcqcn(DcqcnConfig.paper(lineRate)) : c;
    }

    final ClosFabric fabric;
    /** Null for MetaRoCE; the baseline's settings for RoCEv2. */
    final GoBackNConfig roce;
    final Flows flows;
    final DatagramStore store;
    final EndpointConfig config;
    final boolean checked;
    final EngineHost[] hosts;
    /**
     * Per flow: the bytes it sends, and where they go in its destination's sink region (RoCEv2 unchecked: where they
     * go in its receive buffer is 0, {@link #recvOffset}).
     */
    final MemorySegment[] source;
    final long[] remoteOffset;
    /** Per host: the sink region's key (RoCEv2: its memory region's), and RoCEv2's receive memory; per flow: bytes placed. */
    final int[] sinkKey;
    final MemorySegment[] region;
    final long[] placed;
    /** Flows per (source, destination) pair, keyed {@code src << 32 | dst} (missing: none). */
    private final org.agrona.collections.Long2LongHashMap flowsPerPair;
    long wrongBytes;
    /** Work that completed with an error (a connection that failed for silence): its flow never finishes. */
    long failedCompletions;

    /**
     * @return work items a connection must hold: {@link #MAX_PENDING_WORK}, or for RoCEv2 (whose receiver posts a RECV
     *         for every flow from a peer at once: a ring all-reduce has 2 (N - 1) from its predecessor) one more than
     *         the most flows between two hosts
     */
    private static int maxPendingWork(org.agrona.collections.Long2LongHashMap flowsPerPair, boolean roce) {
        if (!roce) {
            return MAX_PENDING_WORK;
        }
        long most = 0;
        for (org.agrona.collections.Long2LongHashMap.ValueIterator it = flowsPerPair.values().iterator();
             it.hasNext(); ) {
            most = Math.max(most, it.nextValue());
        }
        return (int) Math.min(1 << 20, Math.max(MAX_PENDING_WORK, most + 1));
    }

    /** @return flows per (source, destination) pair, keyed {@code src << 32 | dst} */
    private static org.agrona.collections.Long2LongHashMap flowsPerPair(Flows flows) {
        org.agrona.collections.Long2LongHashMap perPair = new org.agrona.collections.Long2LongHashMap(0);
        for (int f = 0; f < flows.count(); f++) {
            long key = (long) flows.src(f) << 32 | flows.dst(f);
            perPair.put(key, perPair.get(key) + 1);
        }
        return perPair;
    }

    /**
     * The engine's settings that depend on the network's round trip rather than on the protocol.
     *
     * @param rtoFloorNs            the shortest retransmission timeout
     * @param delayedAckNs          the longest a receiver holds an ACK
     * @param initialWindowPackets  packets per path before the first ACK
     * @param rtoMaxNs              the longest retransmission timeout (the backoff cap), also the time between two
     *                              scout reroutes while nothing is answered
     * @param connectionDeadNs      the silence limit; a quarter of it without any answer starts the scout reroutes
     * @param probeIntervalNs       how often a failed path is probed
     */
    public record Tuning(long rtoFloorNs, long delayedAckNs, int initialWindowPackets, long rtoMaxNs,
                         long connectionDeadNs, long probeIntervalNs) {
        /**
         * For a Clos fabric of microsecond round trips (about 7 us across three tiers at 400 Gbit/s): a timeout floor
         * of 10 us, ACKs held at most 2 us, 16 packets per path at first (8 paths: 512 KiB, about the bandwidth-delay
         * product), timeouts backed off to at most 1 ms (above the queueing of a 63:1 incast through 1 MiB buffers:
         * a cap of 50 us made timeouts fire on queued packets and resend them into the queues), a silence limit of
         * 40 ms (so when every route a connection's paths ride broke at once, it tries new routes after 10 ms, one
         * path per ms: with routes that work both ways one in four, 30 tries before the limit) and failed paths probed every 20 us. The engine's defaults (50 us, 20 us, 4, 50 ms, 10 s, 200 us),
         * made for a host's kernel and loopback, where a GC pause or a descheduled process must not break a
         * connection, hold a lost tail for 50 us and open the window over several round trips; docs/simulation.md
         * gives both.
         */
        public static final Tuning DATACENTER = new Tuning(10_000, 2_000, 16, 1_000_000, 40_000_000, 20_000);

        /** Checks the values. */
        public Tuning {
            if (rtoFloorNs < 1 || delayedAckNs < 1 || initialWindowPackets < 1 || initialWindowPackets > 256
                    || rtoMaxNs < rtoFloorNs || connectionDeadNs < 1 || probeIntervalNs < 1) {
                throw new IllegalArgumentException("MetaRoCE tuning needs an RTO floor and a delayed ACK of at least 1"
                        + " ns, an initial window of 1-256 packets, an RTO cap at or above the floor, a silence "
                        + "limit and a probe interval, not " + this);
            }
        }
    }

    private EngineHosts(ClosFabric fabric, Flows flows, int mtuBytes, boolean checked, long seed, Tuning tuning,
                        GoBackNConfig roce) {
        this.fabric = fabric;
        this.flows = flows;
        this.checked = checked;
        this.flowsPerPair = flowsPerPair(flows);
        this.roce = roce;
        int overhead = roce != null ? GoBackNEndpoint.DATA_HEADER_BYTES + Integer.BYTES : FRAME_OVERHEAD_BYTES;
        int payload = mtuBytes - UDP_IP_ETHERNET_BYTES - overhead;
        if (payload < 256) {
            throw new IllegalArgumentException("an MTU of " + mtuBytes + " leaves " + payload + " bytes of payload per "
                    + "MetaRoCE packet; the engine needs at least 256");
        }
        // What a host's NIC takes in: one link per plane (the receiver shares it out among its senders).
        double nicBytesPerSecond = fabric.topology().config().linkGbps() * 1e9 / 8 * fabric.topology().planes();
        byte[] key = new byte[32];
        new SplittableRandom(seed).nextBytes(key);
        this.config = EndpointConfig.defaults(key).withPayloadBytes(payload)
                .withInboundBytesPerSecond(nicBytesPerSecond)
                .withMaxPendingWork(maxPendingWork(flowsPerPair, roce != null))
                .withInitialWindowPackets(tuning.initialWindowPackets())
                .withRto(tuning.rtoFloorNs(), tuning.rtoMaxNs()).withConnectionDeadNs(tuning.connectionDeadNs())
                .withProbeIntervalNs(tuning.probeIntervalNs())
                .withDelayedAckNs(tuning.delayedAckNs());
        this.store = new DatagramStore(payload + overhead + 512);
        int n = fabric.topology().hosts();
        this.hosts = new EngineHost[n];
        this.source = new MemorySegment[flows.count()];
        this.remoteOffset = new long[flows.count()];
        this.sinkKey = new int[n];
        this.region = new MemorySegment[n];
        this.placed = new long[flows.count()];
        Arena arena = Arena.ofAuto();
        long largest = 0;
        long[] incoming = new long[n];
        long[] largestIncoming = new long[n];
        for (int f = 0; f < flows.count(); f++) {
            largest = Math.max(largest, flows.bytes(f));
            remoteOffset[f] = incoming[flows.dst(f)];
            incoming[flows.dst(f)] += flows.bytes(f);
            largestIncoming[flows.dst(f)] = Math.max(largestIncoming[flows.dst(f)], flows.bytes(f));
        }
        MemorySegment shared = checked ? null : pattern(arena, largest, -1);
        for (int f = 0; f < flows.count(); f++) {
            source[f] = checked ? pattern(arena, flows.bytes(f), f) : shared;
        }
        for (int h = 0; h < n; h++) {
            Verbs engine = roce != null ? new GoBackNEndpoint(config, roce, h)
                    : new Endpoint(config, new SplittableRandom(seed * 31 + h));
            hosts[h] = new EngineHost(this, h, engine);
            if (roce != null) {
                // RoCEv2 places into memory: the destination's receive buffers are real. Unchecked, every flow into a
                // host lands at offset 0 of one buffer as long as its longest (nothing reads them).
                region[h] = arena.allocate(Math.max(1, checked ? incoming[h] : largestIncoming[h]), 64);
                sinkKey[h] = engine.registerRegion(region[h], true);
            } else {
                sinkKey[h] = hosts[h].registerSink(Math.max(1, incoming[h]));
            }
            fabric.attach(h, hosts[h]);
        }
        for (int h = 0; h < n; h++) {
            hosts[h].start();
        }
    }

    /**
     * Puts a MetaRoCE engine on every host of {@code fabric} and starts {@code flows} (connections at time 0).
     *
     * @param checked true: every flow's bytes are its own and checked at the destination; false: shared, unchecked
     *                beyond the engines' CRCs (for large fabrics)
     * @param seed    the seed of the engines' random choices and handshake key
     */
    public static EngineHosts attach(ClosFabric fabric, Flows flows, int mtuBytes, boolean checked, long seed) {
        return new EngineHosts(fabric, flows, mtuBytes, checked, seed, Tuning.DATACENTER, null);
    }

    /**
     * Puts the RoCEv2 baseline ({@link GoBackNEndpoint}, {@link #roceConfig}) on every host of {@code fabric} and
     * starts {@code flows}; its receive buffers are real memory (the flows' bytes), so this is for hundreds of hosts.
     *
     * @param dcqcn with DCQCN's rate control (RoCEv2 as deployed), or without any congestion control
     */
    public static EngineHosts attachRoce(ClosFabric fabric, Flows flows, int mtuBytes, boolean checked, long seed,
                                         boolean dcqcn) {
        return new EngineHosts(fabric, flows, mtuBytes, checked, seed, Tuning.DATACENTER,
                roceConfig(fabric.topology().config().linkGbps(), dcqcn));
    }

    /** As {@link #attach(ClosFabric, Flows, int, boolean, long)}, with the engines tuned so. */
    public static EngineHosts attach(ClosFabric fabric, Flows flows, int mtuBytes, boolean checked, long seed,
                                       Tuning tuning) {
        return new EngineHosts(fabric, flows, mtuBytes, checked, seed, java.util.Objects.requireNonNull(tuning), null);
    }

    private static MemorySegment pattern(Arena arena, long bytes, long stream) {
        MemorySegment s = arena.allocate(Math.max(8, bytes), 64);
        long x = 0x9E3779B97F4A7C15L * (stream + 2);
        for (long i = 0; i + 8 <= s.byteSize(); i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, x);
        }
        return s;
    }

    /** @return whether some flow goes from host {@code src} to host {@code dst} */
    boolean hasFlow(int src, int dst) {
        return flowsPerPair.get((long) src << 32 | dst) > 0;
    }

    /** @return where flow {@code f}'s RECV places it in its destination's RoCEv2 receive buffer */
    long recvOffset(int f) {
        return checked ? remoteOffset[f] : 0;
    }

    /** Destination side: a flow's bytes were placed at {@code regionOffset} of host {@code host}'s sink region. */
    void placed(int host, MemorySegment from, long fromOffset, long regionOffset, long bytes) {
        int f = flowAt(host, regionOffset);
        placed[f] += bytes;
        if (checked) {
            long at = regionOffset - remoteOffset[f];
            long mismatch = MemorySegment.mismatch(from, fromOffset, fromOffset + bytes, source[f], at, at + bytes);
            if (mismatch >= 0) {
                for (long i = mismatch; i < bytes; i++) {
                    if (from.get(ValueLayout.JAVA_BYTE, fromOffset + i) != source[f].get(ValueLayout.JAVA_BYTE, at + i)) {
                        wrongBytes++;
                    }
                }
            }
        }
    }

    /** @return the flow whose bytes land at {@code regionOffset} of {@code host}'s sink region */
    private int flowAt(int host, long regionOffset) {
        return hosts[host].incomingFlowAt(regionOffset);
    }

    /** A host's completion for a flow: the destination saw its immediate (MetaRoCE) or its RECV completed (RoCEv2). */
    void finished(int flow, CompletionStatus status, long nowPs) {
        if (status != CompletionStatus.OK) {
            failedCompletions++;   // its connection failed: the flow stays unfinished
            return;
        }
        if (roce != null) {
            // The RECV's memory holds the whole flow now: count and check it as MetaRoCE's sink does packet by packet.
            if (checked) {
                MemorySegment got = region[flows.dst(flow)];
                placed(flows.dst(flow), got, remoteOffset[flow], remoteOffset[flow], flows.bytes(flow));
            } else {
                placed[flow] += flows.bytes(flow);
            }
        }
        flows.finish(flow, nowPs);
    }

    /** @return bytes placed that differ from what their flow sent (checked mode) */
    public long wrongBytes() {
        return wrongBytes;
    }

    /** @return work completed with an error (connections failed for silence); their flows stay unfinished */
    public long failedCompletions() {
        return failedCompletions;
    }

    /** @return bytes placed for flow {@code f} */
    public long placedBytes(int f) {
        return placed[f];
    }

    /** @return a counter summed over every host's engine */
    public long total(Counter counter) {
        long sum = 0;
        for (EngineHost h : hosts) {
            sum += h.engine().counters().get(counter);
        }
        return sum;
    }

    /** @return every engine's retransmissions (SACK, timeout, tail probe, reroute) */
    public long retransmissions() {
        return total(Counter.RETRANSMITS_SACK) + total(Counter.RETRANSMITS_RTO) + total(Counter.RETRANSMITS_TAIL)
                + total(Counter.RETRANSMITS_REROUTED);
    }
}
