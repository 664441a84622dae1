package io.jccl.metaroce.udp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The raw UDP reference of {@code jccl bench transport --driver udp}: flow-controlled, so it loses nothing. */
class RawUdpBlastTest {
    /** Long enough that only a hang, never a slow receiver on a loaded machine, counts datagrams as lost. */
    private static final long QUIET_NS = 30_000_000_000L;

    @Test
    void theWindowIsHalfTheReceiveBufferAtLeastOneSendBatch() {
        assertThat(RawUdpBlast.windowDatagrams(8 << 20, 4096 - RawUdpBlast.BOOKED_OVERHEAD_BYTES, 64))
                .isEqualTo(1024);
        assertThat(RawUdpBlast.windowDatagrams(64 << 10, 65000, 64)).as("a small buffer: one batch").isEqualTo(64);
    }

    @Test
    void everyDatagramArrivesThroughNativeIo() {
        assumeTrue(DatagramIo.nativeUnavailableReason(Loopback.config(IoMethod.NATIVE)) == null,
                () -> "native I/O: " + DatagramIo.nativeUnavailableReason(Loopback.config(IoMethod.NATIVE)));
        blastLosesNothing(IoMethod.NATIVE);
    }

    @Test
    void everyDatagramArrivesThroughChannels() {
        blastLosesNothing(IoMethod.CHANNEL);
    }

    private static void blastLosesNothing(IoMethod io) {
        long datagrams = 20_000;
        RawUdpBlast.Result r = RawUdpBlast.run(Loopback.config(io), 4096, datagrams, QUIET_NS);
        assertThat(r.method()).isEqualTo(io);
        assertThat(r.datagramsSent()).isEqualTo(datagrams);
        assertThat(r.datagramsReceived()).as("flow control keeps the receive buffer from overflowing")
                .isEqualTo(datagrams);
        assertThat(r.deliveredShare()).isEqualTo(1.0);
        assertThat(r.windowDatagrams()).isGreaterThanOrEqualTo(UdpDriverConfig.DEFAULT_SEND_BATCH);
        assertThat(r.elapsedNs()).isPositive();
    }
}
