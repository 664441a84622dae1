package io.jccl.metaroce.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.metaroce.fabric.ImpairmentProxy;
import io.jccl.metaroce.fabric.ProxyConfig;
import io.jccl.metaroce.fabric.RelayClient;
import io.jccl.metaroce.fabric.RelayCounters;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code JCCL_METAROCE_RELAY}: the value is checked, the accepting endpoint registers with the proxy when the
 * transport is created and its listeners publish the fronts, and a relay that does not answer fails the transport
 * naming it. The traffic through the proxy is in {@link MetaRoceRelayMultiProcessTest}.
 */
@Tag("integration")
class MetaRoceRelayOptionTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private static NetTransport metaroce(Map<String, String> options, Duration connectTimeout) {
        return new MetaRoceNetTransportProvider().create(new TransportContext(new PeerIdentity(0, "host", "jvm-0"), 2,
                LOOPBACK, connectTimeout, options));
    }

    @Test
    void malformedRelayAddressesAreRejectedNamingTheOption() {
        for (String bad : new String[] {"7000", "localhost", "localhost:", ":7000", "localhost:0", "localhost:65536",
            "localhost:70x", "[]:7000"}) {
            assertThatThrownBy(() -> MetaRoceOptions.parse(Map.of(MetaRoceOptions.RELAY, bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("JCCL_METAROCE_RELAY='" + bad + "'").hasMessageContaining("host:port");
        }
        assertThatThrownBy(() -> MetaRoceOptions.parse(Map.of(MetaRoceOptions.RELAY, "no-such-host.invalid:7000")))
                .hasMessageContaining("JCCL_METAROCE_RELAY='no-such-host.invalid:7000'")
                .hasMessageContaining("cannot be resolved");
    }

    @Test
    void wellFormedRelayAddressesAreResolved() {
        assertThat(MetaRoceOptions.parse(Map.of()).relay()).isNull();
        assertThat(MetaRoceOptions.parse(Map.of(MetaRoceOptions.RELAY, " 127.0.0.1:7000 ")).relay())
                .isEqualTo(new InetSocketAddress("127.0.0.1", 7000));
        assertThat(MetaRoceOptions.parse(Map.of(MetaRoceOptions.RELAY, "[::1]:65535")).relay().getPort())
                .isEqualTo(65535);
    }

    @Test
    void listenersPublishTheFrontsTheProxyGaveTheAcceptingEndpoint() throws Exception {
        try (ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(LOOPBACK))) {
            proxy.start();
            InetSocketAddress control = proxy.controlAddress();
            NetTransport t = metaroce(Map.of(MetaRoceOptions.PATHS, "3",
                    MetaRoceOptions.RELAY, "127.0.0.1:" + control.getPort()), Duration.ofSeconds(5));
            try {
                Listener listener = t.listen(null);
                MetaRoceHandle handle = MetaRoceHandle.decode(listener.handle());
                MetaRoceHandle second = MetaRoceHandle.decode(t.listen(null).handle());
                assertThat(proxy.counter(RelayCounters.ENDPOINTS)).isEqualTo(1);
                assertThat(handle.paths()).hasSize(3).isEqualTo(second.paths());
                // the same addresses get the same fronts: asking again with the accepting sockets' addresses
                MetaRoceNetTransport m = (MetaRoceNetTransport) t;
                assertThat(RelayClient.register(control, m.acceptingAddresses(), Duration.ofSeconds(5)))
                        .isEqualTo(handle.paths()).doesNotContainAnyElementsOf(m.acceptingAddresses());
                assertThat(proxy.counter(RelayCounters.ENDPOINTS)).isEqualTo(1);
            } finally {
                t.close();
            }
        }
    }

    @Test
    void aRelayThatDoesNotAnswerFailsTheTransportNamingIt() throws Exception {
        try (DatagramSocket silent = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            String relay = "127.0.0.1:" + silent.getLocalPort();
            long start = System.nanoTime();
            assertThatThrownBy(() -> metaroce(Map.of(MetaRoceOptions.RELAY, relay), Duration.ofMillis(400)))
                    .isInstanceOf(NetException.class)
                    .satisfies(e -> assertThat(((NetException) e).reason()).isEqualTo(NetException.Reason.IO_ERROR))
                    .hasMessageContaining("JCCL_METAROCE_RELAY=127.0.0.1:" + silent.getLocalPort())
                    .hasMessageContaining("no registration reply");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("waited as long as the connect timeout")
                    .isBetween(Duration.ofMillis(350), Duration.ofSeconds(5));
        }
    }
}
