package io.jccl.metaroce.sim.dc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fabric's queues and timing on small fat trees, against results worked out by hand: a lone flow's completion is
 * serialization plus propagation, an incast's aggregate is the bottleneck's rate, loss and failures are recovered by
 * the ideal transport, and a run is a function of its seed.
 */
class ClosFabricTest {
    private static final int MTU = 4096;
    private static final long SER_PS = MTU * 20L;       // 400 Gbit/s: 20 ps per byte
    private static final long DELAY_PS = 500_000;        // 500 ns per link
    private static final long FULL_PAYLOAD = MTU - IdealSprayHost.HEADER_BYTES;

    private static ClosConfig threeTierK4() {
        return ClosConfig.fatTree(3, 4, 400);
    }

    /** Adds one flow of {@code bytes} from host 0 to {@code dst} and runs it to the end with the ideal transport. */
    private static ClosFabric runLoneFlow(Flows flows, int dst, long bytes) {
        flows.add(0, dst, bytes, 0);
        ClosFabric fabric = new ClosFabric(new ClosTopology(threeTierK4()), 1);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        fabric.run(Long.MAX_VALUE, flows);
        return fabric;
    }

    /**
     * One flow of 10 full packets across pods (6 links): its NIC sends back to back, each switch forwards each packet
     * one serialization after it arrived, nothing queues. The last packet leaves the NIC at 10 serializations, then
     * crosses 5 more links (one serialization each) and 6 propagation delays.
     */
    @Test
    void aLoneFlowTakesSerializationPlusPropagation() {
        Flows flows = new Flows(1);
        ClosFabric fabric = runLoneFlow(flows, 15, 10 * FULL_PAYLOAD);
        assertEquals(0, flows.unfinished());
        assertEquals(10 * SER_PS + 5 * SER_PS + 6 * DELAY_PS, flows.finishPs(0));
        assertEquals(0, fabric.tailDrops());
    }

    /**
     * A lone flow within a ToR: the one switch port it crosses holds each of its 10 packets for one serialization (the
     * packet on the wire counts), so its queue averaged over the run is 10 x MTU x SER / T.
     */
    @Test
    void queueOccupancyIsTheTimeAverageOfEachPortsBytes() {
        ClosFabric fabric = runLoneFlow(new Flows(1), 1, 10 * FULL_PAYLOAD);
        double expected = 10.0 * MTU * SER_PS / fabric.nowPs();
        assertEquals(expected, fabric.meanQueueBytes(), 1e-9);
        assertEquals(expected, fabric.busiestMeanQueueBytes(), 1e-9);
    }

    /**
     * Within one ToR (2 links), a short last packet: it leaves the NIC one short serialization after the third full
     * one, but store-and-forward holds it at the ToR until that one has crossed the last link.
     */
    @Test
    void aShortLastPacketTakesItsOwnSerialization() {
        Flows flows = new Flows(1);
        runLoneFlow(flows, 1, 3 * FULL_PAYLOAD + 100);
        long lastSer = (100 + IdealSprayHost.HEADER_BYTES) * 20L;
        long thirdAtTor = 3 * SER_PS + DELAY_PS;
        assertEquals(thirdAtTor + SER_PS + lastSer + DELAY_PS, flows.finishPs(0));
    }

    /**
     * Eight senders to one host, buffers large enough for all: the ToR's port to the receiver is the bottleneck and
     * never idles once its first packet arrived (host 1 alone, on the same ToR, keeps it busy at line rate), so the
     * last byte arrives when it has sent every packet: aggregate goodput equals the link rate.
     */
    @Test
    void anIncastDrainsAtTheBottlenecksRate() {
        int packetsEach = 50;
        ClosConfig config = threeTierK4().withQueues(64L << 20, 0);
        Flows flows = Workloads.incast(16, 8, packetsEach * FULL_PAYLOAD);
        ClosTopology topology = new ClosTopology(config);
        ClosFabric fabric = new ClosFabric(topology, 1);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        fabric.run(Long.MAX_VALUE, flows);
        assertEquals(0, flows.unfinished());
        long last = 0;
        for (int f = 0; f < flows.count(); f++) {
            last = Math.max(last, flows.finishPs(f));
        }
        // Host 1's first packet reaches the ToR after one serialization and one delay; from then the port to host 0
        // sends all 8 x 50 packets back to back, and the last arrives one delay after it left.
        long firstAtTor = SER_PS + DELAY_PS;
        assertEquals(firstAtTor + 8L * packetsEach * SER_PS + DELAY_PS, last);
        int bottleneck = topology.route(topology.portTarget(topology.nicPort(0, 0)), 0, 0);
        assertEquals(8L * packetsEach * MTU, fabric.sentBytes(bottleneck));
        assertTrue(fabric.maxQueueBytes(bottleneck) > 4 * MTU, "the incast built no queue");
        assertEquals(0, fabric.tailDrops());
    }

    /** With a small buffer the incast overflows it; the ideal transport resends every drop and all flows finish. */
    @Test
    void tailDropsAreCountedAndRecovered() {
        ClosConfig config = threeTierK4().withQueues(8 * MTU, 4 * MTU);
        Flows flows = Workloads.incast(16, 12, 40 * FULL_PAYLOAD);
        ClosFabric fabric = new ClosFabric(new ClosTopology(config), 1);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        fabric.run(Long.MAX_VALUE, flows);
        assertEquals(0, flows.unfinished());
        assertTrue(fabric.tailDrops() > 0, "no drops at an 8-packet buffer");
        assertEquals(fabric.tailDrops(), flows.totalRetransmissions());
        assertTrue(fabric.ecnMarks() > 0, "no ECN marks above a 4-packet threshold");
        assertEquals(0, fabric.packets().alive() - 0, "packets leaked");
    }

