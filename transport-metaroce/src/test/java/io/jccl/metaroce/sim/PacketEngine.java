package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Engine;
import io.jccl.metaroce.protocol.TransmitSink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.Arrays;
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

    // Plan, sorted by time by the caller (plan in time order).
    private long[] planAt = new long[16];
    private long[] planDst = new long[16];
    private int[] planPath = new int[16];
    private int[] planLen = new int[16];
    private int[] planReroute = new int[16]; // -1: a datagram; else reroute to this generation
    private int planned;
    private int next;
    private int seq;

    // Arrivals.
    long[] arrivalNs = new long[16];
    int[] arrivalSeq = new int[16];
    long[] arrivalSentNs = new long[16];
    int[] arrivalPath = new int[16];
    long[] arrivalSource = new long[16];
    boolean[] arrivalEcn = new boolean[16];
    boolean[] arrivalCorrupt = new boolean[16];
    int arrivals;

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
        if (planned == planAt.length) {
            int n = planned * 2;
            planAt = Arrays.copyOf(planAt, n);
            planDst = Arrays.copyOf(planDst, n);
            planPath = Arrays.copyOf(planPath, n);
            planLen = Arrays.copyOf(planLen, n);
            planReroute = Arrays.copyOf(planReroute, n);
        }
        if (planned > 0 && at < planAt[planned - 1]) {
            throw new IllegalArgumentException("plan in time order");
        }
        planAt[planned] = at;
        planDst[planned] = dst;
        planPath[planned] = path;
        planLen[planned] = len;
        planReroute[planned] = reroute;
        planned++;
    }

    @Override
    public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                 int length, boolean ecnMarked) {
        if (arrivals == arrivalNs.length) {
            int n = arrivals * 2;
            arrivalNs = Arrays.copyOf(arrivalNs, n);
            arrivalSeq = Arrays.copyOf(arrivalSeq, n);
            arrivalSentNs = Arrays.copyOf(arrivalSentNs, n);
            arrivalPath = Arrays.copyOf(arrivalPath, n);
            arrivalSource = Arrays.copyOf(arrivalSource, n);
            arrivalEcn = Arrays.copyOf(arrivalEcn, n);
            arrivalCorrupt = Arrays.copyOf(arrivalCorrupt, n);
        }
        byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        crc.reset();
        crc.update(copy, 0, length - 4);
        int i = arrivals++;
        arrivalNs[i] = nowNs;
        arrivalSeq[i] = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
        arrivalSentNs[i] = buffer.getLong(offset + 4, ByteOrder.LITTLE_ENDIAN);
        arrivalPath[i] = pathIndex;
        arrivalSource[i] = source;
        arrivalEcn[i] = ecnMarked;
        arrivalCorrupt[i] = (int) crc.getValue() != buffer.getInt(offset + length - 4, ByteOrder.LITTLE_ENDIAN);
        return null;
    }

    @Override
    public void onTimeout(long nowNs) {
    }

    @Override
    public long nextTimeoutNs() {
        return next < planned ? planAt[next] : Long.MAX_VALUE;
    }

    @Override
    public int pollTransmit(long nowNs, TransmitSink sink) {
        int n = 0;
        while (next < planned && planAt[next] <= nowNs) {
            int k = next++;
            if (planReroute[k] >= 0) {
                sink.reroute(planDst[k], planPath[k], planReroute[k]);
                continue;
            }
            int len = planLen[k];
            tx.putInt(0, seq++, ByteOrder.LITTLE_ENDIAN);
            tx.putLong(4, planAt[k], ByteOrder.LITTLE_ENDIAN);
            for (int j = 12; j < len - 4; j++) {
                tx.putByte(j, (byte) (j * 31 + k));
            }
            crc.reset();
            crc.update(tx.byteArray(), 0, len - 4);
            tx.putInt(len - 4, (int) crc.getValue(), ByteOrder.LITTLE_ENDIAN);
            sink.transmit(planDst[k], planPath[k], tx, 0, len);
            n++;
        }
        return n;
    }

    /** @return how many datagrams it sent */
    int sent() {
        return seq;
    }
}
