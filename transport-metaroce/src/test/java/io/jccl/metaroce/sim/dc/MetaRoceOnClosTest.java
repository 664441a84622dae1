package io.jccl.metaroce.sim.dc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The production MetaRoCE engine (and the RoCEv2 baseline) on a small Clos fabric, every byte checked: a permutation completes with each flow's
 * own bytes in place, and so it does through random loss, an incast's drops and a failed plane; a run replays from
 * its seed; and the ideal transport bounds it.
 */
class MetaRoceOnClosTest {
    private static final int MTU = 4096;

    private static ClosFabric fabric(ClosConfig config, long seed) {
        return new ClosFabric(new ClosTopology(config), seed);
    }

    /** Runs MetaRoCE ({@link #run}) and checks that every byte arrived. */
    private static EngineHosts runEveryByte(ClosFabric fabric, Flows flows) {
        EngineHosts hosts = run(fabric, flows);
        assertEveryByteArrived(hosts, flows);
        return hosts;
    }

    private static EngineHosts run(ClosFabric fabric, Flows flows) {
        EngineHosts hosts = EngineHosts.attach(fabric, flows, MTU, true, 11);
        fabric.run(1_000_000_000_000L, flows);   // 1 s of virtual time: a hang shows as unfinished flows
        return hosts;
    }

    private static void assertEveryByteArrived(EngineHosts hosts, Flows flows) {
        assertEquals(0, flows.unfinished(), "flows left unfinished");
        assertEquals(0, hosts.wrongBytes(), "bytes placed that differ from what was sent");
        for (int f = 0; f < flows.count(); f++) {
            assertEquals(flows.bytes(f), hosts.placedBytes(f), "flow " + f + ": bytes placed");
        }
    }

    @Test
    void aPermutationPlacesEveryFlowsOwnBytes() {
        Flows flows = Workloads.permutation(16, 300_000, 2);
        EngineHosts hosts = runEveryByte(fabric(ClosConfig.fatTree(3, 4, 400), 1), flows);
        assertEquals(0, hosts.retransmissions(), "retransmissions on a lossless fabric");
        // The ideal transport bounds it: the same flows cannot finish sooner than at line rate.
        Flows ideal = Workloads.permutation(16, 300_000, 2);
        ClosFabric idealFabric = fabric(ClosConfig.fatTree(3, 4, 400), 1);
        IdealSprayHost.attachAll(idealFabric, ideal, MTU);
        idealFabric.run(Long.MAX_VALUE, ideal);
        long[] metaroce = flows.sortedFctPs();
        long[] bound = ideal.sortedFctPs();
        assertTrue(metaroce[0] >= bound[0] * 0.9, "MetaRoCE's fastest flow beat the ideal's by more than 10%");
    }

    @Test
    void randomLossOnEveryLinkIsRecoveredByteForByte() {
        ClosFabric fabric = fabric(ClosConfig.fatTree(3, 4, 400).withLoss(0.03, true), 7);
        EngineHosts hosts = runEveryByte(fabric, Workloads.permutation(16, 400_000, 4));
        assertTrue(fabric.randomLosses() > 0, "no packet was lost");
        assertTrue(hosts.retransmissions() > 0, "losses were never resent");
    }

    @Test
    void anIncastOverflowingItsBuffersCompletes() {
        ClosFabric fabric = fabric(ClosConfig.fatTree(3, 4, 400).withQueues(16 * MTU, 6 * MTU), 3);
        runEveryByte(fabric, Workloads.incast(16, 12, 200_000));
        assertTrue(fabric.ecnMarks() > 0, "no ECN marks at the incast's bottleneck");
    }

    @Test
    void aFailedPlaneIsRoutedAround() {
        ClosFabric fabric = fabric(ClosConfig.fatTree(3, 4, 400).withPlanes(2), 1);
        fabric.failPlaneAt(1, 20_000_000);   // 20 us in, mid-flow
        runEveryByte(fabric, Workloads.permutation(16, 2_000_000, 5));
        assertTrue(fabric.failureDrops() > 0, "the failed plane dropped nothing");
    }

    /**
     * A core switch and an aggregation switch's uplink fail mid-run, and routing does not converge: ECMP keeps hashing
     * onto them. MetaRoCE moves the paths that lose packets (a new UDP source port) and finishes every flow — a
     * connection whose every path lost one direction hears nothing and finds a route by its scout re-routes, after a
     * quarter of the silence limit; the RoCEv2 baseline, one path per connection, leaves the flows hashed through the
     * failed parts unfinished.
     */
    @Test
    void aFailedSwitchAndLinkAreRoutedAroundByMetaRoceNotByRoce() {
        ClosConfig config = ClosConfig.fatTree(3, 4, 400);
        int[] unfinished = new int[2];
        for (int roce = 0; roce < 2; roce++) {
            Flows flows = Workloads.permutation(16, 4_000_000, 9);
            ClosTopology topology = new ClosTopology(config);
            ClosFabric fabric = new ClosFabric(topology, 1);
            // After the handshakes (which go on path 0 only), mid-flow.
            for (String failure : new String[] {"switch:core0@20us", "link:agg3-up1@20us"}) {
                FailureEvent e = FailureEvent.parse(failure);
                fabric.schedulePorts(e.ports(topology), e.atPs(), e.down());
            }
            EngineHosts hosts = roce == 1 ? EngineHosts.attachRoce(fabric, flows, MTU, true, 11, true)
                    : EngineHosts.attach(fabric, flows, MTU, true, 11);
            // RoCEv2: 2 ms, a hundred times the flows' lossless time; MetaRoCE: until its scouts found routes.
            fabric.run(roce == 1 ? 2_000_000_000L : 100_000_000_000L, flows);
            assertTrue(fabric.failureDrops() > 0, "the failed parts dropped nothing");
            assertEquals(0, hosts.wrongBytes());
            unfinished[roce] = flows.unfinished();
            if (roce == 0) {
                assertEveryByteArrived(hosts, flows);
            }
        }
        assertEquals(0, unfinished[0]);
        assertTrue(unfinished[1] > 0, "every RoCEv2 flow avoided the failed switch and link");
    }

