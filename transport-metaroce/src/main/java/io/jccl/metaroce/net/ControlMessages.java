package io.jccl.metaroce.net;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The small messages the {@code metaroce} transport sends as MetaRoCE SENDs to run its rendezvous protocol (the
 * data itself moves as one-sided WRITEs with immediate). All fields little-endian.
 *
 * <ul>
 * <li>HELLO, connector to listener on stream 0, 20 bytes: magic, version, listener id, channel, the connector's
 * rank.</li>
 * <li>CTS ("clear to send"), listener to connector on the channel's stream, 40 bytes: region key, flags
 * ({@link #CTS_CLOSED} when the receiving end closed, its message field then the oldest receive it had not
 * completed; {@link #CTS_CREDIT} for a credit report only), offset in the
 * region, capacity, expected tag, the message's number on the channel (from 0; the n-th receive takes the n-th
 * message), credits (eager FIN boxes freed since the last report). Only a receive longer than the channel's inline
 * limit ({@link #inlineMaxBytes}), or one whose message announced itself by an RTS, sends a CTS: a shorter message
 * can only come inside its FIN. The sender pairs a CTS with its message by number and discards the CTS of a message
 * that went eagerly.</li>
 * <li>FIN, connector to listener on the channel's stream, 24 bytes: status (u16), flags (u16; {@link #FIN_EAGER}:
 * sent without a CTS, so it holds one of the sender's credits until its box is posted again), the message's number
 * (i32; the receiver pairs FINs and RTSs with receives by it: a WRITE with immediate completes its receive off the
 * stream, so an RTS may come after its message is complete, and is then stale), size, tag. A message that is
 * WRITTEN has no FIN: its WRITE carries an immediate (the CTS's region key) that completes the receive once every
 * byte is in place. A FIN is sent instead of a WRITE when the receive does not match, and for messages short enough
 * to travel inside it or empty; FINs come in message order, each after the WRITEs of earlier messages are
 * acknowledged, so the n-th FIN completes the first receive not yet complete, and the send completes once its FIN is
 * acknowledged. {@link #FIN_CLOSED} (which completes no receive) says the sending end closed. A message of at most
 * the inline limit travels inside its FIN instead of by a WRITE (status {@link #FIN_INLINE}, the size bytes
 * right after the 24), and usually eagerly: without waiting for any CTS, into one of the FIN boxes the receiver
 * keeps posted; the receiver holds it until its receive is posted. {@link #FIN_RTS} ("ready to send", always eager)
 * announces a longer message whose CTS the sender does not have: the receiver then sends that message's CTS even
 * for a short receive, so a message too long for it is refused the usual way; the message's own FIN follows.</li>
 * </ul>
 */
final class ControlMessages {
    static final int HELLO_BYTES = 20;
    static final int CTS_BYTES = 40;
    static final int FIN_BYTES = 24;
    /** Room for the largest control message but a FIN with its data. */
    static final int BOX_BYTES = 40;
    /** The least inline limit ({@link #inlineMaxBytes}): a FIN with its data fits one 4 KiB payload (RoCE's). */
    static final int INLINE_MAX_BYTES = 4096 - FIN_BYTES;

    /**
     * The longest message a channel sends inside its FIN, eagerly (control protocol 9): a FIN with its data fills one
     * payload of the channel's MetaRoCE connection, which both ends share, so one packet carries it (4,072 bytes with
     * RoCE's 4 KiB payload, 64,976 with loopback's 65,000), and never less than {@link #INLINE_MAX_BYTES} (a smaller
     * payload takes a FIN in several packets). Up to one payload, the FIN costs a copy on each side where a WRITE
     * costs the CTS one-way before it and its acknowledgement's after it (docs/performance.md).
     *
     * @param payloadBytes the connection's payload per packet
     * @return the limit in bytes
     */
    static int inlineMaxBytes(int payloadBytes) {
        return Math.max(INLINE_MAX_BYTES + FIN_BYTES, payloadBytes) - FIN_BYTES;
    }

    static final int HELLO_MAGIC = 0x4A4D4848;
    /**
     * 3: messages up to {@link #INLINE_MAX_BYTES} travel inside their FIN; 4: such a FIN may come before its CTS;
     * 5: a short receive sends no CTS, CTSs carry the message number and credits, FINs the eager flag, RTS;
     * 6: a long message is a WRITE with immediate (the region key) and has no FIN; FINs and RTSs carry the message
     * number (status and flags shrink to 16 bits); 7: a message's last packet asks for an immediate ACK only with
     * ACK_REQUESTED (eager FINs and CREDITs go without: acknowledged lazily); 8: 32 credits; 9: the inline limit is
     * one payload of the connection ({@link #inlineMaxBytes}), no longer 4,072 bytes whatever the payload.
     */
    static final int VERSION = 9;

    static final int CTS_OPEN = 0;
    static final int CTS_CLOSED = 1;
    static final int CTS_CREDIT = 2;

    static final int FIN_OK = 0;
    static final int FIN_TAG_MISMATCH = 1;
    static final int FIN_TRUNCATED = 2;
    static final int FIN_CLOSED = 3;
    static final int FIN_INLINE = 4;
    static final int FIN_RTS = 5;

    /** FIN flag: sent without a CTS (eagerly), holding a credit. */
    static final int FIN_EAGER = 1;

    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ControlMessages() {
    }

    /** The stream a channel's CTS and FIN messages use (each in its own direction); stream 0 carries HELLOs. */
    static int stream(int channel) {
        return channel + 1;
    }

    // Where each field lies (byte offsets): the writers below and the readers' callers share them.
    static final long HELLO_MAGIC_AT = 0;
    static final long HELLO_VERSION_AT = 4;
    static final long HELLO_LISTENER_AT = 8;
    static final long HELLO_CHANNEL_AT = 12;
    static final long HELLO_RANK_AT = 16;

    static final long CTS_REGION_KEY_AT = 0;
    static final long CTS_FLAGS_AT = 4;
    static final long CTS_OFFSET_AT = 8;
    static final long CTS_CAPACITY_AT = 16;
    static final long CTS_TAG_AT = 24;
    static final long CTS_MESSAGE_AT = 32;
    static final long CTS_CREDITS_AT = 36;

    static final long FIN_STATUS_AT = 0;
    static final long FIN_FLAGS_AT = 2;
    /** The number of the message a FIN or RTS is for (0 for a CLOSED FIN). */
    static final long FIN_MESSAGE_AT = 4;
    static final long FIN_SIZE_AT = 8;
    static final long FIN_TAG_AT = 16;

    static void putHello(MemorySegment box, int listenerId, int channel, int rank) {
        box.set(INT, HELLO_MAGIC_AT, HELLO_MAGIC);
        box.set(INT, HELLO_VERSION_AT, VERSION);
        box.set(INT, HELLO_LISTENER_AT, listenerId);
        box.set(INT, HELLO_CHANNEL_AT, channel);
        box.set(INT, HELLO_RANK_AT, rank);
    }

    static boolean isHello(MemorySegment box, long bytes) {
        return bytes == HELLO_BYTES && i32(box, HELLO_MAGIC_AT) == HELLO_MAGIC && i32(box, HELLO_VERSION_AT) == VERSION
                && i32(box, HELLO_CHANNEL_AT) >= 0 && i32(box, HELLO_CHANNEL_AT) < Integer.MAX_VALUE - 1
                && i32(box, HELLO_RANK_AT) >= 0;
    }

    static void putCts(MemorySegment box, int regionKey, int flags, long offset, long capacity, long tag,
                       int message, int credits) {
        box.set(INT, CTS_REGION_KEY_AT, regionKey);
        box.set(INT, CTS_FLAGS_AT, flags);
        box.set(LONG, CTS_OFFSET_AT, offset);
        box.set(LONG, CTS_CAPACITY_AT, capacity);
        box.set(LONG, CTS_TAG_AT, tag);
        box.set(INT, CTS_MESSAGE_AT, message);
        box.set(INT, CTS_CREDITS_AT, credits);
    }

    static void putFin(MemorySegment box, int status, int flags, int message, long size, long tag) {
        box.set(SHORT, FIN_STATUS_AT, (short) status);
        box.set(SHORT, FIN_FLAGS_AT, (short) flags);
        box.set(INT, FIN_MESSAGE_AT, message);
        box.set(LONG, FIN_SIZE_AT, size);
        box.set(LONG, FIN_TAG_AT, tag);
    }

    /** @return the unsigned 16-bit field at {@code at} (a FIN's status or flags) */
    static int u16(MemorySegment box, long at) {
        return box.get(SHORT, at) & 0xFFFF;
    }

    /** @return the 32-bit field at {@code at} */
    static int i32(MemorySegment box, long at) {
        return box.get(INT, at);
    }

    /** @return the 64-bit field at {@code at} */
    static long i64(MemorySegment box, long at) {
        return box.get(LONG, at);
    }
}
