package io.jccl.metaroce.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The native path socket on its own: GSO runs cut back into the same datagrams, ECN bits read, addresses as keys. */
@Tag("integration")
class NativeDatagramIoTest {
    record Got(long source, byte[] bytes, int ecn) {
    }

    @BeforeAll
    static void nativeIoIsAvailable() {
        assumeTrue(NativeDatagramIo.unavailableReason() == null, () -> "native I/O: "
                + NativeDatagramIo.unavailableReason());
    }

    private static UdpDriverConfig config() {
        return Loopback.config(IoMethod.NATIVE);
    }

    private static byte[] datagram(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    /** Reads until {@code count} datagrams came (or a generous number of empty polls passed). */
    private static List<Got> receive(DatagramIo rx, int count) {
        List<Got> got = new ArrayList<>();
        for (int polls = 0; got.size() < count && polls < 1_000_000; polls++) {
            rx.receive(64, (source, buffer, offset, length, ecn) -> {
                byte[] b = new byte[length];
                buffer.getBytes(offset, b);
                got.add(new Got(source, b, ecn));
            });
        }
        return got;
    }

    @Test
    void equalSizedRunsGoAsGsoMessagesAndArriveAsTheSameDatagrams() throws Exception {
        IoCounters txCounters = new IoCounters();
        IoCounters rxCounters = new IoCounters();
        try (NativeDatagramIo tx = new NativeDatagramIo(config(), txCounters);
             NativeDatagramIo rx = new NativeDatagramIo(config(), rxCounters)) {
            long to = new AddressKeys().keyOf(rx.localAddress());
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                sent.add(datagram(1000, i));   // one run of 10, ended by a shorter datagram
            }
            sent.add(datagram(500, 10));
            for (int i = 0; i < 3; i++) {
                sent.add(datagram(700, 11 + i));   // a second run
            }
            sent.add(datagram(900, 14));   // a longer one: alone
            for (byte[] b : sent) {
                tx.send(to, new UnsafeBuffer(b), 0, b.length);
            }
            tx.flush();
            List<Got> got = receive(rx, sent.size());
            assertThat(got).hasSize(sent.size());
            for (int i = 0; i < sent.size(); i++) {
                assertThat(got.get(i).bytes()).as("datagram %d", i).isEqualTo(sent.get(i));
                assertThat(got.get(i).source()).isEqualTo(new AddressKeys().keyOf(tx.localAddress()));
                assertThat(got.get(i).ecn()).as("sent ECT(0)").isEqualTo(DatagramIo.ECT_0);
            }
            assertThat(txCounters.datagramsSent).isEqualTo(sent.size());
            assertThat(txCounters.sendCalls).as("one sendmmsg").isEqualTo(1);
            if (tx.gsoActive()) {
                assertThat(txCounters.gsoSegmentsSent).isEqualTo(14);
                if (rx.groActive()) {
                    assertThat(rxCounters.groSegmentsReceived).as("loopback hands GSO messages on whole").isEqualTo(14);
                }
            } else {
                assertThat(txCounters.gsoSegmentsSent).isZero();
            }
        }
    }

    /**
     * Gathered datagrams (header and trailer in the batch, the payload in other memory) mixed with whole ones, in GSO
     * runs and alone, with and without GSO: each arrives as the bytes it stood for, in order.
     */
    @Test
    void gatheredDatagramsArriveAsTheirPiecesInOrder() throws Exception {
        for (boolean gso : new boolean[] {true, false}) {
            IoCounters txCounters = new IoCounters();
            try (NativeDatagramIo tx = new NativeDatagramIo(config().withGso(gso), txCounters);
                 NativeDatagramIo rx = new NativeDatagramIo(config(), new IoCounters());
                 java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                assertThat(tx.gathers()).isTrue();
                long to = new AddressKeys().keyOf(rx.localAddress());
                java.lang.foreign.MemorySegment payloads = arena.allocate(64 * 1024);
                for (long i = 0; i < payloads.byteSize(); i++) {
                    payloads.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
                }
                List<byte[]> sent = new ArrayList<>();
                int header = 20;
                int trailer = 8;
                for (int i = 0; i < 12; i++) {
                    // Equal lengths make a GSO run; the fifth is whole (and as long), the last ones shorter.
                    int payload = i < 10 ? 1000 : 400 + i;
                    byte[] whole = datagram(header + payload + trailer, i);
                    if (i == 4) {
                        tx.send(to, new UnsafeBuffer(whole), 0, whole.length);
                    } else {
                        long at = i * 3000L;
                        java.lang.foreign.MemorySegment.copy(whole, header, payloads,
                                java.lang.foreign.ValueLayout.JAVA_BYTE, at, payload);
                        int claim = tx.claim(to, header + trailer);
                        tx.sendBuffer().putBytes(claim, whole, 0, header);
                        tx.sendBuffer().putBytes(claim + header, whole, header + payload, trailer);
                        tx.commitGather(header, payloads.address() + at, payload, trailer);
                    }
                    sent.add(whole);
                }
                tx.flush();
                List<Got> got = receive(rx, sent.size());
                assertThat(got).hasSize(sent.size());
                for (int i = 0; i < sent.size(); i++) {
                    assertThat(got.get(i).bytes()).as("datagram %d, gso %s", i, gso).isEqualTo(sent.get(i));
                }
                assertThat(txCounters.datagramsSent).isEqualTo(sent.size());
                // One run: the ten of equal length and the shorter one that ends it.
                assertThat(txCounters.gsoSegmentsSent).isEqualTo(tx.gsoActive() ? 11 : 0);
            }
        }
    }

