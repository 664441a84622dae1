package io.jccl.metaroce.sim;

import io.jccl.config.Arguments;
import io.jccl.metaroce.impair.Impairments;

import java.util.Objects;

/**
 * The shape of the simulated fabric. Every packet from node S to node D on path p crosses three queues:
 * <ol>
 *   <li>S's <b>source port</b> (its NIC; shared by everything S sends; by default it never drops nor marks: a NIC
 *       does not drop its own packets, it sends when the wire is free);</li>
 *   <li>a <b>route</b>: one of {@code routesPerPair} routes of the ordered pair (S, D), standing for one ECMP
 *       choice through the switches (leaf, spine, leaf). Path p starts on route {@code p % routesPerPair}; a
 *       reroute moves it to another (see {@link Fabric}). Per-route impairments and black holes live here;</li>
 *   <li>D's <b>destination port</b> (the last switch port, towards D; shared by every sender to D, so incast
 *       queues and drops here).</li>
 * </ol>
 *
 * @param sourcePort         each node's NIC port
 * @param route              each route (one per ordered node pair and route index)
 * @param destinationPort    each node's last-hop switch port
 * @param routesPerPair      routes per ordered node pair, 1-1024
 * @param maxDatagramBytes   largest datagram the fabric carries (a packet slot's size), 64-65536
 * @param wireOverheadBytes  bytes each datagram takes on the wire beyond itself (Ethernet preamble, header, FCS
 *                           and inter-frame gap: 38; IPv4: 20; UDP: 8; default 66)
 * @param impairments        what every route does to packets (per-route overrides: {@link Fabric#impair})
 */
