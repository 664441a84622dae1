package io.jccl.net.aeronudp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportConformanceTest;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Runs the transport conformance suite against the aeron-udp transport over loopback, both ends in this JVM (one
 * embedded media driver serves both; the suite builds transports directly, so the provider's other-JVM rule does
 * not apply); and adds what only aeron-udp has: options, the provider's rule, handles, messages larger than the
 * term, a closed receiver noticed through Aeron's timeout.
 */
@Tag("integration")
class AeronUdpTransportConformanceTest extends NetTransportConformanceTest {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    @Override
    protected NetTransport createTransport(int rank, int size) {
        return udp(rank, size, Map.of());
    }

    private NetTransport udp(int rank, int size, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>(extra);
        options.putIfAbsent(AeronUdpOptions.TERM_BYTES, String.valueOf(4 << 20));
        options.putIfAbsent(AeronUdpOptions.MTU, "8192");
        options.putIfAbsent(AeronUdpOptions.PEER_TIMEOUT_MS, "1000");
        return track(new AeronUdpTransportProvider().create(loopbackContext(rank, size, CONNECT_TIMEOUT, options)));
    }

    @Test
    void providerIsFoundByServiceLoaderAndConnectsAnyTwoJvms() {
        NetTransportProvider udp = loadProvider("aeron-udp");
        assertThat(udp.priority()).isEqualTo(5);
        PeerIdentity a = new PeerIdentity(0, "h1", "j1");
        assertThat(udp.canConnect(a, new PeerIdentity(1, "h1", "j2"))).isTrue();
        assertThat(udp.canConnect(a, new PeerIdentity(1, "h2", "j2"))).isTrue();
        assertThat(udp.canConnect(new PeerIdentity(1, "h2", "j2"), a)).isTrue();
        assertThat(udp.canConnect(a, new PeerIdentity(1, "h1", "j1"))).as("same JVM").isFalse();
    }

    @Test
    void propertiesDescribeACallerDrivenTransport() {
        assertThat(assertCallerDriven("aeron-udp").latencyUs()).isGreaterThan(3.0);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "JCCL_AERON_UDP_MTU;abc", "JCCL_AERON_UDP_MTU;1400", "JCCL_AERON_UDP_MTU;256", "JCCL_AERON_UDP_MTU;65536",
            "JCCL_AERON_UDP_TERM_BYTES;-1", "JCCL_AERON_UDP_TERM_BYTES;3145728", "JCCL_AERON_UDP_TERM_BYTES;32768",
            "JCCL_AERON_UDP_TERM_BYTES;2147483648", "JCCL_AERON_UDP_TERM_BYTES;16 MiB",
            "JCCL_AERON_UDP_SOCKET_BUFFER_BYTES;0", "JCCL_AERON_UDP_SOCKET_BUFFER_BYTES;x",
            "JCCL_AERON_UDP_PEER_TIMEOUT_MS;10", "JCCL_AERON_UDP_PEER_TIMEOUT_MS;1e3"})
    void invalidOptionsAreRejectedNamingKeyAndValue(String key, String value) {
        assertOptionRejected(() -> udp(0, 1, Map.of(key, value)), key, value);
    }

    @Test
    void defaultsAreValid() {
        AeronUdpOptions o = AeronUdpOptions.parse(Map.of());
        assertThat(AeronUdpOptions.mtuForLink(1500, false)).isEqualTo(1472);   // Ethernet: 1500 less 20 (IPv4) and 8 (UDP)
        assertThat(AeronUdpOptions.mtuForLink(1400, false)).isEqualTo(1344);   // this VM's eth0: 1372 rounded down
        assertThat(AeronUdpOptions.mtuForLink(1500, true)).isEqualTo(1440);
        assertThat(AeronUdpOptions.mtuForLink(65536, false)).isEqualTo(65504);  // loopback: capped at Aeron's largest
        assertThat(AeronUdpOptions.mtuForLink(576, false)).isEqualTo(544);
        assertThat(AeronUdpOptions.mtuForLink(300, false)).isEqualTo(512);      // floor: Aeron's smallest
        assertThat(AeronUdpOptions.mtuForLink(-1, false)).isEqualTo(1408);      // unknown link
        assertThat(AeronUdpOptions.parse(Map.of(), 1344).mtuBytes()).isEqualTo(1344);
        assertThat(AeronUdpOptions.parse(Map.of("JCCL_AERON_UDP_MTU", "4096"), 1344).mtuBytes()).isEqualTo(4096);
        assertThat(o.mtuBytes()).isEqualTo(1408);
        assertThat(o.termBytes()).isEqualTo(8 << 20);
        assertThat(o.windowBytes()).isEqualTo(2 << 20);
        assertThat(o.peerTimeoutMs()).isEqualTo(3000);
    }

    @Test
    void handlesAreValidated() {
        byte[] valid = aListenersHandle();
        AeronUdpHandle decoded = AeronUdpHandle.decode(valid);
        assertThat(decoded.address()).isEqualTo(InetAddress.getLoopbackAddress());
        assertThat(decoded.port()).isPositive();
        assertThat(AeronUdpHandle.decode(decoded.encode())).isEqualTo(decoded);
        assertHandleVersionAndLengthChecked(valid, AeronUdpHandle::decode);
        assertSpoiledHandleRefused(valid, h -> {
            h[6] = 0;
            h[7] = 0;
        }, AeronUdpHandle::decode, "port");
    }

    @Test
    void messagesLargerThanTheTermLengthStreamThroughTheWindow() {
        assertMessageGoesThrough(link(), 20 << 20, 1);   // five times the 4 MiB term length of this test class
    }

    @Test
    void receiverClosingMakesSendsFailWithPeerClosedAfterThePeerTimeout() {
        assertThat(assertSendsFailWithPeerClosedOnceTheReceiverCloses()).isLessThan(Duration.ofSeconds(10));
    }
}
