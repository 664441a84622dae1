package io.jccl.metaroce.net;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The small messages the {@code metaroce} transport sends as MetaRoCE SENDs to run its rendezvous protocol (the
 * data itself moves as one-sided WRITEs). All fields little-endian.
 *
 * <ul>
 * <li>HELLO, connector to listener on stream 0, 20 bytes: magic, version, listener id, channel, the connector's
 * rank.</li>
 * <li>CTS ("clear to send"), listener to connector on the channel's stream, 32 bytes: region key, flags
 * ({@link #CTS_CLOSED} when the receiving end closed), offset in the region, capacity, expected tag. One per
 * posted receive, in order: the n-th CTS describes the n-th receive.</li>
 * <li>FIN, connector to listener on the channel's stream, 24 bytes: status, reserved, size, tag. Sent once the
 * WRITE of the message completed (every byte placed and acknowledged), or instead of it when the receive does not
 * match; the n-th FIN completes the n-th receive, and the send completes once its FIN is acknowledged. {@link #FIN_CLOSED} (which completes no receive) says the
 * sending end closed. A message of at most {@link #INLINE_MAX_BYTES} travels inside its FIN instead of by a WRITE
 * (status {@link #FIN_INLINE}, the size bytes right after the 24): one message and one round trip instead of a WRITE,
 * its acknowledgement and then the FIN; the receiver copies them out of its FIN box. A receive of at most that
 * capacity therefore opens no region (its CTS names key -1). Such a FIN may leave before its CTS came (an eager
 * message, {@link MetaRoceSendConnection}); the receiver holds it until the receive is posted, and still sends
 * that receive's CTS.</li>
 * </ul>
 */
final class ControlMessages {
    static final int HELLO_BYTES = 20;
    static final int CTS_BYTES = 32;
    static final int FIN_BYTES = 24;
    /** Room for the largest control message but a FIN with its data. */
    static final int BOX_BYTES = 32;
    /** The longest message sent inside its FIN: a FIN with its data fits one 4 KiB payload. */
    static final int INLINE_MAX_BYTES = 4096 - FIN_BYTES;
    /** Room for a FIN with the most data it carries. */
    static final int FIN_BOX_BYTES = FIN_BYTES + INLINE_MAX_BYTES;

    static final int HELLO_MAGIC = 0x4A4D4848;
    /** 3: messages up to {@link #INLINE_MAX_BYTES} travel inside their FIN; 4: such a FIN may come before its CTS. */
    static final int VERSION = 4;

    static final int CTS_OPEN = 0;
    static final int CTS_CLOSED = 1;

    static final int FIN_OK = 0;
    static final int FIN_TAG_MISMATCH = 1;
    static final int FIN_TRUNCATED = 2;
    static final int FIN_CLOSED = 3;
    static final int FIN_INLINE = 4;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ControlMessages() {
    }

    /** The stream a channel's CTS and FIN messages use (each in its own direction); stream 0 carries HELLOs. */
    static int stream(int channel) {
        return channel + 1;
    }

    static void putHello(MemorySegment box, int listenerId, int channel, int rank) {
        box.set(INT, 0, HELLO_MAGIC);
        box.set(INT, 4, VERSION);
        box.set(INT, 8, listenerId);
        box.set(INT, 12, channel);
        box.set(INT, 16, rank);
    }

    static boolean isHello(MemorySegment box, long bytes) {
        return bytes == HELLO_BYTES && box.get(INT, 0) == HELLO_MAGIC && box.get(INT, 4) == VERSION
                && box.get(INT, 12) >= 0 && box.get(INT, 12) < Integer.MAX_VALUE - 1 && box.get(INT, 16) >= 0;
    }

    static int helloListener(MemorySegment box) {
        return box.get(INT, 8);
    }

    static int helloChannel(MemorySegment box) {
        return box.get(INT, 12);
    }

    static int helloRank(MemorySegment box) {
        return box.get(INT, 16);
    }

    static void putCts(MemorySegment box, int regionKey, int flags, long offset, long capacity, long tag) {
        box.set(INT, 0, regionKey);
        box.set(INT, 4, flags);
        box.set(LONG, 8, offset);
        box.set(LONG, 16, capacity);
        box.set(LONG, 24, tag);
    }

    static int ctsRegionKey(MemorySegment box) {
        return box.get(INT, 0);
    }

    static int ctsFlags(MemorySegment box) {
        return box.get(INT, 4);
    }

    static long ctsOffset(MemorySegment box) {
        return box.get(LONG, 8);
    }

    static long ctsCapacity(MemorySegment box) {
        return box.get(LONG, 16);
    }

    static long ctsTag(MemorySegment box) {
        return box.get(LONG, 24);
    }

    static void putFin(MemorySegment box, int status, long size, long tag) {
        box.set(INT, 0, status);
        box.set(INT, 4, 0);
        box.set(LONG, 8, size);
        box.set(LONG, 16, tag);
    }

    static int finStatus(MemorySegment box) {
        return box.get(INT, 0);
    }

    static long finSize(MemorySegment box) {
        return box.get(LONG, 8);
    }

    static long finTag(MemorySegment box) {
        return box.get(LONG, 16);
    }
}
