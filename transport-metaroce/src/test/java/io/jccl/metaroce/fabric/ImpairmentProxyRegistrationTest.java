package io.jccl.metaroce.fabric;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The proxy's control socket and {@link RelayClient}: idempotent, robust against junk, retried, clear failures. */
@Tag("integration")
class ImpairmentProxyRegistrationTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration TIMEOUT = Duration.ofSeconds(8);

    private static List<InetSocketAddress> paths(int firstPort, int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> new InetSocketAddress(LOOPBACK, firstPort + i))
                .toList();
    }

    @Test
    void theSameAddressesGetTheSameFrontsAndOthersGetTheirOwn() throws IOException {
        try (ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(LOOPBACK))) {
            proxy.start();
            List<InetSocketAddress> first = RelayClient.register(proxy.controlAddress(), paths(40000, 4), TIMEOUT);
            List<InetSocketAddress> again = RelayClient.register(proxy.controlAddress(), paths(40000, 4), TIMEOUT);
            List<InetSocketAddress> other = RelayClient.register(proxy.controlAddress(), paths(41000, 4), TIMEOUT);
            assertThat(first).hasSize(4).doesNotHaveDuplicates().isEqualTo(again);
            assertThat(other).hasSize(4).doesNotContainAnyElementsOf(first);
            assertThat(first).allSatisfy(f -> assertThat(f.getAddress()).isEqualTo(LOOPBACK));
            assertThat(proxy.counter(RelayCounters.ENDPOINTS)).isEqualTo(2);
            assertThat(proxy.counter(RelayCounters.REGISTER_REQUESTS)).isEqualTo(3);
            assertThat(proxy.counter(RelayCounters.BAD_REQUESTS)).isZero();
        }
    }

    @Test
    void malformedRequestsAreIgnoredAndCounted() throws IOException {
        try (ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(LOOPBACK));
             DatagramChannel junk = DatagramChannel.open()) {
            proxy.start();
            ByteBuffer good = ByteBuffer.allocate(RelayControl.MAX_LENGTH);
            RelayControl.encode(good, RelayControl.REGISTER, RelayControl.OK, 5, paths(42000, 2));
            byte[] valid = new byte[good.remaining()];
            good.get(valid);
            List<byte[]> bad = new java.util.ArrayList<>();
            bad.add(new byte[0]);
            bad.add(new byte[] {1, 2, 3});
            bad.add(with(valid, 0, (byte) 0));                          // magic
            bad.add(with(valid, 4, (byte) 9));                          // version
            bad.add(with(valid, 5, (byte) RelayControl.REGISTERED));    // type
            bad.add(with(valid, 6, (byte) 1));                          // status in a request
            bad.add(with(valid, 7, (byte) 0));                          // no paths
            bad.add(with(valid, 7, (byte) 65));                         // too many paths
            bad.add(with(valid, 7, (byte) 3));                          // count and length disagree
            bad.add(java.util.Arrays.copyOf(valid, valid.length + 1));  // trailing byte
            bad.add(java.util.Arrays.copyOf(valid, valid.length - 1));  // truncated
            byte[] wildcard = valid.clone();
            java.util.Arrays.fill(wildcard, RelayControl.HEADER, RelayControl.HEADER + 4, (byte) 0);
            bad.add(wildcard);
            byte[] noPort = valid.clone();
            noPort[RelayControl.HEADER + 4] = 0;
            noPort[RelayControl.HEADER + 5] = 0;
            bad.add(noPort);
            for (byte[] b : bad) {
                junk.send(ByteBuffer.wrap(b), proxy.controlAddress());
            }
            // Sent after the junk to the same socket: once it is answered, every bad request has been handled.
            assertThat(RelayClient.register(proxy.controlAddress(), paths(42000, 2), TIMEOUT)).hasSize(2);
            assertThat(proxy.counter(RelayCounters.BAD_REQUESTS)).isEqualTo(bad.size());
            assertThat(proxy.counter(RelayCounters.ENDPOINTS)).isEqualTo(1);
        }
    }

    private static byte[] with(byte[] b, int at, byte value) {
        byte[] copy = b.clone();
        copy[at] = value;
        return copy;
    }

    @Test
    void theClientAsksAgainWhenARequestIsLost() throws IOException {
        try (ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(LOOPBACK))) {
            proxy.start();
            proxy.dropNextControlRequests(2);
            assertThat(RelayClient.register(proxy.controlAddress(), paths(43000, 3), Duration.ofSeconds(4)))
                    .hasSize(3);
            assertThat(proxy.counter(RelayCounters.REGISTER_REQUESTS)).isEqualTo(3);
            assertThat(proxy.counter(RelayCounters.ENDPOINTS)).isEqualTo(1);
        }
    }

    @Test
    void noAnswerIsATimeoutNamingTheRelay() throws IOException {
        try (DatagramChannel silent = DatagramChannel.open()) {
            silent.bind(new InetSocketAddress(LOOPBACK, 0));
            InetSocketAddress at = (InetSocketAddress) silent.getLocalAddress();
            assertThatThrownBy(() -> RelayClient.register(at, paths(44000, 2), Duration.ofMillis(400)))
                    .isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("127.0.0.1:" + at.getPort())
                    .hasMessageContaining(RelayClient.ATTEMPTS + " requests");
        }
    }

    @Test
    void aFullRelayRefusesClearlyAndBadAddressesAreRefusedBeforeSending() {
        try (ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(LOOPBACK).withLimits(1, 16,
                60_000_000_000L))) {
            proxy.start();
            assertThat(catchRegister(proxy, paths(45000, 2))).isNull();
            assertThat(catchRegister(proxy, paths(46000, 2))).isInstanceOf(IOException.class)
                    .hasMessageContaining("refused").hasMessageContaining(proxy.controlAddress().getPort() + "");
            assertThat(proxy.counter(RelayCounters.REGISTRATIONS_REFUSED)).isEqualTo(1);
            assertThat(catchRegister(proxy, List.of(new InetSocketAddress("0.0.0.0", 5000))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wildcard");
        }
    }

    private static Throwable catchRegister(ImpairmentProxy proxy, List<InetSocketAddress> paths) {
        try {
            RelayClient.register(proxy.controlAddress(), paths, TIMEOUT);
            return null;
        } catch (IOException | RuntimeException e) {
            return e;
        }
    }

    @Test
    void theConfigRefusesTheWildcardAndBadLimits() {
        assertThatThrownBy(() -> ProxyConfig.defaults(InetAddress.getByName("0.0.0.0")))
                .hasMessageContaining("wildcard");
        assertThatThrownBy(() -> ProxyConfig.defaults(LOOPBACK).withLimits(1, 0, 1_000_000_000))
                .hasMessageContaining("maxFlows");
    }
}
