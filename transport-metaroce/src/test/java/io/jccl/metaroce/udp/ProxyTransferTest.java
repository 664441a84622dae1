package io.jccl.metaroce.udp;

import io.jccl.metaroce.fabric.ImpairmentProxy;
import io.jccl.metaroce.fabric.ProxyConfig;
import io.jccl.metaroce.fabric.RateLimit;
import io.jccl.metaroce.fabric.RelayClient;
import io.jccl.metaroce.fabric.RelayCounters;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.impair.Impairments;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MetaRoCE on real loopback sockets with every datagram through one {@link ImpairmentProxy}: several endpoints
 * registered, connected pairwise through each other's fronts, exact data both ways under impairments, black holes,
 * flaps and a rate limit.
 */
@Tag("integration")
class ProxyTransferTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final long SEND_BYTES = 100_000;
    private static final long MIDWAY_DATAGRAMS = 300;


    /** One direction of a pair's traffic: a WRITE and a SEND, and where they must land. */
    private record Flow(Endpoint from, int conn, int key, MemorySegment src, MemorySegment region,
                        MemorySegment recv, long sendLength) {
    }

    /**
     * Registers every driver with the proxy, connects each pair (lower index connects to higher, through the
     * fronts), moves a WRITE of {@code size} bytes and a SEND both ways on every connection, and checks every byte.
     * {@code midway} runs once the proxy has forwarded {@link #MIDWAY_DATAGRAMS} datagrams of the transfer (every
     * path has flows by then).
     */
    private static void allPairs(UdpDriver[] drivers, ImpairmentProxy proxy, Arena arena, long size,
                                 Runnable midway) throws IOException {
        List<List<InetSocketAddress>> fronts = new ArrayList<>();
        for (UdpDriver d : drivers) {
            fronts.add(RelayClient.register(proxy.controlAddress(), d.localAddresses(), Duration.ofSeconds(10)));
        }
        int pairs = drivers.length * (drivers.length - 1) / 2;
        List<MemorySegment> sources = new ArrayList<>();   // made first: connections then wait on nothing slow
        for (int k = 0; k < 2 * pairs; k++) {
            sources.add(Loopback.randomBytes(arena, Math.max(size, 1000 + SEND_BYTES + k), 100 + k));
        }
        List<Flow> flows = new ArrayList<>();
        List<Set<Integer>> seen = new ArrayList<>();
        for (UdpDriver d : drivers) {
            seen.add(new HashSet<>());
        }
        for (int i = 0; i < drivers.length; i++) {
            for (int j = i + 1; j < drivers.length; j++) {
                Endpoint ei = drivers[i].endpoint();
                Endpoint ej = drivers[j].endpoint();
                int conn = ei.connect(System.nanoTime(), drivers[i].addPeer(fronts.get(j)));
                seen.get(i).add(conn);
                int[] accepted = {-1};
                Set<Integer> known = seen.get(j);
                assertThat(Loopback.run(drivers, () -> {
                    accepted[0] = newConnection(ej, known);
                    return ei.isEstablished(conn) && accepted[0] >= 0;
                })).as("pair %d-%d connects%nproxy %s", i, j, proxy.counters()).isTrue();
                known.add(accepted[0]);
                flows.add(flow(arena, ei, conn, ej, accepted[0], size, sources.get(flows.size()),
                        SEND_BYTES + flows.size()));
                flows.add(flow(arena, ej, accepted[0], ei, conn, size, sources.get(flows.size()),
                        SEND_BYTES + flows.size()));
            }
        }
        List<CompletionStatus> done = new ArrayList<>();
        for (Flow f : flows) {
            f.from().postWrite(f.conn(), f.key(), 0, f.src(), 0, size);
            f.from().postSend(f.conn(), 2, f.src(), 1000, f.sendLength());
        }
        long midwayAt = proxy.counter(RelayCounters.FORWARDED) + MIDWAY_DATAGRAMS;
        boolean[] ranMidway = {false};
        // each flow completes a WRITE and a SEND at its sender and a receive at its peer
        boolean finished = Loopback.run(drivers, () -> {
            if (!ranMidway[0] && proxy.counter(RelayCounters.FORWARDED) >= midwayAt) {
                ranMidway[0] = true;
                midway.run();
            }
            for (UdpDriver d : drivers) {
                d.endpoint().pollCompletions((c, id, kind, status, bytes) -> done.add(status));
            }
            return done.size() == 3 * flows.size();
        });
        StringBuilder why = new StringBuilder();
        for (UdpDriver d : drivers) {
            why.append(d.endpoint().counters()).append('\n');
        }
        assertThat(finished).as("%s completions of %d%n%sproxy %s", done.size(), 3 * flows.size(), why,
                proxy.counters()).isTrue();
        assertThat(done).as("%s%nproxy %s", why, proxy.counters()).containsOnly(CompletionStatus.OK);
        assertThat(ranMidway[0]).isTrue();
        for (Flow f : flows) {
            assertThat(f.region().mismatch(f.src().asSlice(0, size))).isEqualTo(-1);
            assertThat(f.recv().mismatch(f.src().asSlice(1000, f.sendLength()))).isEqualTo(-1);
        }
    }

    /** @return a connection of {@code e} not in {@code known}, or -1 */
    private static int newConnection(Endpoint e, Set<Integer> known) {
        for (long peer = 1; peer <= 16; peer++) {
            int c = e.connectionTo(peer);
            if (c >= 0 && !known.contains(c) && e.isEstablished(c)) {
                return c;
            }
        }
        return -1;
    }

    /** One direction: a WRITE target registered at {@code to} and a receive posted there. */
    private static Flow flow(Arena arena, Endpoint from, int conn, Endpoint to, int back, long size,
                             MemorySegment src, long sendLength) {
        MemorySegment region = arena.allocate(size);
        int key = to.registerRegion(region, true);
        MemorySegment recv = arena.allocate(sendLength);
        to.postRecv(back, 2, recv, 0, sendLength);
        return new Flow(from, conn, key, src, region, recv, sendLength);
    }

    /**
     * Drivers whose retransmission floor is 1 ms, not the datacenter default of 50 µs: every datagram crosses a
     * user-space relay on a machine whose cores the endpoints and the relay share, and a relay stalled past the floor
     * makes every path time out at once.
     */
    private static UdpDriver[] drivers(int n, long seed) {
        UdpDriver[] d = new UdpDriver[n];
        for (int i = 0; i < n; i++) {
            d[i] = new UdpDriver(EndpointConfig.defaults(Loopback.KEY).withRto(1_000_000, 50_000_000),
                    UdpDriverConfig.defaults(LOOPBACK), new SplittableRandom(seed + i), new SystemNanoClock());
        }
        return d;
    }

    private static void closeAll(UdpDriver[] drivers) {
        for (UdpDriver d : drivers) {
            d.close();
        }
    }

    /** What a test checks after the transfers, while the proxy and the drivers are still open. */
    @FunctionalInterface
    private interface AfterTransfers {
        void check(ImpairmentProxy proxy, UdpDriver[] drivers);
    }

    /**
     * Starts {@code n} drivers and a proxy with {@code config}, moves {@link #allPairs} traffic of {@code size} bytes
     * through it ({@code midway} acts on the proxy once the transfers are under way), then runs {@code after}.
     */
    private static void transferThroughProxy(int n, long seed, ProxyConfig config, long size,
                                             Consumer<ImpairmentProxy> midway, AfterTransfers after)
            throws IOException {
        UdpDriver[] drivers = drivers(n, seed);
        try (Arena arena = Arena.ofConfined(); ImpairmentProxy proxy = new ImpairmentProxy(config)) {
            proxy.start();
            allPairs(drivers, proxy, arena, size, () -> midway.accept(proxy));
            after.check(proxy, drivers);
        } finally {
            closeAll(drivers);
        }
    }

    @Test
    void threeEndpointsExchangeExactDataThroughOneProxyUnderLossReorderingDuplicatesAndCorruption()
            throws IOException {
        transferThroughProxy(3, 11, ProxyConfig.defaults(LOOPBACK).withSeed(42)
                .withImpairments(Impairments.NONE.withLossRate(0.01).withDuplicateRate(0.01)
                        .withReorder(0.01, 10, 100_000).withCorruptRate(0.005)), 2 << 20, proxy -> { },
                (proxy, drivers) -> {
                    assertThat(proxy.counter(RelayCounters.ENDPOINTS)).isEqualTo(3);
                    assertThat(proxy.counter(RelayCounters.FORWARDED)).isPositive();
                    assertThat(proxy.counter(RelayCounters.DROPPED_LOSS)).isPositive();
                    assertThat(proxy.counter(RelayCounters.DUPLICATED)).isPositive();
                    assertThat(proxy.counter(RelayCounters.REORDERED)).isPositive();
                    assertThat(proxy.counter(RelayCounters.CORRUPTED)).isPositive();
                    long badCrc = 0;
                    for (UdpDriver d : drivers) {
                        badCrc += d.endpoint().counters().drops(DropReason.BAD_CRC);
                    }
                    assertThat(badCrc).isPositive();
                });
    }

    @Test
    void aBlackHoledPathIsEscapedByARerouteOntoANewFlow() throws IOException {
        transferThroughProxy(2, 21, ProxyConfig.defaults(LOOPBACK).withSeed(43), 8 << 20,
                proxy -> proxy.blackHolePath(3, System.nanoTime(),
                        System.nanoTime() + 3_600_000_000_000L),   // for good: only a new flow gets through
                (proxy, drivers) -> {
                    assertThat(proxy.counter(RelayCounters.DROPPED_BLACK_HOLE)).isPositive();
                    assertThat(drivers[0].socketsRebound() + drivers[1].socketsRebound()).isPositive();
                    // the re-routes' new flows
                    assertThat(proxy.counter(RelayCounters.FLOWS_OPENED)).isGreaterThan(8);
                });
    }

    @Test
    void aFlappingPathCostsDatagramsNotData() throws IOException {
        transferThroughProxy(2, 31, ProxyConfig.defaults(LOOPBACK).withSeed(44), 8 << 20,
                proxy -> proxy.flapPath(5, System.nanoTime(), 30_000_000, 20_000_000, 0),
                (proxy, drivers) -> {
                    proxy.stopFlaps();
                    assertThat(proxy.counter(RelayCounters.DROPPED_FLAP)).isPositive();
                });
    }

    @Test
    void aRateLimitedProxyMarksEcnAboveItsThresholdAndDeliversExactly() throws IOException {
        transferThroughProxy(2, 41, ProxyConfig.defaults(LOOPBACK).withSeed(45)
                        .withRateLimit(new RateLimit(100_000_000, 64 << 10, 8 << 10)), 2 << 20, proxy -> { },
                (proxy, drivers) -> assertThat(proxy.counter(RelayCounters.ECN_MARKED)).isPositive());
    }
}