    @Test
    void aGatherLongerThanItsClaimOrAnyDatagramIsRefused() throws Exception {
        try (NativeDatagramIo tx = new NativeDatagramIo(config(), new IoCounters())) {
            long to = new AddressKeys().keyOf(tx.localAddress());
            tx.claim(to, 30);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> tx.commitGather(20, 0, 100, 20))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("claim of 30");
            tx.claim(to, 30);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> tx.commitGather(20, 0, 65_500, 8))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void withoutGroTheKernelCutsGsoMessagesAndWithoutGsoEachDatagramGoesAlone() throws Exception {
        IoCounters txCounters = new IoCounters();
        IoCounters rxCounters = new IoCounters();
        try (NativeDatagramIo tx = new NativeDatagramIo(config().withGso(false), txCounters);
             NativeDatagramIo gsoTx = new NativeDatagramIo(config(), txCounters);
             NativeDatagramIo rx = new NativeDatagramIo(config().withGro(false), rxCounters)) {
            assertThat(tx.gsoActive()).isFalse();
            assertThat(rx.groActive()).isFalse();
            long to = new AddressKeys().keyOf(rx.localAddress());
            for (NativeDatagramIo sender : List.of(tx, gsoTx)) {
                for (int i = 0; i < 8; i++) {
                    byte[] b = datagram(1200, i);
                    sender.send(to, new UnsafeBuffer(b), 0, b.length);
                }
                sender.flush();
            }
            List<Got> got = receive(rx, 16);
            assertThat(got).hasSize(16);
            for (int i = 0; i < 16; i++) {
                assertThat(got.get(i).bytes()).isEqualTo(datagram(1200, i % 8));
            }
            assertThat(txCounters.gsoSegmentsSent).isEqualTo(gsoTx.gsoActive() ? 8 : 0);
            assertThat(rxCounters.groSegmentsReceived).isZero();
            assertThat(rxCounters.receiveCalls).as("recvmmsg reads batches").isLessThan(16);
        }
    }

    @Test
    void theEcnBitsOfWhatArrivesAreRead() throws Exception {
        IoCounters counters = new IoCounters();
        try (NativeDatagramIo rx = new NativeDatagramIo(config(), counters);
             DatagramChannel marked = DatagramChannel.open(StandardProtocolFamily.INET);
             DatagramChannel plain = DatagramChannel.open(StandardProtocolFamily.INET)) {
            marked.setOption(StandardSocketOptions.IP_TOS, 0x03);   // CE, as a congested switch would mark it
            marked.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            plain.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            marked.send(ByteBuffer.wrap(datagram(100, 1)), rx.localAddress());
            plain.send(ByteBuffer.wrap(datagram(100, 2)), rx.localAddress());
            List<Got> got = receive(rx, 2);
            assertThat(got).extracting(Got::ecn).containsExactly(DatagramIo.ECN_CE, DatagramIo.NOT_ECT);
            assertThat(got.get(0).source()).isEqualTo(new AddressKeys().keyOf(
                    (InetSocketAddress) marked.getLocalAddress()));
        }
    }

    @Test
    void aRebindMovesToANewPortAndKeepsWorking() throws Exception {
        IoCounters counters = new IoCounters();
        try (NativeDatagramIo tx = new NativeDatagramIo(config(), counters);
             NativeDatagramIo rx = new NativeDatagramIo(config(), counters)) {
            InetSocketAddress before = tx.localAddress();
            tx.rebind();
            assertThat(tx.localAddress()).isNotEqualTo(before);
            byte[] b = datagram(300, 3);
            tx.send(new AddressKeys().keyOf(rx.localAddress()), new UnsafeBuffer(b), 0, b.length);
            tx.flush();
            List<Got> got = receive(rx, 1);
            assertThat(got).singleElement().satisfies(g -> {
                assertThat(g.bytes()).isEqualTo(b);
                assertThat(g.source()).isEqualTo(new AddressKeys().keyOf(tx.localAddress()));
            });
        }
    }
}