    /** Random loss on the last hop at 10%: every loss is resent, every flow finishes, and the loss rate is near 10%. */
    @Test
    void randomLossOnTheLastHopIsRecovered() {
        ClosConfig config = threeTierK4().withLoss(0.1, false);
        Flows flows = Workloads.permutation(16, 200 * FULL_PAYLOAD, 3);
        ClosFabric fabric = new ClosFabric(new ClosTopology(config), 5);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        fabric.run(Long.MAX_VALUE, flows);
        assertEquals(0, flows.unfinished());
        assertEquals(fabric.randomLosses(), flows.totalRetransmissions());
        double rate = (double) fabric.randomLosses() / (16 * 200 + fabric.randomLosses());
        assertTrue(rate > 0.08 && rate < 0.12, "loss rate " + rate);
        assertEquals(16 * 200, fabric.delivered());
    }

    /** One of two planes fails mid-run: what it held is dropped and resent, the flows finish on the other plane. */
    @Test
    void aFailedPlaneDropsWhatItHoldsAndTheFlowsFinishOnTheOther() {
        ClosConfig config = threeTierK4().withPlanes(2);
        Flows flows = Workloads.permutation(16, 400 * FULL_PAYLOAD, 9);
        ClosFabric fabric = new ClosFabric(new ClosTopology(config), 1);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        fabric.failPlaneAt(1, 5_000_000);   // 5 us in
        fabric.run(Long.MAX_VALUE, flows);
        assertEquals(0, flows.unfinished());
        assertTrue(fabric.failureDrops() > 0, "the failed plane dropped nothing");
        // Two planes carry the first 5 us, then one: slower than 400 packets at two links' rate, faster than at one.
        long[] fct = flows.sortedFctPs();
        assertTrue(fct[fct.length - 1] > 200 * SER_PS && fct[0] < 400 * SER_PS + 7 * DELAY_PS + 6 * SER_PS,
                "completion times " + fct[0] + " to " + fct[fct.length - 1]);
    }

    /** The same seed gives the same run; another seed gives another (loss is random). */
    @Test
    void aRunIsAFunctionOfItsSeed() {
        long[] a = runWithLoss(7);
        long[] b = runWithLoss(7);
        long[] c = runWithLoss(8);
        assertArrayEquals(a, b);
        assertNotEquals(java.util.Arrays.toString(a), java.util.Arrays.toString(c));
    }

    private static long[] runWithLoss(long seed) {
        ClosConfig config = ClosConfig.fatTree(3, 6, 400).withLoss(0.01, true);
        Flows flows = Workloads.permutation(54, 100 * FULL_PAYLOAD, 1);
        ClosFabric fabric = new ClosFabric(new ClosTopology(config), seed);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        fabric.run(Long.MAX_VALUE, flows);
        long[] out = new long[flows.count() + 1];
        for (int f = 0; f < flows.count(); f++) {
            out[f] = flows.finishPs(f);
        }
        out[flows.count()] = fabric.events();
        return out;
    }

    /**
     * A ring all-reduce of 4 hosts under one leaf, the ideal transport: 6 steps, each a chunk of 10 packets over 2
     * links with nothing else on them (host h's uplink and the leaf's port to h + 1), each starting the moment the step
     * before arrived: the job is exactly 6 x (11 serializations + 2 delays).
     */
    @Test
    void aRingAllReduceTakesItsStepsOneAfterAnother() {
        ClosConfig config = new ClosConfig(2, 8, 1, 1, 4, 400, 500, 1 << 20, 0, 0, false);
        Flows flows = Workloads.ringAllReduce(4, 4 * 10 * FULL_PAYLOAD);
        ClosFabric fabric = new ClosFabric(new ClosTopology(config), 1);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        flows.onReady(f -> fabric.setTimer(flows.src(f), fabric.nowPs()));
        fabric.run(Long.MAX_VALUE, flows);
        assertEquals(0, flows.unfinished());
        assertEquals(24, flows.count());
        assertEquals(6 * (11 * SER_PS + 2 * DELAY_PS), flows.jobPs());
        for (int f = 4; f < 24; f++) {
            int before = f - 4 - f % 4 + (f % 4 + 3) % 4;   // the predecessor's chunk of the step before
            assertEquals(flows.finishPs(before), flows.startPs(f), "step " + f / 4 + " of host " + f % 4);
        }
    }

    /** An all-to-all: every ordered pair of hosts one flow, all finished, all of them started at once. */
    @Test
    void anAllToAllHasAFlowPerOrderedPair() {
        Flows flows = Workloads.allToAll(16, 20 * FULL_PAYLOAD);
        assertEquals(16 * 15, flows.count());
        ClosFabric fabric = new ClosFabric(new ClosTopology(threeTierK4()), 1);
        IdealSprayHost.attachAll(fabric, flows, MTU);
        fabric.run(Long.MAX_VALUE, flows);
        assertEquals(0, flows.unfinished());
        // 15 flows of 20 packets leave each NIC back to back at best: the job takes at least 300 serializations.
        assertTrue(flows.jobPs() >= 300 * SER_PS, "job " + flows.jobPs());
    }

    /** A permutation is a single cycle: every host sends once and receives once, never to itself. */
    @Test
    void aPermutationSendsAndReceivesOncePerHost() {
        Flows flows = Workloads.permutation(1000, 1, 42);
        int[] in = new int[1000];
        int[] out = new int[1000];
        for (int f = 0; f < flows.count(); f++) {
            assertNotEquals(flows.src(f), flows.dst(f));
            out[flows.src(f)]++;
            in[flows.dst(f)]++;
        }
        for (int h = 0; h < 1000; h++) {
            assertEquals(1, in[h]);
            assertEquals(1, out[h]);
        }
    }
}
