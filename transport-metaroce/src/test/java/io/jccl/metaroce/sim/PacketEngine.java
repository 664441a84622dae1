package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Engine;
import io.jccl.metaroce.protocol.TransmitSink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * A scripted engine for fabric tests: sends planned datagrams at planned times and records what arrives. A datagram
 * carries its sequence number (bytes 0-3), its send time (4-11), filler, and a CRC32 (last 4 bytes), so corruption
 * is detectable.
 */
final class PacketEngine implements Engine {
    private final long id;
    private final UnsafeBuffer tx = new UnsafeBuffer(new byte[65536]);
    private final CRC32 crc = new CRC32();

    /**
     * A planned datagram, or a reroute.
     *
     * @param at      when
     * @param dst     to which node
     * @param path    on which path
     * @param len     its length in bytes
     * @param reroute -1: a datagram; else reroute the path to this generation
     */
    private record Planned(long at, long dst, int path, int len, int reroute) {
    }

    /**
     * A datagram that arrived.
     *
     * @param ns      when it arrived
     * @param seq     its sequence number
     * @param sentNs  when it was sent (as planned)
     * @param path    the path it came on
     * @param source  the node that sent it
     * @param ecn     whether it was ECN-marked
     * @param corrupt whether its CRC was wrong
     */
    record Arrival(long ns, int seq, long sentNs, int path, long source, boolean ecn, boolean corrupt) {
    }

    // Plan, sorted by time by the caller (plan in time order).
    private final List<Planned> plan = new ArrayList<>();
    private int next;
    private int seq;

    private final List<Arrival> arrived = new ArrayList<>();

    PacketEngine(long id) {
        this.id = id;
    }

    long id() {
        return id;
    }

    /** Plans {@code count} datagrams of {@code length} bytes every {@code spacingNs} from {@code atNs}. */
    PacketEngine plan(long atNs, long dst, int path, int length, int count, long spacingNs) {
        for (int i = 0; i < count; i++) {
            add(atNs + i * spacingNs, dst, path, length, -1);
        }
        return this;
    }

    /** Plans a reroute of a path at a time. */
    PacketEngine reroute(long atNs, long dst, int path, int generation) {
        add(atNs, dst, path, 0, generation);
        return this;
    }

    private void add(long at, long dst, int path, int len, int reroute) {
        if (!plan.isEmpty() && at < plan.getLast().at()) {
            throw new IllegalArgumentException("plan in time order");
        }
        plan.add(new Planned(at, dst, path, len, reroute));
    }

    /** @return how many datagrams arrived */
    int arrivals() {
        return arrived.size();
    }

    /** @return the {@code i}-th datagram that arrived */
    Arrival arrival(int i) {
        return arrived.get(i);
    }

    /** @return the sequence numbers of what arrived, in arrival order */
    int[] seqs() {
        return arrived.stream().mapToInt(Arrival::seq).toArray();
    }

    /** @return the sources of what arrived, in arrival order */
    long[] sources() {
        return arrived.stream().mapToLong(Arrival::source).toArray();
    }

    @Override
    public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                 int length, boolean ecnMarked) {
        byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        crc.reset();
        crc.update(copy, 0, length - 4);
        arrived.add(new Arrival(nowNs, buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN),
                buffer.getLong(offset + 4, ByteOrder.LITTLE_ENDIAN), pathIndex, source, ecnMarked,
                (int) crc.getValue() != buffer.getInt(offset + length - 4, ByteOrder.LITTLE_ENDIAN)));
        return null;
    }

    @Override
    public void onTimeout(long nowNs) {
    }

    @Override
    public long nextTimeoutNs() {
        return next < plan.size() ? plan.get(next).at() : Long.MAX_VALUE;
    }

    @Override
    public int pollTransmit(long nowNs, TransmitSink sink) {
        int n = 0;
        while (next < plan.size() && plan.get(next).at() <= nowNs) {
            int k = next++;
            Planned p = plan.get(k);
            if (p.reroute() >= 0) {
                sink.reroute(p.dst(), p.path(), p.reroute());
                continue;
            }
            int len = p.len();
            tx.putInt(0, seq++, ByteOrder.LITTLE_ENDIAN);
            tx.putLong(4, p.at(), ByteOrder.LITTLE_ENDIAN);
            for (int j = 12; j < len - 4; j++) {
                tx.putByte(j, (byte) (j * 31 + k));
            }
            crc.reset();
            crc.update(tx.byteArray(), 0, len - 4);
            tx.putInt(len - 4, (int) crc.getValue(), ByteOrder.LITTLE_ENDIAN);
            sink.transmit(p.dst(), p.path(), tx, 0, len);
            n++;
        }
        return n;
    }

    /** @return how many datagrams it sent */
    int sent() {
        return seq;
    }
}
