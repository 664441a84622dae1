package io.jccl.metaroce.sim.dc;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.metaroce.protocol.wire.HeaderFlyweight;
import io.jccl.metaroce.protocol.wire.PacketType;
import io.jccl.metaroce.sim.GoBackNEndpoint;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2LongHashMap;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One host's engine on the fabric (MetaRoCE's, or the RoCEv2 baseline's: {@link EngineHosts}): the driver rule of {@link io.jccl.metaroce.protocol.Engine} (deliver,
 * time out, then drain completions and transmissions and re-read the next timeout), with the fabric as its NIC. A
 * path is a UDP source port (a hash of host, peer, path and generation: a reroute moves it) in plane {@code path %
 * planes}; its destination port is where the peer's packets on that path came from (the UDP driver answers to a
 * path's return address), so a reroute by either side moves the path both ways. Datagrams it sends are built in place in the {@link DatagramStore}, a gathered DATA packet's payload
 * left in the sender's memory.
 */
final class EngineHost implements HostAgent, TransmitSink, CompletionHandler {
    private static final int FIRST_SOURCE_PORT = 49152;

    private final EngineHosts run;
    private final int host;
    private final Verbs engine;
    private final int planes;
    /** Per (peer, path): the path's generation, set by reroutes (missing: 0). */
    private final Long2LongHashMap generation = new Long2LongHashMap(0);
    /**
     * MetaRoCE, per (peer, path): the UDP port the peer's packets on that path last came from, where replies go (as
     * the UDP driver answers to a path's return address): a reroute by either side moves both directions.
     */
    private final Long2LongHashMap returnPort = new Long2LongHashMap(-1);
    /** Flows this host sends: their ids, connection ids (-1 until connected) and whether posted. */
    private int[] outgoing = new int[0];
    private int[] connection = new int[0];
    private boolean[] posted = new boolean[0];
    private int unposted;
    /** RoCEv2: incoming flows whose RECV is posted, and the RECVs' work ids to their flows. */
    private boolean[] recvPosted = new boolean[0];
    private int recvsUnposted;
    private final Long2LongHashMap recvFlow = new Long2LongHashMap(-1);
    /** Flows this host receives, by their offset in the sink region (sorted). */
    private long[] incomingOffset = new long[0];
    private int[] incomingFlow = new int[0];
    private long scheduledTimerPs = Long.MAX_VALUE;
    private int claimed = -1;
    private long claimedPeer;
    private int claimedPath;

    EngineHost(EngineHosts run, int host, Verbs engine) {
        this.run = run;
        this.host = host;
        this.engine = engine;
        this.planes = run.fabric.topology().planes();
    }

    Verbs engine() {
        return engine;
    }

    int registerSink(long bytes) {
        return ((Endpoint) engine).registerSinkRegion(bytes, (from, fromOffset, regionOffset, n) ->
                run.placed(host, from, fromOffset, regionOffset, n));
    }

    /** Connects to every flow's destination (time 0) and notes the flows arriving here. */
    void start() {
        Flows flows = run.flows;
        for (int f = 0; f < flows.count(); f++) {
            if (flows.src(f) == host) {
                int i = outgoing.length;
                outgoing = Arrays.copyOf(outgoing, i + 1);
                connection = Arrays.copyOf(connection, i + 1);
                posted = Arrays.copyOf(posted, i + 1);
                outgoing[i] = f;
                connection[i] = -1;
                unposted++;
            }
            if (flows.dst(f) == host) {
                int i = incomingFlow.length;
                incomingFlow = Arrays.copyOf(incomingFlow, i + 1);
                incomingOffset = Arrays.copyOf(incomingOffset, i + 1);
                incomingFlow[i] = f;
                incomingOffset[i] = run.remoteOffset[f];
                recvPosted = Arrays.copyOf(recvPosted, i + 1);
                recvsUnposted++;
            }
        }
        long nowNs = run.fabric.nowPs() / 1000;
        for (int i = 0; i < outgoing.length; i++) {
            int dst = run.flows.dst(outgoing[i]);
            // One connection per pair of hosts, opened by one side: the engines make no simultaneous open. Where
            // flows go both ways the lower host opens it; the other finds it once accepted (postReady).
            connection[i] = host < dst || !run.hasFlow(dst, host) ? engine.connect(nowNs, dst) : -1;
        }
        service(run.fabric.nowPs());
    }

