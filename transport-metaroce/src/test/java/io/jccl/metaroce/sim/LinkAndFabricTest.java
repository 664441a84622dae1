package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Queue math, ECN, tail drop, routes and failures; exact numbers on small, hand-computed cases. */
class LinkAndFabricTest {
    /** 8 Gbit/s = 1 ns per byte; delays 100 / 200 / 300; no overhead, no limits. */
    static FabricConfig oneNsPerByte() {
        return new FabricConfig(LinkConfig.lossless(8, 100), LinkConfig.lossless(8, 200), LinkConfig.lossless(8, 300),
                16, 2048, 0, Impairments.NONE);
    }

    static Simulator pair(FabricConfig f, PacketEngine a, PacketEngine b) {
        Simulator sim = new Simulator(f, 1);
        sim.addNode(a.id(), a);
        sim.addNode(b.id(), b);
        sim.wake(a.id());
        sim.wake(b.id());
        return sim;
    }

    @Test
    void storeAndForwardSerializationAndPropagation() {
        PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 1000, 2, 0);
        PacketEngine b = new PacketEngine(2);
        Simulator sim = pair(oneNsPerByte(), a, b);
        assertThat(sim.run(null, 1000, Long.MAX_VALUE).reason()).isEqualTo(StopReason.IDLE);
        // Each hop: 1000 ns serialization + its delay; the second packet waits 1000 ns behind the first.
        assertThat(b.arrivals()).isEqualTo(2);
        assertThat(b.arrival(0).ns()).isEqualTo(3 * 1000 + 100 + 200 + 300);
        assertThat(b.arrival(1).ns()).isEqualTo(b.arrival(0).ns() + 1000);
        assertThat(oneNsPerByte().oneWayNs(1000)).isEqualTo(3600);
        assertThat(sim.fabric().count(FabricCounter.DELIVERED)).isEqualTo(2);
        assertThat(sim.fabric().count(FabricCounter.BYTES_DELIVERED)).isEqualTo(2000);
        assertThat(sim.fabric().packetsInFlight()).isZero();
    }

    @Test
    void wireOverheadAndRatesInFemtoseconds() {
        // 100 Gbit/s = 80 fs/byte: 4096 + 66 bytes take 332.96 ns, rounded up per hop only at departure.
        LinkConfig l = LinkConfig.lossless(100, 0);
        assertThat(l.femtosPerByte()).isEqualTo(80_000);
        assertThat(l.serializationNs(4162)).isEqualTo(333);
        FabricConfig f = new FabricConfig(l, l, l, 4, 9216, 66, Impairments.NONE);
        PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 4096, 3, 0);
        PacketEngine b = new PacketEngine(2);
        Simulator sim = pair(f, a, b);
        sim.run(null, 1000, Long.MAX_VALUE);
        // Back-to-back packets leave every queue exactly 332.96 ns apart (no drift), rounded up to whole ns.
        long first = (long) Math.ceil(332.96);
        assertThat(b.arrival(0).ns()).isEqualTo(3 * first);
        assertThat(b.arrival(2).ns()).isEqualTo((long) Math.ceil(332.96 * 3) + 2 * first);
    }

    @Test
    void ecnMarksArrivalsThatFindMoreThanTheThresholdQueued() {
        // Fast source and route, a destination port at 1 Gbit/s (8 ns/byte) marking above 3000 bytes. Packet k
        // arrives 1000k ns after the first and finds 875k bytes ahead of it: k >= 4 are marked.
        FabricConfig f = oneNsPerByte().withLinks(LinkConfig.lossless(8, 100), LinkConfig.lossless(8, 200),
                new LinkConfig(1_000_000_000, 300, LinkConfig.UNLIMITED, 3000));
        PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 1000, 10, 0);
        PacketEngine b = new PacketEngine(2);
        Simulator sim = pair(f, a, b);
        sim.run(null, 1000, Long.MAX_VALUE);
        assertThat(b.arrivals()).isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat(b.arrival(i).ecn()).as("packet %d", b.arrival(i).seq()).isEqualTo(b.arrival(i).seq() >= 4);
        }
        assertThat(sim.fabric().count(FabricCounter.ECN_MARKED)).isEqualTo(6);
    }

    @Test
    void tailDropWhenThePacketDoesNotFitTheBuffer() {
        // Same bottleneck, 5000-byte buffer: packets 0-4 fit, 5-7 do not, 8 fits again once the queue drained a
        // bit (40000 - 8000 ns ahead = 4000 bytes + 1000 <= 5000), 9 does not.
        FabricConfig f = oneNsPerByte().withLinks(LinkConfig.lossless(8, 100), LinkConfig.lossless(8, 200),
                new LinkConfig(1_000_000_000, 300, 5000, LinkConfig.NO_ECN));
        PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 1000, 10, 0);
        PacketEngine b = new PacketEngine(2);
        Simulator sim = pair(f, a, b);
        sim.run(null, 1000, Long.MAX_VALUE);
        assertThat(b.seqs()).containsExactly(0, 1, 2, 3, 4, 8);
        assertThat(sim.fabric().count(FabricCounter.DROPPED_QUEUE_FULL)).isEqualTo(4);
        assertThat(sim.fabric().packetsInFlight()).isZero();
    }

    @Test
    void manySendersShareTheDestinationPort() {
        // Three senders, one packet each at t=0, into one receiver: the port serializes them one after another.
        PacketEngine a = new PacketEngine(1).plan(0, 9, 0, 1000, 1, 0);
        PacketEngine b = new PacketEngine(2).plan(0, 9, 0, 1000, 1, 0);
        PacketEngine c = new PacketEngine(3).plan(0, 9, 0, 1000, 1, 0);
        PacketEngine r = new PacketEngine(9);
        Simulator sim = new Simulator(oneNsPerByte(), 1);
        for (PacketEngine e : new PacketEngine[] {a, b, c, r}) {
            sim.addNode(e.id(), e);
            sim.wake(e.id());
        }
        sim.run(null, 1000, Long.MAX_VALUE);
        assertThat(r.arrivals()).isEqualTo(3);
        assertThat(r.arrival(0).ns()).isEqualTo(3600);
        assertThat(r.arrival(1).ns()).isEqualTo(4600);
        assertThat(r.arrival(2).ns()).isEqualTo(5600);
        assertThat(r.sources()).containsExactly(1, 2, 3);
    }

    @Test
    void pathsStartOnTheirOwnRoutes() {
        Simulator sim = new Simulator(FabricConfig.datacenter(), 3);
        sim.addNode(1, new PacketEngine(1));
        sim.addNode(2, new PacketEngine(2));
        for (int p = 0; p < 64; p++) {
            assertThat(sim.fabric().routeOf(1, 2, p)).isEqualTo(p);
        }
        Simulator few = new Simulator(FabricConfig.datacenter().withRoutesPerPair(4), 3);
        few.addNode(1, new PacketEngine(1));
        few.addNode(2, new PacketEngine(2));
        assertThat(few.fabric().routeOf(1, 2, 6)).isEqualTo(2);
    }

    @Test
    void blackHoleDropsEverythingOnItsRouteDuringItsWindowOnly() {
        // Infinitely fast links: a packet sent at t reaches its route at t + 100.
        FabricConfig f = new FabricConfig(LinkConfig.lossless(0, 100).withRateBitsPerSecond(0),
                new LinkConfig(0, 200, LinkConfig.UNLIMITED, LinkConfig.NO_ECN),
                new LinkConfig(0, 300, LinkConfig.UNLIMITED, LinkConfig.NO_ECN), 16, 2048, 0, Impairments.NONE);
        PacketEngine a = new PacketEngine(1);
        for (int i = 0; i < 30; i++) {
            a.plan(i * 1000L, 2, 0, 100, 1, 0).plan(i * 1000L, 2, 1, 100, 1, 0);
        }
        PacketEngine b = new PacketEngine(2);
        Simulator sim = pair(f, a, b);
        sim.fabric().blackHole(1, 2, 0, 10_100, 20_100); // packets sent at 10000..19000 on path 0
        sim.run(null, 10_000, Long.MAX_VALUE);
        assertThat(sim.fabric().count(FabricCounter.DROPPED_BLACK_HOLE)).isEqualTo(10);
        assertThat(b.arrivals()).isEqualTo(50);
        for (int i = 0; i < b.arrivals(); i++) {
            if (b.arrival(i).path() == 0) {
                assertThat(b.arrival(i).sentNs() >= 10_000 && b.arrival(i).sentNs() <= 19_000).isFalse();
            }
        }
        assertThat(sim.fabric().routePacketCounts(1, 2, 0)).containsExactly(30, 10);
        assertThat(sim.fabric().routePacketCounts(1, 2, 1)).containsExactly(30, 0);
    }

    @Test
    void allPathsDownDropsEveryRouteBothWays() {
        PacketEngine a = new PacketEngine(1);
        PacketEngine b = new PacketEngine(2);
        for (int i = 0; i < 20; i++) {
            a.plan(i * 1000L, 2, i % 8, 100, 1, 0);
            b.plan(i * 1000L, 1, i % 8, 100, 1, 0);
        }
        Simulator sim = pair(oneNsPerByte(), a, b);
        // Route arrival = send + 100 (source delay) + 100 (serialization): sends 5000..9000 fall in the window.
        sim.fabric().allPathsDown(1, 2, 5_200, 10_200);
        sim.run(null, 10_000, Long.MAX_VALUE);
        assertThat(sim.fabric().count(FabricCounter.DROPPED_ALL_PATHS_DOWN)).isEqualTo(10);
        assertThat(a.arrivals()).isEqualTo(15);
        assertThat(b.arrivals()).isEqualTo(15);
    }

    @Test
    void rerouteLeavesABlackHoledRoute() {
        PacketEngine a = new PacketEngine(1);
        a.plan(0, 2, 3, 100, 10, 1000);          // sent 0..9000 on route 3: black-holed
        a.reroute(9500, 2, 3, 1);                 // new generation: ECMP re-hash
        a.plan(10_000, 2, 3, 100, 10, 1000);      // now on another route
        PacketEngine b = new PacketEngine(2);
        Simulator sim = pair(oneNsPerByte(), a, b);
        sim.fabric().blackHolePath(1, 2, 3, 0, Long.MAX_VALUE);
        java.util.List<String> seen = new java.util.ArrayList<>();
        sim.fabric().observeReroutes((t, s, d, p, g, from, to) -> seen.add(t + " " + s + ">" + d + " path " + p
                + " gen " + g + " " + from + "->" + to));
        sim.run(null, 10_000, Long.MAX_VALUE);
        int moved = sim.fabric().routeOf(1, 2, 3);
        assertThat(seen).containsExactly("9500 1>2 path 3 gen 1 3->" + moved);
        assertThat(moved).isNotEqualTo(3).isBetween(0, 15);
        assertThat(sim.fabric().count(FabricCounter.REROUTES)).isEqualTo(1);
        assertThat(sim.fabric().count(FabricCounter.DROPPED_BLACK_HOLE)).isEqualTo(10);
        assertThat(b.arrivals()).isEqualTo(10);
        assertThat(b.arrival(0).sentNs()).isEqualTo(10_000);
        // The reverse direction keeps its routes.
        assertThat(sim.fabric().routeOf(2, 1, 3)).isEqualTo(3);
    }

    @Test
    void rerouteIsDeterministicAndAlwaysMoves() {
        for (int routes : new int[] {2, 3, 64}) {
            Simulator s1 = new Simulator(FabricConfig.datacenter().withRoutesPerPair(routes), 11);
            Simulator s2 = new Simulator(FabricConfig.datacenter().withRoutesPerPair(routes), 11);
            for (Simulator s : new Simulator[] {s1, s2}) {
                s.addNode(1, new PacketEngine(1));
                s.addNode(2, new PacketEngine(2));
            }
            for (int g = 1; g < 50; g++) {
                int before = s1.fabric().routeOf(1, 2, 0);
                s1.fabric().reroute(0, 2, 0, g, 0);
                s2.fabric().reroute(0, 2, 0, g, 0);
                assertThat(s1.fabric().routeOf(1, 2, 0)).isNotEqualTo(before)
                        .isEqualTo(s2.fabric().routeOf(1, 2, 0));
            }
        }
    }

    @Test
    void oversizedDatagramsAndBadPathsAreErrorsUnknownDestinationsAreCounted() {
        PacketEngine a = new PacketEngine(1).plan(0, 2, 0, 4000, 1, 0);
        Simulator sim = pair(oneNsPerByte(), a, new PacketEngine(2));
        assertThatThrownBy(() -> sim.run(null, 100, Long.MAX_VALUE)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("4000 bytes").hasMessageContaining("maxDatagramBytes=2048");
        PacketEngine c = new PacketEngine(1).plan(0, 2, 64, 100, 1, 0);
        Simulator sim2 = pair(oneNsPerByte(), c, new PacketEngine(2));
        assertThatThrownBy(() -> sim2.run(null, 100, Long.MAX_VALUE)).hasMessageContaining("path 64");
        PacketEngine d = new PacketEngine(1).plan(0, 77, 0, 100, 3, 0);
        Simulator sim3 = pair(oneNsPerByte(), d, new PacketEngine(2));
        sim3.run(null, 100, Long.MAX_VALUE);
        assertThat(sim3.fabric().count(FabricCounter.DROPPED_UNKNOWN_DESTINATION)).isEqualTo(3);
    }

    @Test
    void configurationIsChecked() {
        assertThatThrownBy(() -> new LinkConfig(-1, 0, 1, 0)).hasMessageContaining("rateBitsPerSecond");
        assertThatThrownBy(() -> new LinkConfig(1, -1, 1, 0)).hasMessageContaining("delayNs");
        assertThatThrownBy(() -> new LinkConfig(1, 0, 0, 0)).hasMessageContaining("bufferBytes");
        assertThatThrownBy(() -> FabricConfig.datacenter().withRoutesPerPair(0)).hasMessageContaining("routesPerPair");
        assertThatThrownBy(() -> FabricConfig.datacenter().withMaxDatagramBytes(70_000))
                .hasMessageContaining("maxDatagramBytes");
        assertThatThrownBy(() -> Impairments.NONE.withLossRate(1.5)).hasMessageContaining("lossRate");
        assertThatThrownBy(() -> Impairments.NONE.withBurstLoss(0.1, 0, 1)).hasMessageContaining("burstBadToGood");
        assertThatThrownBy(() -> Impairments.NONE.withReorder(0.1, 0, 10)).hasMessageContaining("reorderDepth");
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        sim.addNode(1, new PacketEngine(1));
        sim.addNode(2, new PacketEngine(2));
        assertThatThrownBy(() -> sim.addNode(2, new PacketEngine(2))).hasMessageContaining("already exists");
        assertThatThrownBy(() -> sim.fabric().blackHole(1, 2, 64, 0, 1)).hasMessageContaining("route 64");
        assertThatThrownBy(() -> sim.fabric().blackHole(1, 3, 0, 0, 1)).hasMessageContaining("no node 3");
        assertThatThrownBy(() -> sim.fabric().blackHole(1, 2, 0, 5, 1)).hasMessageContaining("window");
    }

    @Test
    void datacenterDefaults() {
        FabricConfig f = FabricConfig.datacenter();
        assertThat(f.route().rateBitsPerSecond()).isEqualTo(100_000_000_000L);
        assertThat(f.sourcePort().delayNs() + f.route().delayNs() + f.destinationPort().delayNs()).isEqualTo(4000);
        assertThat(f.destinationPort().bufferBytes()).isEqualTo(1 << 20);
        assertThat(f.destinationPort().ecnThresholdBytes()).isEqualTo(128 << 10);
        assertThat(f.sourcePort().bufferBytes()).isEqualTo(LinkConfig.UNLIMITED);
        FabricConfig g = f.withLinkGbps(25).withOneWayDelayNs(10_000).withSwitchBufferBytes(1000)
                .withEcnThresholdBytes(500);
        assertThat(g.destinationPort().rateBitsPerSecond()).isEqualTo(25_000_000_000L);
        assertThat(g.sourcePort().delayNs() + g.route().delayNs() + g.destinationPort().delayNs()).isEqualTo(10_000);
        assertThat(g.route().bufferBytes()).isEqualTo(1000);
        assertThat(g.route().ecnThresholdBytes()).isEqualTo(500);
        // Base RTT of a 4 KiB packet and its ACK at 100 Gbit/s: about 9 us of propagation and serialization.
        assertThat(f.baseRttNs(4140, 12)).isBetween(8_000L, 10_000L);
    }
}
