package io.jccl.metaroce.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.net.NetException;
import io.jccl.net.NetProperties;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The collectives' transport conformance suite against the {@code metaroce} transport on loopback, in each
 * threading mode, plus what is particular to it: discovery, options, handles.
 */
class MetaRoceTransportConformanceTest extends NetTransportConformanceTest {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    @Override
    protected NetTransport createTransport(int rank, int size) {
        return metaroce(rank, Map.of("JCCL_METAROCE_PATHS", "4"));
    }

    static NetTransport metaroce(int rank, Map<String, String> options) {
        return new MetaRoceNetTransportProvider().create(new TransportContext(new PeerIdentity(rank, "host",
                "jvm-" + rank), 4, InetAddress.getLoopbackAddress(), CONNECT_TIMEOUT, options));
    }

    /** The same suite with the protocol driven by the callers' polls. */
    @Nested
    class Invoker extends NetTransportConformanceTest {
        private final List<MetaRoceNetTransport> created = new CopyOnWriteArrayList<>();

        @Override
        protected NetTransport createTransport(int rank, int size) {
            NetTransport t = metaroce(rank, Map.of("JCCL_METAROCE_PATHS", "2", "JCCL_METAROCE_THREADING", "invoker"));
            created.add((MetaRoceNetTransport) t);
            return t;
        }

        /** Nobody else drives a peer in invoker mode: waiting on one end must drive the other too. */
        @Override
        protected void idle() {
            for (MetaRoceNetTransport t : created) {
                t.driveFromCaller();
            }
            Thread.yield();
        }
    }

    /** The same suite with every transport of the JVM on one driver thread. */
    @Nested
    class Shared extends NetTransportConformanceTest {
        @Override
        protected NetTransport createTransport(int rank, int size) {
            return metaroce(rank, Map.of("JCCL_METAROCE_THREADING", "shared", "JCCL_METAROCE_IDLE", "yield"));
        }
    }

    @Test
    void providerIsFoundByServiceLoaderAndPreferredBetweenProcesses() {
        NetTransportProvider metaroce = ServiceLoader.load(NetTransportProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("metaroce")).findFirst().orElseThrow();
        assertThat(metaroce.priority()).isGreaterThan(10);
        assertThat(metaroce.canConnect(new PeerIdentity(0, "a", "x"), new PeerIdentity(1, "a", "y"))).isTrue();
        assertThat(metaroce.canConnect(new PeerIdentity(0, "a", "x"), new PeerIdentity(1, "a", "x"))).isFalse();
    }

    @Test
    void propertiesDescribeATransportWithItsOwnThread() {
        NetProperties p = properties();
        assertThat(p.name()).isEqualTo("metaroce");
        assertThat(p.signalsCompletion()).isTrue();
        assertThat(p.maxInflightRequests()).isEqualTo(16);
    }

    @Test
    void badOptionsAreRejectedNamingTheOption() {
        assertThatThrownBy(() -> metaroce(0, Map.of("JCCL_METAROCE_PATHS", "65")))
                .isInstanceOf(NetException.class).hasMessageContaining("JCCL_METAROCE_PATHS='65'");
        assertThatThrownBy(() -> metaroce(0, Map.of("JCCL_METAROCE_THREADING", "fast")))
                .hasMessageContaining("JCCL_METAROCE_THREADING='fast'").hasMessageContaining("dedicated, shared, invoker");
        assertThatThrownBy(() -> metaroce(0, Map.of("JCCL_METAROCE_PAYLOAD_BYTES", "12x")))
                .hasMessageContaining("JCCL_METAROCE_PAYLOAD_BYTES");
    }

    @Test
    void peersWithAnotherPathCountAreRefusedClearly() {
        NetTransport four = track(metaroce(0, Map.of("JCCL_METAROCE_PATHS", "4")));
        NetTransport two = track(metaroce(1, Map.of("JCCL_METAROCE_PATHS", "2")));
        byte[] handle = listener(four).handle();
        assertThatThrownBy(() -> two.connect(handle, null)).isInstanceOf(NetException.class)
                .hasMessageContaining("JCCL_METAROCE_PATHS");
    }
}