    int incomingFlowAt(long regionOffset) {
        int i = Arrays.binarySearch(incomingOffset, regionOffset);
        return incomingFlow[i >= 0 ? i : -i - 2];
    }

    // ---- The fabric drives ----

    @Override
    public void onPacket(ClosFabric fabric, long nowPs, int packet) {
        PacketStore packets = fabric.packets();
        if (run.roce == null) {
            long key = (long) packets.src(packet) << 8 | packets.seq(packet);
            if (returnPort.get(key) != packets.srcPort(packet)) {
                returnPort.put(key, packets.srcPort(packet));
            }
        }
        int h = packets.flow(packet);
        DatagramStore store = run.store;
        DirectBuffer frame = store.assemble(h);
        engine.onDatagram(nowPs / 1000, packets.src(packet), packets.seq(packet), frame, 0, store.length(h),
                (packets.flags(packet) & PacketStore.CE) != 0);
        store.free(h);
        packets.free(packet);
        service(nowPs);
    }

    @Override
    public void onTimer(ClosFabric fabric, long nowPs) {
        scheduledTimerPs = Long.MAX_VALUE;
        engine.onTimeout(nowPs / 1000);
        service(nowPs);
    }

    @Override
    public void onNicIdle(ClosFabric fabric, long nowPs, int plane) {
        // The engine paces itself; its packets wait in the NIC's queue.
    }

    @Override
    public void onDropped(ClosFabric fabric, long nowPs, int packet) {
        run.store.free(fabric.packets().flow(packet));   // the fabric frees the packet; its bytes are ours
    }

    /** After any interaction: completions, flows whose connection came up, transmissions, the next timeout. */
    private void service(long nowPs) {
        long nowNs = nowPs / 1000;
        engine.pollCompletions(this);
        postReady(nowPs);
        engine.pollTransmit(nowNs, this);
        if (engine.pollCompletions(this) > 0 && postReady(nowPs)) {
            engine.pollTransmit(nowNs, this);   // a completion let a flow of this host start (a collective's step)
        }
        long next = engine.nextTimeoutNs();
        long nextPs = next == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(next, nowNs) * 1000;
        if (nextPs != scheduledTimerPs) {
            scheduledTimerPs = nextPs;
            run.fabric.setTimer(host, nextPs);
        }
    }

    /**
     * Posts RoCEv2's RECVs for incoming flows whose connection is known, and the flows this host sends that may start
     * (connection up, and not waiting for another flow).
     *
     * @return whether it posted a flow
     */
    private boolean postReady(long nowPs) {
        if (run.roce != null && recvsUnposted > 0) {
            // RoCEv2: a RECV for each incoming flow, as soon as its connection is known here (before its data).
            for (int i = 0; i < incomingFlow.length; i++) {
                int f = incomingFlow[i];
                int id = recvPosted[i] ? -1 : engine.connectionTo(run.flows.src(f));
                if (id >= 0) {
                    long work = engine.postRecv(id, 0, run.region[host], run.recvOffset(f), run.flows.bytes(f));
                    recvFlow.put(work, f);
                    recvPosted[i] = true;
                    recvsUnposted--;
                }
            }
        }
        boolean any = false;
        if (unposted > 0) {
            for (int i = 0; i < outgoing.length; i++) {
                int f = outgoing[i];
                if (!posted[i] && connection[i] < 0) {
                    connection[i] = engine.connectionTo(run.flows.dst(f));   // the peer opened it: accepted yet?
                }
                if (!posted[i] && run.flows.startPs(f) <= nowPs && connection[i] >= 0
                        && engine.isEstablished(connection[i])) {
                    int dst = run.flows.dst(f);
                    if (run.roce != null) {
                        engine.postSend(connection[i], 0, run.source[f], 0, run.flows.bytes(f));
                    } else {
                        engine.postWriteImmediate(connection[i], run.sinkKey[dst], run.remoteOffset[f], run.source[f],
                                0, run.flows.bytes(f), f);
                    }
                    run.flows.started(f, nowPs);
                    posted[i] = true;
                    unposted--;
                    any = true;
                }
            }
        }
        return any;
    }

