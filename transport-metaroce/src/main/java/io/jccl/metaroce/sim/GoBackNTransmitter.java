package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.TransmitSink;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The transmit engine of a {@link GoBackNEndpoint}, as a NIC's: builds each packet (see the endpoint's packet format)
 * in one reused buffer when it goes, and paces the wire at the line rate and each connection at its DCQCN rate. Which
 * packet goes next is the endpoint's choice.
 */
final class GoBackNTransmitter {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final GoBackNConfig gbn;
    private final int payloadBytes;
    private final Counters counters;
    private final CRC32C crc = new CRC32C();
    private final byte[] txBytes;
    private final UnsafeBuffer tx;
    private final MemorySegment txSegment;
    /** Pacing: femtoseconds per wire byte (0: unpaced) and when the wire is next free, in femtoseconds. */
    private final long femtosPerByte;
    private long wireFreeFs;

    GoBackNTransmitter(GoBackNConfig gbn, int payloadBytes, Counters counters) {
        this.gbn = gbn;
        this.payloadBytes = payloadBytes;
        this.counters = counters;
        femtosPerByte = gbn.lineRateBitsPerSecond() == 0 ? 0
                : Math.max(1, Math.round(8e15 / gbn.lineRateBitsPerSecond()));
        txBytes = new byte[GoBackNEndpoint.DATA_HEADER_BYTES + payloadBytes + GoBackNEndpoint.CRC_BYTES];
        tx = new UnsafeBuffer(txBytes);
        txSegment = MemorySegment.ofArray(txBytes);
    }

    /** @return the largest datagram it sends */
    int maxDatagramBytes() {
        return txBytes.length;
    }

    /** @return whether the wire is paced at a line rate */
    boolean paced() {
        return femtosPerByte != 0;
    }

    /** @return when the wire is next free, in femtoseconds */
    long wireFreeFs() {
        return wireFreeFs;
    }

    boolean wireAllows(long nowNs) {
        return femtosPerByte == 0 || wireFreeFs <= (nowNs + gbn.burstNs()) * 1_000_000L;
    }

    /** Sends a control packet of {@code type} carrying {@code psn}; @return 1, the packets sent */
    int control(TransmitSink sink, GoBackNConnection c, int type, int psn) {
        tx.putShort(0, (short) GoBackNEndpoint.MAGIC, LE);
        tx.putByte(2, (byte) type);
        tx.putByte(3, (byte) 0);
        tx.putInt(4, psn, LE);
        crc.reset();
        crc.update(txBytes, 0, 8);
        tx.putInt(8, (int) crc.getValue(), LE);
        counters.increment(type == GoBackNEndpoint.T_ACK ? Counter.ACK_PACKETS_SENT : Counter.CONTROL_PACKETS_SENT);
        sink.transmit(c.peer, 0, tx, 0, GoBackNEndpoint.CONTROL_BYTES);
        return 1;
    }

    /** Sends the DATA packet of PSN {@code c.nxt} and moves the connection's send state past it. */
    void sendData(TransmitSink sink, GoBackNConnection c, long nowNs) {
        GoBackNConnection.Work w = c.work(c.cursor);
        long index = c.nxt - w.firstPsn;
        long messageOffset = index * payloadBytes;
        int payload = (int) Math.min(payloadBytes, w.length - messageOffset);
        int flags = (w.send ? GoBackNEndpoint.F_SEND : 0) | (index == 0 ? GoBackNEndpoint.F_FIRST : 0)
                | (index == w.packets - 1 ? GoBackNEndpoint.F_LAST : 0);
        tx.putShort(0, (short) GoBackNEndpoint.MAGIC, LE);
        tx.putByte(2, (byte) GoBackNEndpoint.T_DATA);
        tx.putByte(3, (byte) flags);
        tx.putInt(4, (int) c.nxt, LE);
        tx.putInt(8, w.target, LE);
        tx.putInt(12, payload, LE);
        tx.putLong(16, messageOffset, LE);
        tx.putLong(24, w.length, LE);
        tx.putLong(32, w.remoteBase, LE);
        if (payload > 0) {
            MemorySegment.copy(w.local, w.offset + messageOffset, txSegment, GoBackNEndpoint.DATA_HEADER_BYTES,
                    payload);
        }
        int len = GoBackNEndpoint.DATA_HEADER_BYTES + payload;
        crc.reset();
        crc.update(txBytes, 0, len);
        tx.putInt(len, (int) crc.getValue(), LE);
        counters.increment(Counter.DATA_PACKETS_SENT);
        counters.add(Counter.PAYLOAD_BYTES_SENT, payload);
        if (c.nxt < c.highestSent) {
            counters.increment(c.retransmitReason);
        } else {
            c.highestSent = c.nxt + 1;
        }
        if (c.rtoDeadlineNs == Long.MAX_VALUE) {
            c.rtoDeadlineNs = nowNs + gbn.rtoNs();
        }
        c.nxt++;
        if (index == w.packets - 1) {
            c.cursor++;
        }
        long wireBytes = len + GoBackNEndpoint.CRC_BYTES + (long) gbn.wireOverheadBytes();
        if (femtosPerByte != 0) {
            wireFreeFs = Math.max(wireFreeFs, nowNs * 1_000_000L) + wireBytes * femtosPerByte;
        }
        if (c.rate != null) {
            if (c.rate.limited()) {
                c.nextSendFs = Math.max(c.nextSendFs, nowNs * 1_000_000L)
                        + Math.round(wireBytes * 8e15 / c.rate.rateBitsPerSecond());
                c.rate.onSent(wireBytes);
            } else {
                c.nextSendFs = nowNs * 1_000_000L;
            }
        }
        sink.transmit(c.peer, 0, tx, 0, len + GoBackNEndpoint.CRC_BYTES);
    }
}
