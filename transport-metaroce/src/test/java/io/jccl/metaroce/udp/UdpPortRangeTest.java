package io.jccl.metaroce.udp;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.metaroce.protocol.Endpoint;

import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Path sockets bound to a port range: inside it, the lowest free ports first, and a clear error when it is full. */
@Tag("integration")
class UdpPortRangeTest {
    /** A range of free ports found by binding; not a guarantee, but other tests use ephemeral ports. */
    private static int freeRangeStart(int length) throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            int first = 20_000 + (int) (Math.random() * 30_000);
            boolean free = true;
            for (int p = first; p < first + length && free; p++) {
                try (DatagramChannel probe = DatagramChannel.open()) {
                    probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
                } catch (java.net.BindException e) {
                    free = false;
                }
            }
            if (free) {
                return first;
            }
        }
        throw new IllegalStateException("no free port range found");
    }

    @ParameterizedTest
    @EnumSource(value = IoMethod.class, names = {"CHANNEL", "NATIVE"})
    void socketsBindInsideTheRangeAndCarryData(IoMethod io) throws Exception {
        int first = freeRangeStart(20);
        UdpDriverConfig config = Loopback.config(io).withPorts(first, first + 19);
        try (UdpDriver a = Loopback.driver(1, config); UdpDriver b = Loopback.driver(2, config);
             Arena arena = Arena.ofConfined()) {
            for (InetSocketAddress s : a.localAddresses()) {
                assertThat(s.getPort()).isBetween(first, first + 19);
            }
            for (InetSocketAddress s : b.localAddresses()) {
                assertThat(s.getPort()).isBetween(first, first + 19);
            }
            long peer = Loopback.introduce(a, b);
            Endpoint ea = a.endpoint();
            MemorySegment src = arena.allocate(1 << 20);
            src.fill((byte) 7);
            MemorySegment dst = arena.allocate(1 << 20);
            int key = b.endpoint().registerRegion(dst, true);
            int conn = ea.connect(System.nanoTime(), peer);
            Loopback.writeAndAwait(a, b, conn, key, src);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = IoMethod.class, names = {"CHANNEL", "NATIVE"})
    void aFullRangeIsAClearError(IoMethod io) throws Exception {
        int first = freeRangeStart(3);
        UdpDriverConfig config = Loopback.config(io).withPorts(first, first + 2);   // 3 ports for 8 paths
        assertThatThrownBy(() -> Loopback.driver(1, config).close()).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(first + "-" + (first + 2));
    }

    @ParameterizedTest
    @EnumSource(value = IoMethod.class, names = {"CHANNEL"})
    void badRangesAreRefused(IoMethod io) {
        assertThatThrownBy(() -> Loopback.config(io).withPorts(5, 4)).hasMessageContaining("5-4");
        assertThatThrownBy(() -> Loopback.config(io).withPorts(0, 4)).hasMessageContaining("0-4");
        assertThatThrownBy(() -> Loopback.config(io).withPorts(1, 70000)).hasMessageContaining("1-70000");
    }
}
