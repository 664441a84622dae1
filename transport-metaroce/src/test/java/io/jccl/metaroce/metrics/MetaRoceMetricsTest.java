package io.jccl.metaroce.metrics;

import io.jccl.metrics.JcclMetrics;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;
import io.jccl.metaroce.net.MetaRoceNetTransportProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JcclMetrics finds MetaRoceMetrics through the ServiceLoader; a refresh adds the meters of a transport opened
 * after binding and removes them once it closes. (Per-path gauges after traffic: not covered yet, see
 * docs/metrics.md.)
 */
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
                        .hasSize(3);
                assertThat(registry.find("jccl.metaroce.drops").tags("rank", "7", "reason", "bad_crc")
                        .functionCounter()).isNotNull();
                assertThat(registry.find("jccl.metaroce.bytes.sent").tag("rank", "7").functionCounter()).isNotNull();
            } finally {
                t.close();
            }
            metrics.refresh();
            assertThat(registry.find("jccl.metaroce.drops").tag("rank", "7").functionCounters()).isEmpty();
        }
    }
}