    /**
     * DCQCN on the RoCEv2 baseline: an incast marks packets, receivers send CNPs and senders cut their rates, and every
     * byte still arrives.
     */
    @Test
    void dcqcnCutsTheRoceSendersRatesInAnIncast() {
        Flows flows = Workloads.incast(16, 8, 2_000_000);
        ClosFabric fabric = fabric(ClosConfig.fatTree(3, 4, 400), 1);
        EngineHosts hosts = EngineHosts.attachRoce(fabric, flows, MTU, true, 3, true);
        fabric.run(1_000_000_000_000L, flows);
        assertEveryByteArrived(hosts, flows);
        assertTrue(fabric.ecnMarks() > 0, "no ECN marks");
        assertTrue(hosts.total(io.jccl.metaroce.protocol.Counter.ECN_WINDOW_CUTS) > 0, "no DCQCN rate cut");
        Flows same = Workloads.incast(16, 8, 2_000_000);
        ClosFabric without = fabric(ClosConfig.fatTree(3, 4, 400), 1);
        EngineHosts nocc = EngineHosts.attachRoce(without, same, MTU, true, 3, false);
        without.run(1_000_000_000_000L, same);
        assertEveryByteArrived(nocc, same);
        assertEquals(0, nocc.total(io.jccl.metaroce.protocol.Counter.ECN_WINDOW_CUTS));
    }

    /**
     * The RoCEv2 baseline on the same fabric: every flow's bytes arrive in its receive buffer, through loss, by
     * go-back-N; and it needs more time than MetaRoCE at 1% loss (it resends everything after each gap).
     */
    @Test
    void theRoceBaselineDeliversEveryByteAndLosesMoreTimeToLoss() {
        ClosConfig config = ClosConfig.fatTree(3, 4, 400).withLoss(0.01, false);
        Flows roce = Workloads.permutation(16, 400_000, 6);
        ClosFabric roceFabric = fabric(config, 2);
        EngineHosts roceHosts = EngineHosts.attachRoce(roceFabric, roce, MTU, true, 2, true);
        roceFabric.run(1_000_000_000_000L, roce);
        assertEveryByteArrived(roceHosts, roce);
        assertTrue(roceHosts.retransmissions() > roceFabric.randomLosses(), "go-back-N resent no more than it lost");
        Flows metaroce = Workloads.permutation(16, 400_000, 6);
        ClosFabric fabric = fabric(config, 2);
        run(fabric, metaroce);
        assertTrue(mean(roce) > mean(metaroce), "RoCEv2 " + mean(roce) + " ps, MetaRoCE " + mean(metaroce));
    }

    private static double mean(Flows flows) {
        return java.util.Arrays.stream(flows.sortedFctPs()).average().orElseThrow();
    }

    /** Collectives' traffic, both engines: a ring all-reduce (steps waiting for steps) and an all-to-all, bytes checked. */
    @Test
    void aRingAllReduceAndAnAllToAllDeliverEveryByteOnBothEngines() {
        for (boolean roce : new boolean[] {false, true}) {
            for (Flows flows : new Flows[] {Workloads.ringAllReduce(16, 1 << 20), Workloads.allToAll(16, 100_000)}) {
                ClosFabric fabric = fabric(ClosConfig.fatTree(3, 4, 400).withLoss(0.01, false), 4);
                flows.onReady(f -> fabric.setTimer(flows.src(f), fabric.nowPs()));
                EngineHosts hosts = roce ? EngineHosts.attachRoce(fabric, flows, MTU, true, 4, true)
                        : EngineHosts.attach(fabric, flows, MTU, true, 4);
                fabric.run(1_000_000_000_000L, flows);
                assertEveryByteArrived(hosts, flows);
                assertTrue(flows.jobPs() > 0);
            }
        }
    }

    @Test
    void aRunReplaysFromItsSeed() {
        assertArrayEquals(lossyRun(21), lossyRun(21));
    }

    private static long[] lossyRun(long seed) {
        Flows flows = Workloads.permutation(16, 200_000, seed);
        ClosFabric fabric = fabric(ClosConfig.fatTree(3, 4, 400).withLoss(0.02, false), seed);
        EngineHosts.attach(fabric, flows, MTU, true, seed);
        fabric.run(1_000_000_000_000L, flows);
        long[] out = new long[flows.count() + 1];
        for (int f = 0; f < flows.count(); f++) {
            out[f] = flows.finishPs(f);
        }
        out[flows.count()] = fabric.events();
        return out;
    }
}
