package io.jccl.metaroce.udp;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** One {@code ppoll} says which path sockets have something to read; a driver that heard nothing asks it first. */
class ReadySocketsTest {
    /** Only detects a hang: the kernel hands a loopback datagram over within microseconds. */
    private static final long LIMIT_NS = 30_000_000_000L;

    @BeforeAll
    static void nativeIoIsAvailable() {
        assumeTrue(NativeDatagramIo.unavailableReason() == null, () -> "native I/O: "
                + NativeDatagramIo.unavailableReason());
    }

    @Test
    void onlyTheSocketADatagramWentToIsReady() throws Exception {
        UdpDriverConfig config = Loopback.config(IoMethod.NATIVE);
        try (NativeDatagramIo tx = new NativeDatagramIo(config, new IoCounters());
             NativeDatagramIo a = new NativeDatagramIo(config, new IoCounters());
             NativeDatagramIo b = new NativeDatagramIo(config, new IoCounters());
             NativeDatagramIo c = new NativeDatagramIo(config, new IoCounters())) {
            DatagramIo[] paths = {a, b, c};
            ReadySockets ready = ReadySockets.open(paths);
            assertThat(ready).isNotNull();
            assertThat(ready.poll(paths)).as("nothing sent yet").isZero();
            tx.send(new AddressKeys().keyOf(b.localAddress()), new UnsafeBuffer(new byte[64]), 0, 64);
            tx.flush();
            long deadline = System.nanoTime() + LIMIT_NS;
            int n;
            while ((n = ready.poll(paths)) == 0) {
                assertThat(System.nanoTime()).as("the datagram never became readable").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(n).isEqualTo(1);
            assertThat(ready.ready(0)).isFalse();
            assertThat(ready.ready(1)).isTrue();
            assertThat(ready.ready(2)).isFalse();
            int[] got = new int[1];
            assertThat(b.receive(8, (source, buffer, offset, length, ecn) -> got[0] = length)).isEqualTo(1);
            assertThat(got[0]).isEqualTo(64);
            assertThat(ready.poll(paths)).as("read: nothing left").isZero();
        }
    }

    @Test
    void channelSocketsHaveNoPoller() throws Exception {
        UdpDriverConfig config = Loopback.config(IoMethod.CHANNEL);
        try (DatagramIo channel = DatagramIo.open(IoMethod.CHANNEL, config, new AddressKeys(), new IoCounters())) {
            assertThat(ReadySockets.open(new DatagramIo[] {channel})).isNull();
        }
    }
}
