package io.jccl.metaroce.net;

import io.jccl.config.OptionReader;

import java.net.InetSocketAddress;
import java.util.Map;

/**
 * The {@code metaroce} transport's settings, read from {@link io.jccl.net.TransportContext#options()}: the
 * {@code JCCL_METAROCE_*} environment variables, overridden by the same keys set in {@code CommConfig}.
 *
 * <table>
 * <caption>Options</caption>
 * <tr><th>Option</th><th>Default</th><th>Meaning</th></tr>
 * <tr><td>{@code JCCL_METAROCE_PATHS}</td><td>8</td><td>logical paths (UDP source ports) per connection, 1-64</td></tr>
 * <tr><td>{@code JCCL_METAROCE_LOCAL_PATHS}</td><td>1</td><td>paths of a connection to a peer on this host (without a
 * relay), 1-64, at most {@code JCCL_METAROCE_PATHS}: all its traffic crosses the loopback device, one route, so more
 * paths only add sockets and batches</td></tr>
 * <tr><td>{@code JCCL_METAROCE_PAYLOAD_BYTES}</td><td>from the MTU</td><td>payload per packet, 256-65000; by default
 * what fits one IP packet (MTU minus IP, UDP and MetaRoCE headers) on the bind interface, or on loopback for a peer
 * on this host: 1400 on a 1500-byte Ethernet, 8896 with jumbo frames, 65000 on loopback</td></tr>
 * <tr><td>{@code JCCL_METAROCE_THREADING}</td><td>dedicated</td><td>{@code dedicated}: a driver thread per rank;
 * {@code shared}: one driver thread for every rank of the JVM; {@code invoker}: no thread, the caller's polls
 * drive the protocol</td></tr>
 * <tr><td>{@code JCCL_METAROCE_IDLE}</td><td>wait</td><td>driver idle strategy: {@code wait} (spin and yield
 * briefly, then sleep in the kernel on the sockets until a datagram, a timer or a caller wakes it; dedicated
 * threading with native I/O, else as backoff), {@code backoff} (spin, yield
 * 2000 times, then park up to 100 µs: arriving packets do not wake a parked driver), {@code yield}, {@code busy}, {@code sleep} (park 100 µs)</td></tr>
 * <tr><td>{@code JCCL_METAROCE_SOCKET_BUFFER_BYTES}</td><td>4194304</td><td>UDP send and receive buffer asked per
 * socket, 65536-1073741824</td></tr>
 * <tr><td>{@code JCCL_METAROCE_RTO_FLOOR_US}</td><td>5000</td><td>smallest retransmission timeout in
 * microseconds, 10-1000000: a software stack on a busy host stalls for milliseconds now and then, and a floor
 * below that makes healthy paths look dead</td></tr>
 * <tr><td>{@code JCCL_METAROCE_DEAD_MS}</td><td>10000</td><td>the silence limit in milliseconds, 100-3600000 and at
 * least 4 RTO floors: a connection fails once nothing at all came from the peer on any path for this long while it
 * waited for an answer (never after a number of timeouts; a stall of this process counts only for its first 200 ms). Long enough
 * for a descheduled peer or a long GC pause, short enough that a dead peer fails collectives in seconds</td></tr>
 * <tr><td>{@code JCCL_METAROCE_MAX_INFLIGHT}</td><td>16</td><td>requests one connection takes before
 * {@code isend}/{@code irecv} return null, 1-1024</td></tr>
 * <tr><td>{@code JCCL_METAROCE_PORTS}</td><td>(ephemeral)</td><td>{@code first-last}: bind every UDP socket (16 per
 * rank with 8 paths, more after re-routes) to a free port of this range, for firewalls</td></tr>
 * <tr><td>{@code JCCL_METAROCE_PRINT_COUNTERS}</td><td>0</td><td>1: print the endpoints' protocol, drop and socket
 * counters to standard error when the transport closes</td></tr>
 * <tr><td>{@code JCCL_METAROCE_RELAY}</td><td>(none)</td><td>{@code host:port}, the control address of an
 * {@link io.jccl.metaroce.fabric.ImpairmentProxy} ({@code jccl fabric --proxy}): at startup the transport registers
 * its accepting endpoint's path sockets there and its listeners publish the proxy's fronts instead, so every
 * datagram to this rank crosses the proxy (the initiating side needs nothing: it sends to its peers' fronts). The
 * registration waits as long as the connect timeout, 30 s at most. Beware: the accepting endpoint knows its peers only
 * by the proxy's flow sockets, and the proxy forgets a flow idle for its flow idle timeout (10 s by default, and with
 * {@code jccl fabric --proxy}), so two ranks that exchange nothing for longer lose their connection</td></tr>
 * <tr><td>{@code JCCL_METAROCE_OFFLOAD}</td><td>auto</td><td>what carries the connections: {@code auto} (an
 * {@link io.jccl.metaroce.offload.OffloadProvider} whose probe accepts one of the host's RDMA devices, else software
 * UDP), {@code off} (software UDP), or a provider's name (that one, or an error); read by
 * {@link io.jccl.metaroce.offload.OffloadSelector}, which logs the decision at INFO</td></tr>
 * <tr><td>{@code JCCL_IBVERBS_LIBRARY}</td><td>libibverbs.so.1</td><td>the libibverbs that RDMA device discovery
 * loads: a soname or a path ({@link io.jccl.metaroce.verbs.RdmaDiscovery})</td></tr>
 * </table>
 *
 * @param paths             logical paths per connection
 * @param localPaths        paths of a connection to a peer on this host when no relay is set (at most {@code paths})
 * @param payloadBytes      payload bytes per packet, 0 for "from the MTU"
 * @param threading         who drives the protocol
 * @param idle              what the driver thread does when there is nothing to do
 * @param socketBufferBytes socket buffer size asked of the kernel
 * @param rtoFloorNs        smallest retransmission timeout
 * @param deadNs            the silence limit after which a connection fails
 * @param maxInflight       requests per connection
 * @param printCounters     print the counters when the transport closes
 * @param relay             the proxy relay's control address, resolved; null: no relay
 * @param ports             {first, last} port of the range sockets bind to; {0, 0}: ephemeral
 * @param closeLingerNs     how long closing waits for what this rank sent to be acknowledged and its peers to finish
 *                          ({@code JCCL_CLOSE_LINGER_MS}); 0 closes at once
 */
