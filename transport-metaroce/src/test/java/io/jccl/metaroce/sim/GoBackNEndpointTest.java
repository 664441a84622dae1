package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GoBackNEndpointTest {
    private static final VerbsFactory GBN = Protocols.goBackN(GoBackNConfig.defaults());

    private static TransferScenario.Builder scenario(long seed) {
        return TransferScenario.builder(seed).protocol(GBN);
    }

    private static long sum(ScenarioResult r, String metric) {
        long n = 0;
        for (String s : r.endpointSummaries()) {
            for (String line : s.split("\n")) {
                if (line.startsWith(metric + "=")) {
                    n += Long.parseLong(line.substring(metric.length() + 1));
                }
            }
        }
        return n;
    }

    @Test
    void transfersWithoutLossAtNearlyLineRate() {
        ScenarioResult r = scenario(1).write(0, 1, 4 << 20).build().run();
        assertThat(r.retransmits()).isZero();
        // 4096 payload bytes in 4096 + 44 + 66 wire bytes at 12.5 GB/s, less the start-up round trip.
        assertThat(r.goodputBytesPerSecond()).isBetween(11.0e9, 12.5e9 * 4096 / 4206);
    }

    @Test
    void transfersAtOnePercentLossByGoingBack() {
        ScenarioResult r = scenario(2).impairments(Impairments.NONE.withLossRate(0.01)).write(0, 1, 2 << 20)
                .write(0, 1, 12_345).build().run();
        assertThat(r.fabric(FabricCounter.DROPPED_RANDOM_LOSS)).isPositive();
        // Each loss costs about a window of retransmissions.
        assertThat(r.retransmits()).isGreaterThan(r.fabric(FabricCounter.DROPPED_RANDOM_LOSS) * 10);
        assertThat(sum(r, "metaroce.packets.received.duplicate") + sum(r, "metaroce.retransmits.sack")).isPositive();
    }

    @Test
    void corruptedPacketsFailTheCrcAndAreResent() {
        ScenarioResult r = scenario(3).impairments(Impairments.NONE.withCorruptRate(0.02)).write(0, 1, 1 << 20)
                .send(1, 0, 4, 50_000).build().run();
        assertThat(r.fabric(FabricCounter.CORRUPTED)).isPositive();
        assertThat(sum(r, DropReason.BAD_CRC.metricName())).isEqualTo(r.fabric(FabricCounter.CORRUPTED));
    }

    @Test
    void duplicatesReorderingJitterAndBurstsAreSurvived() {
        for (long seed = 10; seed < 16; seed++) {
            scenario(seed).nodes(3).impairments(Impairments.NONE.withDuplicateRate(0.02)
                            .withReorder(0.02, 10, 100_000).withJitterNs(500).withBurstLoss(0.002, 0.3, 0.8))
                    .randomWork(20, 40_000, 3).build().run();
        }
    }

    @Test
    void lateReceivesGetReceiverNotReadyAndAreRetried() {
        ScenarioResult r = scenario(4).send(0, 1, 1, 10_000, 0, 300_000).send(0, 1, 1, 20_000, 0, 0)
                .send(0, 1, 2, 1, 0, 0).build().run();
        assertThat(sum(r, Counter.RNR_SENT.metricName())).isPositive();
        assertThat(sum(r, Counter.RNR_RECEIVED.metricName())).isPositive();
        assertThat(r.completionNs()[0]).isGreaterThan(300_000);
    }

    @Test
    void zeroAndOneByteMessagesAndBothDirections() {
        scenario(5).write(0, 1, 0).write(1, 0, 1).send(0, 1, 0, 0).send(1, 0, 0, 1).send(0, 1, 0, 4096)
                .send(0, 1, 0, 4097).build().run();
    }

    @Test
    void manySendersIntoOneReceiver() {
        ScenarioResult r = scenario(6).nodes(9).write(1, 0, 300_000).write(2, 0, 300_000).write(3, 0, 300_000)
                .write(4, 0, 300_000).write(5, 0, 300_000).write(6, 0, 300_000).write(7, 0, 300_000)
                .write(8, 0, 300_000).build().run();
        // Eight windows of 64 packets overflow the receiver's 1 MiB port.
        assertThat(r.fabric(FabricCounter.DROPPED_QUEUE_FULL)).isPositive();
        assertThat(r.fabric(FabricCounter.ECN_MARKED)).isPositive();
    }

    @Test
    void handshakeSurvivesLossOfItsPackets() {
        scenario(7).impairments(Impairments.NONE.withLossRate(0.3)).write(0, 1, 20_000).build().run();
    }

    private static byte[] control(int type, int psn) {
        byte[] p = new byte[12];
        UnsafeBuffer b = new UnsafeBuffer(p);
        b.putShort(0, (short) 0x4E47, ByteOrder.LITTLE_ENDIAN);
        b.putByte(2, (byte) type);
        b.putInt(4, psn, ByteOrder.LITTLE_ENDIAN);
        return withCrc(p);
    }

    private static byte[] lastData(int psn, int regionKey) {
        byte[] data = new byte[44 + 8];
        UnsafeBuffer d = new UnsafeBuffer(data);
        d.putShort(0, (short) 0x4E47, ByteOrder.LITTLE_ENDIAN);
        d.putByte(2, (byte) 1);
        d.putByte(3, (byte) 3);
        d.putInt(4, psn, ByteOrder.LITTLE_ENDIAN);
        d.putInt(8, regionKey, ByteOrder.LITTLE_ENDIAN);
        d.putInt(12, 8, ByteOrder.LITTLE_ENDIAN);
        d.putLong(24, 8, ByteOrder.LITTLE_ENDIAN);
        return withCrc(data);
    }

    private static final GoBackNConfig WITH_DCQCN = GoBackNConfig.defaults().withWindowPackets(1024)
            .withDcqcn(DcqcnConfig.paper(100_000_000_000L));

    /** DCQCN's notification point: ECN-marked data is answered by a CNP, at most one per connection per 50 µs. */
    @Test
    void markedDataIsAnsweredByOneCnpPerInterval() {
        GoBackNEndpoint e = new GoBackNEndpoint(EndpointConfig.defaults(new byte[16]), WITH_DCQCN, 2);
        int key = e.registerRegion(MemorySegment.ofArray(new byte[64]), true);
        e.onDatagram(0, 1, 0, new UnsafeBuffer(control(5, 0)), 0, 12, false);   // HELLO from node 1
        Capture c = new Capture();
        e.pollTransmit(0, c);
        List<Integer> types = new ArrayList<>();
        for (int psn = 0; psn < 3; psn++) {
            long at = new long[] {1_000, 20_000, 52_000}[psn];
            e.onDatagram(at, 1, 0, new UnsafeBuffer(lastData(psn, key)), 0, 52, true);
            c.packets.clear();
            e.pollTransmit(at, c);
            c.packets.forEach(p -> types.add((int) p[2]));
        }
        // ACK and CNP; only an ACK 19 µs later; ACK and CNP again 51 µs after the first CNP.
        assertThat(types).containsExactlyInAnyOrder(2, 8, 2, 2, 8);
        assertThat(e.counters().get(Counter.ECN_MARKS_RECEIVED)).isEqualTo(3);
    }

    /** DCQCN's reaction point: a CNP halves the connection's rate, so half as many packets leave in the same time. */
    @Test
    void aCnpHalvesTheSendersRate() {
        int[] sent = new int[2];
        for (int cnp = 0; cnp < 2; cnp++) {
            GoBackNEndpoint s = new GoBackNEndpoint(EndpointConfig.defaults(new byte[16]), WITH_DCQCN, 1);
            int conn = s.connect(0, 2);
            Capture c = new Capture();
            s.pollTransmit(0, c);   // HELLO
            s.onDatagram(0, 2, 0, new UnsafeBuffer(control(6, 0)), 0, 12, false);   // HELLO_ACK
            s.postWrite(conn, 1, 0, MemorySegment.ofArray(new byte[8 << 20]), 0, 8 << 20);
            if (cnp == 1) {
                s.onDatagram(0, 2, 0, new UnsafeBuffer(control(8, 0)), 0, 12, false);
                assertThat(s.counters().get(Counter.ECN_WINDOW_CUTS)).isEqualTo(1);
            }
            c.packets.clear();
            for (long t = 0; t < 40_000; t += 100) {   // 40 µs: before DCQCN's first increase (55 µs)
                s.pollTransmit(t, c);
            }
            sent[cnp] = c.packets.size();
        }
        // 100 Gbit/s and 4,206 wire bytes: a packet per 336 ns, about 119 in 40 µs; at half the rate about 60.
        assertThat(sent[0]).isBetween(118, 123);
        assertThat(sent[1]).isBetween(59, 63);
    }

    /** Captures transmitted datagrams. */
    private static final class Capture implements TransmitSink {
        final List<byte[]> packets = new ArrayList<>();

        @Override
        public void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length) {
            byte[] b = new byte[length];
            buffer.getBytes(offset, b);
            packets.add(b);
        }
    }

    private static byte[] withCrc(byte[] p) {
        CRC32C c = new CRC32C();
        c.update(p, 0, p.length - 4);
        new UnsafeBuffer(p).putInt(p.length - 4, (int) c.getValue(), ByteOrder.LITTLE_ENDIAN);
        return p;
    }

    @Test
    void malformedDatagramsAreDroppedAndCounted() {
        GoBackNEndpoint e = new GoBackNEndpoint(EndpointConfig.defaults(new byte[16]), GoBackNConfig.defaults(), 2);
        assertThat(e.onDatagram(0, 1, 0, new UnsafeBuffer(new byte[5]), 0, 5, false)).isEqualTo(DropReason.TRUNCATED);
        assertThat(e.counters().drops(DropReason.TRUNCATED)).isEqualTo(1);
        byte[] hello = new byte[12];
        new UnsafeBuffer(hello).putShort(0, (short) 0x4E47, ByteOrder.LITTLE_ENDIAN);
        hello[2] = 5;
        assertThat(e.onDatagram(0, 1, 0, new UnsafeBuffer(hello), 0, 12, false))   // CRC not set
                .isEqualTo(DropReason.BAD_CRC);
        assertThat(e.counters().drops(DropReason.BAD_CRC)).isEqualTo(1);
        byte[] bad = hello.clone();
        bad[0] = 1;
        assertThat(e.onDatagram(0, 1, 0, new UnsafeBuffer(withCrc(bad)), 0, 12, false)).isEqualTo(DropReason.BAD_MAGIC);
        assertThat(e.counters().drops(DropReason.BAD_MAGIC)).isEqualTo(1);
        byte[] type = hello.clone();
        type[2] = 99;
        assertThat(e.onDatagram(0, 1, 0, new UnsafeBuffer(withCrc(type)), 0, 12, false))
                .isEqualTo(DropReason.UNKNOWN_TYPE);
        assertThat(e.counters().drops(DropReason.UNKNOWN_TYPE)).isEqualTo(1);
        byte[] ack = hello.clone();
        ack[2] = 2;
        assertThat(e.onDatagram(0, 1, 0, new UnsafeBuffer(withCrc(ack)), 0, 12, false))
                .isEqualTo(DropReason.UNKNOWN_CONNECTION);
        assertThat(e.counters().drops(DropReason.UNKNOWN_CONNECTION)).isEqualTo(1);
        // A valid HELLO opens a passive connection and is answered: taken, so null.
        assertThat(e.onDatagram(0, 1, 0, new UnsafeBuffer(withCrc(hello)), 0, 12, false)).isNull();
        assertThat(e.connectionTo(1)).isZero();
        assertThat(e.isEstablished(0)).isTrue();
        Capture c = new Capture();
        assertThat(e.pollTransmit(0, c)).isEqualTo(1);
        assertThat(c.packets.getFirst()[2]).isEqualTo((byte) 6);
        // A WRITE into an unknown region key is dropped, not placed.
        byte[] data = new byte[44 + 8];
        UnsafeBuffer d = new UnsafeBuffer(data);
        d.putShort(0, (short) 0x4E47, ByteOrder.LITTLE_ENDIAN);
        d.putByte(2, (byte) 1);
        d.putByte(3, (byte) 3);
        d.putInt(8, 77, ByteOrder.LITTLE_ENDIAN);
        d.putInt(12, 8, ByteOrder.LITTLE_ENDIAN);
        d.putLong(24, 8, ByteOrder.LITTLE_ENDIAN);
        e.onDatagram(0, 1, 0, new UnsafeBuffer(withCrc(data)), 0, data.length, false);
        assertThat(e.counters().drops(DropReason.BAD_REGION_KEY)).isEqualTo(1);
        // Into a region, but past its end.
        int key = e.registerRegion(MemorySegment.ofArray(new byte[16]), true);
        d.putInt(8, key, ByteOrder.LITTLE_ENDIAN);
        d.putLong(32, 12, ByteOrder.LITTLE_ENDIAN);
        e.onDatagram(0, 1, 0, new UnsafeBuffer(withCrc(data)), 0, data.length, false);
        assertThat(e.counters().drops(DropReason.REGION_BOUNDS)).isEqualTo(1);
        assertThat(e.counters().get(Counter.PAYLOAD_BYTES_PLACED)).isZero();
    }

    @Test
    void closeCompletesPendingWorkAndTellsThePeer() {
        EndpointConfig cfg = EndpointConfig.defaults(new byte[16]);
        GoBackNEndpoint a = new GoBackNEndpoint(cfg, GoBackNConfig.defaults(), 1);
        GoBackNEndpoint b = new GoBackNEndpoint(cfg, GoBackNConfig.defaults(), 2);
        Simulator sim = new Simulator(FabricConfig.datacenter(), 1);
        sim.addNode(1, a);
        sim.addNode(2, b);
        int conn = a.connect(0, 2);
        sim.wake(1);
        sim.run(() -> b.connectionTo(1) >= 0 && a.isEstablished(conn), 1000, Long.MAX_VALUE);
        MemorySegment buf = MemorySegment.ofArray(new byte[100]);
        long recv = b.postRecv(b.connectionTo(1), 0, buf, 0, 100);
        long send = a.postSend(conn, 3, buf, 0, 100); // stream 3: nobody is receiving, RNR for ever
        sim.wake(1);
        sim.run(null, 200, 100_000);
        List<String> done = new ArrayList<>();
        a.close(sim.nowNs(), conn);
        sim.wake(1);
        sim.run(null, 1000, Long.MAX_VALUE);
        a.pollCompletions((c, w, k, s, n) -> done.add("a " + w + " " + k + " " + s));
        b.pollCompletions((c, w, k, s, n) -> done.add("b " + w + " " + k + " " + s));
        assertThat(done).containsExactly("a " + send + " SEND CONNECTION_CLOSED",
                "b " + recv + " RECV CONNECTION_CLOSED");
        assertThat(a.isEstablished(conn)).isFalse();
        assertThat(b.isEstablished(b.connectionTo(1))).isFalse();
        assertThatThrownBy(() -> a.postSend(conn, 0, buf, 0, 1)).hasMessageContaining("closed");
    }

    @Test
    void queueFullAtTheWorkLimitAndArgumentChecks() {
        EndpointConfig cfg = new EndpointConfig(8, 4096, 32, 200_000, 50_000_000, 4, 20_000, 12.5e9, 2, 1_000_000,
                2, 10_000_000_000L, 2, 50_000, new byte[16]);
        Verbs a = new GoBackNEndpoint(cfg, GoBackNConfig.defaults(), 1);
        int conn = a.connect(0, 2);
        MemorySegment buf = MemorySegment.ofArray(new byte[10]);
        assertThat(a.postWrite(conn, 1, 0, buf, 0, 10)).isPositive();
        assertThat(a.postRecv(conn, 0, buf, 0, 10)).isPositive();
        assertThat(a.postSend(conn, 0, buf, 0, 10)).isEqualTo(Verbs.QUEUE_FULL);
        assertThatThrownBy(() -> a.postWrite(conn, 1, 0, buf, 5, 10)).hasMessageContaining("outside");
        assertThatThrownBy(() -> a.postWrite(7, 1, 0, buf, 0, 1)).hasMessageContaining("no connection 7");
        assertThatThrownBy(() -> GoBackNConfig.defaults().withWindowPackets(0)).hasMessageContaining("windowPackets");
        assertThatThrownBy(() -> GoBackNConfig.defaults().withLineRate(-1, 0)).hasMessageContaining("lineRate");
        assertThat(a.connectionTo(3)).isEqualTo(-1);
        assertThat(WorkKind.values()).hasSize(4);
        assertThatThrownBy(() -> a.postWriteImmediate(conn, 1, 0, buf, 0, 10, 7))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("no WRITE with immediate");
        assertThat(CompletionStatus.OK).isNotNull();
    }
}
