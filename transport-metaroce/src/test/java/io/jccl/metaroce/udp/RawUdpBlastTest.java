package io.jccl.metaroce.udp;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The raw UDP reference of {@code jccl bench transport --driver udp}: flow-controlled, so it loses nothing. */
@Tag("integration")
class RawUdpBlastTest {
    /** Long enough that only a hang, never a slow receiver on a loaded machine, counts datagrams as lost. */
    private static final long QUIET_NS = 30_000_000_000L;

    @Test
    void theWindowIsHalfTheReceiveBufferAtLeastOneSendBatch() {
        assertThat(RawUdpBlast.windowDatagrams(8 << 20, 4096 - RawUdpBlast.BOOKED_OVERHEAD_BYTES, 64))
                .isEqualTo(1024);
        assertThat(RawUdpBlast.windowDatagrams(64 << 10, 65000, 64)).as("a small buffer: one batch").isEqualTo(64);
    }

    @ParameterizedTest
    @EnumSource(value = IoMethod.class, names = {"NATIVE", "CHANNEL"})
    void everyDatagramArrives(IoMethod io) {
        Loopback.assumeAvailable(io);
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

    /** 3,000 datagrams over a source of 1,000 payloads: each payload lands at its offset, the last round on top. */
    @ParameterizedTest
    @EnumSource(value = IoMethod.class, names = {"NATIVE", "CHANNEL"})
    void theCheckedBlastPlacesEveryPayload(IoMethod io) {
        Loopback.assumeAvailable(io);
        int payload = 1024;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment source = arena.allocate(1000L * payload, 64);
            for (long i = 0; i < source.byteSize(); i += 8) {
                source.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L + 1);
            }
            MemorySegment destination = arena.allocate(source.byteSize(), 64);
            RawUdpBlast.Result r = RawUdpBlast.runChecked(Loopback.config(io), 40, payload, 3_000, source, destination,
                    QUIET_NS);
            assertThat(r.method()).isEqualTo(io);
            assertThat(r.datagramsReceived()).as("every datagram arrived with its CRC right").isEqualTo(3_000);
            assertThat(destination.mismatch(source)).as("every payload in its place").isEqualTo(-1);
        }
    }

    @Test
    void theCheckedBlastRefusesShapesItCannotSend() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment source = arena.allocate(4096);
            MemorySegment destination = arena.allocate(4096);
            UdpDriverConfig config = Loopback.config(IoMethod.CHANNEL);
            assertThatThrownBy(() -> RawUdpBlast.runChecked(config, 4, 1024, 1, source, destination))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("headerBytes=4");
            assertThatThrownBy(() -> RawUdpBlast.runChecked(config, 40, 65500, 1, source, destination))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65507");
            assertThatThrownBy(() -> RawUdpBlast.runChecked(config, 40, 8192, 1, source, destination))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hold a payload");
            assertThatThrownBy(() -> RawUdpBlast.runChecked(config, 40, 1024, 1, source, arena.allocate(1024)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("destination");
            assertThatThrownBy(() -> RawUdpBlast.runChecked(config, 40, 1024, 1, MemorySegment.ofArray(new byte[4096]),
                    destination)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("off-heap");
        }
    }
}