record MetaRoceOptions(int paths, int localPaths, int payloadBytes, Threading threading, Idle idle,
                       int socketBufferBytes, long rtoFloorNs, long deadNs, int maxInflight, boolean printCounters,
                       InetSocketAddress relay, int[] ports, long closeLingerNs) {
    static final String PATHS = "JCCL_METAROCE_PATHS";
    static final String LOCAL_PATHS = "JCCL_METAROCE_LOCAL_PATHS";
    static final String PAYLOAD_BYTES = "JCCL_METAROCE_PAYLOAD_BYTES";
    static final String THREADING = "JCCL_METAROCE_THREADING";
    static final String IDLE = "JCCL_METAROCE_IDLE";
    static final String SOCKET_BUFFER_BYTES = "JCCL_METAROCE_SOCKET_BUFFER_BYTES";
    static final String MAX_INFLIGHT = "JCCL_METAROCE_MAX_INFLIGHT";
    static final String RTO_FLOOR_US = "JCCL_METAROCE_RTO_FLOOR_US";
    static final String DEAD_MS = "JCCL_METAROCE_DEAD_MS";
    static final String PRINT_COUNTERS = "JCCL_METAROCE_PRINT_COUNTERS";
    static final String PORTS = "JCCL_METAROCE_PORTS";
    static final String RELAY = "JCCL_METAROCE_RELAY";
    /** How long closing a transport waits for what it sent to be acknowledged and for its peers to finish. */
    static final String CLOSE_LINGER_MS = "JCCL_CLOSE_LINGER_MS";
    /** Default of {@link #CLOSE_LINGER_MS}: far above any round trip, even on a starved host. */
    static final long DEFAULT_CLOSE_LINGER_MS = 5_000;

    /** Who runs the protocol's duty cycle. */
    enum Threading {
        /** One driver thread per transport instance (per rank). */
        DEDICATED,
        /** One driver thread for every transport instance of the JVM. */
        SHARED,
        /** No thread: {@code test()}, {@code accept()} and {@code poll()} run the duty cycle. */
        INVOKER
    }

    /** Idle strategies of a driver thread. */
    enum Idle {
        /**
         * Spin and yield briefly, then sleep in the kernel on the sockets until a datagram, a timer or a caller
         * wakes the thread (dedicated threading with native I/O; otherwise as {@link #BACKOFF}).
         */
        WAIT,
        /** Spin, then yield, then park with growing pauses up to 100 µs. */
        BACKOFF,
        /** {@link Thread#yield()}. */
        YIELD,
        /** Spin without pause. */
        BUSY,
        /** Park 100 µs. */
        SLEEP
    }

    /**
     * @param options configuration values; absent keys take their defaults
     * @return the parsed options
     * @throws IllegalArgumentException naming the option and the value when a value is invalid
     */
    static MetaRoceOptions parse(Map<String, String> options) {
        OptionReader o = OptionReader.of(options).blankAsUnset();
        long rtoFloorUs = o.longValue(RTO_FLOOR_US, 5000, 10, 1_000_000);
        long deadMs = o.longValue(DEAD_MS, 10_000, 100, 3_600_000);
        if (deadMs * 1000 < 4 * rtoFloorUs) {
            throw o.invalid(DEAD_MS, "at least 4 retransmission timeouts, " + (4 * rtoFloorUs + 999) / 1000
                    + " ms with " + RTO_FLOOR_US + "=" + rtoFloorUs);
        }
        int paths = o.intValue(PATHS, 8, 1, 64);
        int localPaths = o.intValue(LOCAL_PATHS, 1, 1, 64);
        if (localPaths > paths) {
            throw o.invalid(LOCAL_PATHS, "at most " + PATHS + " (" + paths + ")");
        }
        return new MetaRoceOptions(
                paths,
                localPaths,
                o.intValue(PAYLOAD_BYTES, 0, 256, 65000),
                o.choice(THREADING, Threading.DEDICATED, Threading.class),
                o.choice(IDLE, Idle.WAIT, Idle.class),
                o.intValue(SOCKET_BUFFER_BYTES, 4 << 20, 64 << 10, 1 << 30),
                rtoFloorUs * 1000,
                deadMs * 1_000_000,
                o.intValue(MAX_INFLIGHT, 16, 1, 1024),
                o.flag(PRINT_COUNTERS, false),
                hostPort(o, RELAY),
                portRange(o, PORTS),
                o.longValue(CLOSE_LINGER_MS, DEFAULT_CLOSE_LINGER_MS, 0, 3_600_000) * 1_000_000);
    }

    /**
     * A simulated transport's options: driven by its poller (invoker threading), every connection over all its paths
     * (the simulated fabric's nodes are no host's; their addresses must not count as this one's).
     */
    MetaRoceOptions simulated() {
        return new MetaRoceOptions(paths, paths, payloadBytes, Threading.INVOKER, idle, socketBufferBytes, rtoFloorNs,
                deadNs, maxInflight, printCounters, relay, ports, closeLingerNs);
    }

    /** @return {first, last} of a {@code first-last} range of 1-65535 (at least 2 ports), or {0, 0} when not set */
    private static int[] portRange(OptionReader o, String key) {
        String raw = o.raw(key);
        if (raw == null) {
            return new int[] {0, 0};
        }
        String[] parts = raw.strip().split("-", -1);
        int first = -1;
        int last = -1;
        if (parts.length == 2) {
            try {
                first = Integer.parseInt(parts[0].strip());
                last = Integer.parseInt(parts[1].strip());
            } catch (NumberFormatException e) {
                first = -1;
            }
        }
        if (first < 1 || last > 65535 || first >= last) {
            throw o.invalid(key, "a port range first-last within 1-65535, e.g. 40000-40999 (each rank binds 2 x "
                    + PATHS + " sockets, more after re-routes)");
        }
        return new int[] {first, last};
    }

    /** @return {@code host:port} (an IPv6 host in brackets) resolved, or null when the option is not set */
    private static InetSocketAddress hostPort(OptionReader o, String key) {
        String raw = o.raw(key);
        if (raw == null) {
            return null;
        }
        String s = raw.strip();
        int colon = s.lastIndexOf(':');
        String host = colon < 0 ? "" : s.substring(0, colon);
        if (host.length() >= 2 && host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw o.invalid(key, "host:port with a port from 1 to 65535 (the control address a proxy relay,"
                    + " `jccl fabric --proxy`, printed)");
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw o.because(key, "the host '" + host + "' cannot be resolved");
        }
        return address;
    }
}
