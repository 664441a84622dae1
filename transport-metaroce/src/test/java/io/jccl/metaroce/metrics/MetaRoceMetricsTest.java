package io.jccl.metaroce.metrics;

import io.jccl.metrics.JcclMetrics;
import io.jccl.net.Listener;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;
import io.jccl.metaroce.net.MetaRoceNetTransportProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JcclMetrics finds MetaRoceMetrics through the ServiceLoader; a refresh adds the meters of a transport opened
 * after binding and removes them once it closes; after real traffic between two transports on loopback, the
 * byte counter and every path's gauges carry the values of that traffic. Integration tier: the transports open UDP
 * sockets on loopback.
 */
@Tag("integration")
class MetaRoceMetricsTest {
    @Test
    void transportCountersAppearOnRefreshAndGoWhenTheTransportCloses() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JcclMetrics metrics = new JcclMetrics()) {
            metrics.bindTo(registry);
            NetTransport t = new MetaRoceNetTransportProvider().create(new TransportContext(
                    new PeerIdentity(7, "host", "jvm-metrics"), 2, InetAddress.getLoopbackAddress(),
                    Duration.ofSeconds(5), Map.of()));
            try {
                metrics.refresh();
                assertThat(registry.find("jccl.metaroce.retransmissions").tags("rank", "7", "reason", "rto")
                        .functionCounter()).isNotNull().satisfies(c -> assertThat(c.count()).isZero());
                assertThat(registry.find("jccl.metaroce.retransmissions").tag("rank", "7").functionCounters())
                        .as("sack, rto, rerouted, tail").hasSize(4);
                assertThat(registry.find("jccl.metaroce.drops").tags("rank", "7", "reason", "bad_crc")
                        .functionCounter()).isNotNull();
                assertThat(registry.find("jccl.metaroce.bytes.sent").tag("rank", "7").functionCounter()).isNotNull();
                assertThat(registry.find("jccl.metaroce.path.events").tag("rank", "7").functionCounters())
                        .hasSize(6);
                assertThat(registry.find("jccl.metaroce.timer.events").tags("rank", "7", "event",
                        "rto_deferred_stall").functionCounter()).isNotNull();
                assertThat(registry.find("jccl.metaroce.timer.events").tags("rank", "7", "event",
                        "stall_detected").functionCounter()).isNotNull();
                assertThat(registry.find("jccl.metaroce.connections.dead").tag("rank", "7").functionCounter())
                        .isNotNull();
            } finally {
                t.close();
            }
            metrics.refresh();
            assertThat(registry.find("jccl.metaroce.drops").tag("rank", "7").functionCounters()).isEmpty();
        }
    }

    @Test
    void pathGaugesAndByteCounterShowTheTrafficThatCrossed() {
        int paths = 4;
        long messageBytes = 1 << 20;
        int messages = 8;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JcclMetrics metrics = new JcclMetrics(); Arena arena = Arena.ofShared()) {
            metrics.bindTo(registry);
            NetTransport sender = transport(20, paths);
            NetTransport receiver = transport(21, paths);
            try (Listener listener = receiver.listen(ProgressSignal.NONE)) {
                PendingConnect pending = sender.connect(listener.handle(), ProgressSignal.NONE);
                SendConnection send = null;
                RecvConnection recv = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (send == null || recv == null) {
                    if (send == null) {
                        send = pending.poll();
                    }
                    if (recv == null) {
                        recv = listener.accept();
                    }
                    assertThat(System.nanoTime() - deadline).as("connect within 20 s").isNegative();
                    Thread.onSpinWait();
                }
                MemorySegment out = arena.allocate(messageBytes);
                MemorySegment in = arena.allocate(messageBytes);
                for (int i = 0; i < messages; i++) {
                    out.fill((byte) i);
                    NetRequest r = recv.irecv(in, 0, messageBytes, i, null);
                    NetRequest s = send.isend(out, 0, messageBytes, i, null);
                    boolean sent = false;
                    boolean received = false;
                    while (!sent || !received) {
                        sent = sent || s.test() != NetRequest.NOT_DONE;
                        received = received || r.test() != NetRequest.NOT_DONE;
                        assertThat(System.nanoTime() - deadline).as("traffic within 20 s").isNegative();
                    }
                    assertThat(in.get(java.lang.foreign.ValueLayout.JAVA_BYTE, messageBytes - 1)).isEqualTo((byte) i);
                }
                metrics.refresh();
                assertThat(registry.find("jccl.metaroce.bytes.sent").tag("rank", "20").functionCounter().count())
                        .isGreaterThanOrEqualTo((double) messages * messageBytes);
                // A loaded host can stall a side past the RTO floor and get a path suspected (a path event): only a
                // run without path events must end with every path active.
                double pathEvents = registry.find("jccl.metaroce.path.events").tag("rank", "20").functionCounters()
                        .stream().mapToDouble(FunctionCounter::count).sum();
                List<Gauge> rtts = List.copyOf(registry.find("jccl.metaroce.path.rtt").tag("rank", "20").gauges());
                assertThat(rtts).as("one RTT gauge per path of the sender's connection").hasSize(paths);
                assertThat(rtts.stream().filter(g -> g.value() > 0 && g.value() < 5)).as("paths with an RTT sample")
                        .isNotEmpty();
                for (Gauge rtt : rtts) {
                    String path = rtt.getId().getTag("path");
                    Gauge window = registry.find("jccl.metaroce.path.window").tags("rank", "20", "path", path)
                            .gauge();
                    assertThat(window.value()).as("path %s window", path).isPositive();
                    assertThat(registry.find("jccl.metaroce.path.ecn.fraction").tags("rank", "20", "path", path)
                            .gauge().value()).isBetween(0.0, 1.0);
                    double statesSet = registry.find("jccl.metaroce.path.state").tags("rank", "20", "path", path)
                            .gauges().stream().mapToDouble(Gauge::value).sum();
                    assertThat(statesSet).as("path %s is in exactly one state", path).isEqualTo(1.0);
                    if (pathEvents == 0) {
                        assertThat(registry.find("jccl.metaroce.path.state").tags("rank", "20", "path", path, "state",
                                "active").gauge().value()).as("path %s active: no path event was counted", path)
                                .isEqualTo(1.0);
                    }
                }
                assertThat(registry.find("jccl.metaroce.drops").tags("rank", "21", "reason", "bad_crc")
                        .functionCounter().count()).isZero();
                send.close();
                recv.close();
            } finally {
                sender.close();
                receiver.close();
            }
        }
    }

    private static NetTransport transport(int rank, int paths) {
        return new MetaRoceNetTransportProvider().create(new TransportContext(new PeerIdentity(rank, "host",
                "jvm-metrics-" + rank), 2, InetAddress.getLoopbackAddress(), Duration.ofSeconds(5),
                // Both ranks are on this host: the connection takes JCCL_METAROCE_LOCAL_PATHS of them.
                Map.of("JCCL_METAROCE_PATHS", Integer.toString(paths), "JCCL_METAROCE_LOCAL_PATHS",
                        Integer.toString(paths))));
    }
}