    @Override
    public void onCompletion(int connectionId, long workId, WorkKind kind, CompletionStatus status, long bytes) {
        if (kind == WorkKind.IMMEDIATE) {
            run.finished((int) workId, status, run.fabric.nowPs());
        } else if (kind == WorkKind.RECV && recvFlow.containsKey(workId)) {
            run.finished((int) recvFlow.remove(workId), status, run.fabric.nowPs());
        } else if (status != CompletionStatus.OK) {
            run.failedCompletions++;   // its connection failed (the silence limit): the flow stays unfinished
        }
    }

    // ---- The engine transmits ----

    @Override
    public void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length) {
        send(destination, pathIndex, run.store.copyOf(buffer, offset, length));
    }

    @Override
    public int claim(long destination, int pathIndex, int maxLength) {
        if (maxLength > DatagramStore.SMALL_SLOT) {
            return -1;   // the engine builds it in its own buffer and transmits a copy
        }
        if (claimed >= 0) {
            run.store.free(claimed);   // a claim left open is replaced
        }
        claimed = run.store.claimSmall();
        claimedPeer = destination;
        claimedPath = pathIndex;
        return run.store.smallOffset(claimed);
    }

    @Override
    public MutableDirectBuffer claimedBuffer() {
        return run.store.smallBuffer(claimed);
    }

    @Override
    public MemorySegment claimedSegment() {
        return run.store.smallSegment(claimed);
    }

    @Override
    public void commit(int length) {
        run.store.commitWhole(claimed, length);
        int h = claimed;
        claimed = -1;
        send(claimedPeer, claimedPath, h);
    }

    @Override
    public boolean gathers() {
        return true;
    }

    @Override
    public void commitGather(int headerLength, MemorySegment payload, long payloadOffset, int payloadLength,
                             int trailerLength) {
        run.store.commitGathered(claimed, headerLength, payload.address() + payloadOffset, payloadLength,
                trailerLength);
        int h = claimed;
        claimed = -1;
        send(claimedPeer, claimedPath, h);
    }

    @Override
    public void reroute(long destination, int pathIndex, int newGeneration) {
        generation.put(destination << 8 | pathIndex, newGeneration);
    }

    private void send(long destination, int pathIndex, int handle) {
        DatagramStore store = run.store;
        boolean data;
        if (run.roce != null) {
            data = store.byteAt(handle, GoBackNEndpoint.TYPE_OFFSET) == GoBackNEndpoint.DATA_TYPE;
        } else {
            int type = store.byteAt(handle, HeaderFlyweight.TYPE_FIELD_OFFSET) & 0xFF;
            data = type == PacketType.WRITE || type == PacketType.SEND;
        }
        int flags = PacketStore.ECT | (data ? PacketStore.DATA : 0);
        long gen = generation.get(destination << 8 | pathIndex);
        int port = port(host, destination, pathIndex, gen);
        int to = ClosTopology.UDP_DESTINATION_PORT;   // RoCEv2's
        if (run.roce == null) {
            long back = returnPort.get(destination << 8 | pathIndex);
            to = back >= 0 ? (int) back : port(destination, host, pathIndex, 0);   // the peer's path socket
        }
        PacketStore packets = run.fabric.packets();
        int p = packets.allocate(host, (int) destination, port, to, store.length(handle)
                + EngineHosts.UDP_IP_ETHERNET_BYTES, flags, handle, pathIndex);
        run.fabric.send(host, pathIndex % planes, p);
    }

    /** @return the UDP port host {@code from} sends path {@code path} to {@code to} from, in generation {@code gen} */
    private static int port(long from, long to, int path, long gen) {
        return FIRST_SOURCE_PORT + (int) (mix(from, to, path, gen) & 0x3FFF);
    }

    private static long mix(long a, long b, long c, long d) {
        long z = a * 0x9E3779B97F4A7C15L ^ b * 0xBF58476D1CE4E5B9L ^ c * 0x94D049BB133111EBL ^ d * 0xD6E8FEB86659FD93L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