public record FabricConfig(LinkConfig sourcePort, LinkConfig route, LinkConfig destinationPort, int routesPerPair,
                           int maxDatagramBytes, int wireOverheadBytes, Impairments impairments) {
    /** Default line rate, Gbit/s. */
    public static final double DEFAULT_GBPS = 100;
    /** Default one-way propagation, ns (NIC to leaf 1 µs, leaf-spine-leaf 2 µs, leaf to NIC 1 µs). */
    public static final long DEFAULT_ONE_WAY_DELAY_NS = 4_000;
    /** Default switch port buffer: 1 MiB, a shallow-buffer datacenter switch's share for one congested port. */
    public static final long DEFAULT_BUFFER_BYTES = 1 << 20;
    /** Default ECN marking threshold: 128 KiB, about one bandwidth-delay product at 100 Gbit/s and 10 µs. */
    public static final long DEFAULT_ECN_THRESHOLD_BYTES = 128 << 10;

    /** Checks every value. */
    public FabricConfig {
        Objects.requireNonNull(sourcePort, "sourcePort");
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(destinationPort, "destinationPort");
        Objects.requireNonNull(impairments, "impairments");
        Arguments.inRange("routesPerPair", routesPerPair, 1, 1024);
        Arguments.inRange("maxDatagramBytes", maxDatagramBytes, 64, 65536);
        Arguments.inRange("wireOverheadBytes", wireOverheadBytes, 0, 1024);
    }

    /**
     * A datacenter fabric: 100 Gbit/s everywhere, 4 µs one-way propagation (1 + 2 + 1), switch ports with 1 MiB of
     * buffer and ECN marking above 128 KiB, lossless NIC ports, 64 routes per node pair, 9216-byte datagrams
     * (jumbo frames), 66 bytes of Ethernet/IPv4/UDP overhead per datagram, no impairments.
     *
     * @return the defaults
     */
    public static FabricConfig datacenter() {
        return new FabricConfig(LinkConfig.lossless(DEFAULT_GBPS, 1_000),
                LinkConfig.switchPort(DEFAULT_GBPS, 2_000, DEFAULT_BUFFER_BYTES, DEFAULT_ECN_THRESHOLD_BYTES),
                LinkConfig.switchPort(DEFAULT_GBPS, 1_000, DEFAULT_BUFFER_BYTES, DEFAULT_ECN_THRESHOLD_BYTES),
                64, 9216, 66, Impairments.NONE);
    }

    /** @return a copy where every link runs at {@code gbps} */
    public FabricConfig withLinkGbps(double gbps) {
        if (!(gbps > 0 && gbps <= 1e6)) {
            throw new IllegalArgumentException("link rate " + gbps + " Gbit/s must be in (0, 1e6]");
        }
        long bps = Math.round(gbps * 1e9);
        return withLinks(sourcePort.withRateBitsPerSecond(bps), route.withRateBitsPerSecond(bps),
                destinationPort.withRateBitsPerSecond(bps));
    }

    /** @return a copy whose one-way propagation totals {@code ns}, split 1:2:1 over source port, route, port */
    public FabricConfig withOneWayDelayNs(long ns) {
        if (ns < 0) {
            throw new IllegalArgumentException("one-way delay " + ns + " ns must be >= 0");
        }
        long edge = ns / 4;
        return withLinks(sourcePort.withDelayNs(edge), route.withDelayNs(ns - 2 * edge),
                destinationPort.withDelayNs(edge));
    }

    /** @return a copy whose switch ports (routes and destination ports) hold {@code bytes} */
    public FabricConfig withSwitchBufferBytes(long bytes) {
        return withLinks(sourcePort, route.withBufferBytes(bytes), destinationPort.withBufferBytes(bytes));
    }

    /** @return a copy whose switch ports mark above {@code bytes} */
    public FabricConfig withEcnThresholdBytes(long bytes) {
        return withLinks(sourcePort, route.withEcnThresholdBytes(bytes), destinationPort.withEcnThresholdBytes(bytes));
    }

    /** @return a copy with other links */
    public FabricConfig withLinks(LinkConfig source, LinkConfig routeLink, LinkConfig destination) {
        return new FabricConfig(source, routeLink, destination, routesPerPair, maxDatagramBytes, wireOverheadBytes,
                impairments);
    }

    /** @return a copy with another number of routes per node pair */
    public FabricConfig withRoutesPerPair(int n) {
        return new FabricConfig(sourcePort, route, destinationPort, n, maxDatagramBytes, wireOverheadBytes,
                impairments);
    }

    /** @return a copy carrying datagrams up to {@code bytes} */
    public FabricConfig withMaxDatagramBytes(int bytes) {
        return new FabricConfig(sourcePort, route, destinationPort, routesPerPair, bytes, wireOverheadBytes,
                impairments);
    }

    /** @return a copy with another per-datagram wire overhead */
    public FabricConfig withWireOverheadBytes(int bytes) {
        return new FabricConfig(sourcePort, route, destinationPort, routesPerPair, maxDatagramBytes, bytes,
                impairments);
    }

    /** @return a copy where every route applies {@code i} */
    public FabricConfig withImpairments(Impairments i) {
        return new FabricConfig(sourcePort, route, destinationPort, routesPerPair, maxDatagramBytes,
                wireOverheadBytes, i);
    }

    /**
     * @param datagramBytes a datagram's size
     * @return its one-way time through an idle fabric: serialization at each of the three queues plus propagation
     */
    public long oneWayNs(int datagramBytes) {
        long wire = datagramBytes + (long) wireOverheadBytes;
        return sourcePort.serializationNs(wire) + sourcePort.delayNs() + route.serializationNs(wire) + route.delayNs()
                + destinationPort.serializationNs(wire) + destinationPort.delayNs();
    }

    /**
     * @param dataBytes a data packet's size
     * @param ackBytes  its acknowledgement's size
     * @return the round trip through an idle fabric
     */
    public long baseRttNs(int dataBytes, int ackBytes) {
        return oneWayNs(dataBytes) + oneWayNs(ackBytes);
    }

    /**
     * @param datagramBytes a datagram's size
     * @return the most datagram bytes per second a destination port delivers when full of such datagrams
     */
    public double destinationGoodputBytesPerSecond(int datagramBytes) {
        return destinationPort.rateBitsPerSecond() / 8.0 * datagramBytes / (datagramBytes + wireOverheadBytes);
    }
}
