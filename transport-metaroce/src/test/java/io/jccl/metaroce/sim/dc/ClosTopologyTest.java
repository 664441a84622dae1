package io.jccl.metaroce.sim.dc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wiring and routes of fat trees, checked against the counts and path lengths worked out by hand. */
class ClosTopologyTest {

    @Test
    void threeTierRadixFourHasTheTextbookCounts() {
        ClosTopology t = new ClosTopology(ClosConfig.fatTree(3, 4, 400));
        assertEquals(16, t.hosts());                 // k^3 / 4
        assertEquals(8 + 8 + 4, t.switchesPerPlane()); // k^2/2 ToRs, k^2/2 aggregation, (k/2)^2 cores
        assertEquals(16 + 8 * 4 + 8 * 4 + 4 * 4, t.ports());
    }

    @Test
    void slotCountsMatchHtsimsSizes() {
        assertEquals(1024, ClosConfig.slots(3, 16, 1));
        assertEquals(3456, ClosConfig.slots(3, 24, 1));
        assertEquals(8192, ClosConfig.slots(3, 32, 1));
        assertEquals(16, ClosConfig.radixFor(3, 1, 1000));
        assertEquals(128, ClosConfig.slots(2, 16, 1));   // leaf-spine: k leaves of k/2 hosts
    }

    /** Every route from every host to every other reaches it in the hops worked out by hand, on many paths. */
    @ParameterizedTest
    @CsvSource({"3, 4, 1, 1", "3, 6, 2, 2", "2, 6, 1, 3", "2, 4, 3, 1"})
    void everyRouteReachesItsDestinationInTheExpectedHops(int tiers, int radix, int oversubscription, int planes) {
        int slots = (int) ClosConfig.slots(tiers, radix, oversubscription);
        ClosTopology t = new ClosTopology(new ClosConfig(tiers, radix, oversubscription, planes, slots, 400, 500,
                1 << 20, 0, 0, false));
        int perTor = oversubscription * radix / 2;
        for (int src = 0; src < t.hosts(); src++) {
            for (int dst = 0; dst < t.hosts(); dst++) {
                if (src == dst) {
                    continue;
                }
                int expected = src / perTor == dst / perTor ? 2
                        : tiers == 2 || src / perTor / (radix / 2) == dst / perTor / (radix / 2) ? 4 : 6;
                assertEquals(expected, t.hops(src, dst));
                for (int plane = 0; plane < planes; plane++) {
                    for (int srcPort = 49152; srcPort < 49152 + 8; srcPort++) {
                        long hash = ClosTopology.flowHash(src, dst, srcPort, ClosTopology.UDP_DESTINATION_PORT);
                        int node = t.portTarget(t.nicPort(src, plane));
                        int links = 1;
                        while (!t.isHost(node)) {
                            int port = t.route(node, dst, hash);
                            assertEquals(plane, t.portPlane(port), "a route left its plane");
                            node = t.portTarget(port);
                            links++;
                            assertTrue(links <= 6, "a route longer than 6 links");
                        }
                        assertEquals(dst, node);
                        assertEquals(expected, links);
                    }
                }
            }
        }
    }

    /** Every link between two switches has its reverse: the wiring is a graph of bidirectional links. */
    @Test
    void everyFabricLinkHasItsReverse() {
        ClosTopology t = new ClosTopology(ClosConfig.fatTree(3, 6, 400));
        Set<Long> links = new HashSet<>();
        int first = t.firstPortOfPlane(0);
        for (int port = first; port < first + t.portsPerPlane(); port++) {
            if (t.portKind(port) == ClosTopology.FABRIC) {
                links.add(t.portOwner(port) * 1_000_000L + t.portTarget(port));
            }
        }
        for (long link : links) {
            assertTrue(links.contains(link % 1_000_000L * 1_000_000L + link / 1_000_000L), "no reverse of " + link);
        }
        assertEquals(2 * (6 * 3 * 3) * 2, links.size());   // ToR-agg and agg-core links, both directions
        for (int h = 0; h < t.hosts(); h++) {
            int tor = t.portTarget(t.nicPort(h, 0));
            assertEquals(h, t.portTarget(t.route(tor, h, 0)), "the ToR's port to host " + h);
            assertEquals(tor, t.portOwner(t.route(tor, h, 0)));
        }
    }

    /** ECMP: the uplink is the hash's choice; over many source ports each uplink gets its share. */
    @Test
    void ecmpSpreadsSourcePortsEvenlyOverTheUplinks() {
        ClosTopology t = new ClosTopology(ClosConfig.fatTree(3, 8, 400));
        int src = 0;
        int dst = t.hosts() - 1;   // another pod: the ToR goes up
        int tor = t.portTarget(t.nicPort(src, 0));
        int[] perUplink = new int[4];
        int firstUp = -1;
        for (int srcPort = 0; srcPort < 4096; srcPort++) {
            long hash = ClosTopology.flowHash(src, dst, srcPort, ClosTopology.UDP_DESTINATION_PORT);
            int port = t.route(tor, dst, hash);
            int choice = ClosTopology.ecmp(hash, tor, 4);
            if (firstUp < 0) {
                firstUp = port - choice;
            }
            assertEquals(firstUp + choice, port, "the uplink is not the hash's choice");
            assertEquals(port, t.route(tor, dst, hash), "the same 5-tuple took another uplink");
            perUplink[choice]++;
        }
        for (int n : perUplink) {
            assertTrue(n > 1024 * 0.85 && n < 1024 * 1.15, "uplinks got " + java.util.Arrays.toString(perUplink));
        }
    }

    @Test
    void badConfigurationsNameTheField() {
        assertRefusedNaming("tiers", () -> new ClosConfig(4, 4, 1, 1, 16, 400, 500, 1000, 0, 0, false));
        assertRefusedNaming("radix", () -> new ClosConfig(3, 5, 1, 1, 16, 400, 500, 1000, 0, 0, false));
        assertRefusedNaming("hosts", () -> new ClosConfig(3, 4, 1, 1, 17, 400, 500, 1000, 0, 0, false));
        assertRefusedNaming("picoseconds", () -> new ClosConfig(3, 4, 1, 1, 16, 300, 500, 1000, 0, 0, false));
        assertRefusedNaming("ECN", () -> new ClosConfig(3, 4, 1, 1, 16, 400, 500, 1000, 2000, 0, false));
        assertRefusedNaming("loss", () -> new ClosConfig(3, 4, 1, 1, 16, 400, 500, 1000, 0, 1.0, false));
    }

    private static void assertRefusedNaming(String field, Executable build) {
        assertTrue(assertThrows(IllegalArgumentException.class, build).getMessage().contains(field), field);
    }
}
