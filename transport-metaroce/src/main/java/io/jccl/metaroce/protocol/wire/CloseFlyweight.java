package io.jccl.metaroce.protocol.wire;

/**
 * Flyweight over a CLOSE packet ({@link PacketType#CLOSE}): the sender closes the connection, and expects no reply.
 * The common header, a 4-byte type header, no body, the CRC.
 *
 * <pre>
 *  20  4  reason   why (informational: a receiver closes the same way whatever the reason)
 * </pre>
 */
public final class CloseFlyweight extends TypedFlyweight<CloseFlyweight> {
    /** Offset of the 4-byte reason. */
    public static final int REASON_FIELD_OFFSET = 20;
    /** Length of the CLOSE type header. */
    public static final int TYPE_HEADER_LENGTH = 4;
    /** Length of a CLOSE datagram, CRC included. */
    public static final int FRAME_LENGTH = HEADER_LENGTH + TYPE_HEADER_LENGTH + CRC_LENGTH;
    /** Reason: the application closed the connection. */
    public static final int REASON_CLOSED = 0;
    /** Reason: the connection failed (no working path for too long, or a protocol error). */
    public static final int REASON_FAILED = 1;
    /** Reason: the endpoint is shutting down. */
    public static final int REASON_SHUTDOWN = 2;
    /**
     * A graceful close: every message the sender posted on the connection was acknowledged, and it posts nothing
     * new. The receiver answers with its own CLOSE of this reason once its messages are acknowledged too.
     */
    public static final int REASON_DRAINED = 3;
    /**
     * The answer to a {@link #REASON_DRAINED} CLOSE: the answering side's messages are all acknowledged too, and it
     * closed; never answered itself.
     */
    public static final int REASON_DRAINED_CONFIRM = 4;

    /** An unwrapped flyweight: {@link #wrap} it over a packet before use, and reuse it for every packet. */
    public CloseFlyweight() {
    }

    /**
     * @return why the sender closed: {@link #REASON_CLOSED}, {@link #REASON_FAILED}, {@link #REASON_SHUTDOWN},
     *         {@link #REASON_DRAINED}, {@link #REASON_DRAINED_CONFIRM} or another value
     */
    public int reason() {
        return intField(REASON_FIELD_OFFSET);
    }

    /**
     * @param reason why the sender closes
     * @return this
     */
    public CloseFlyweight reason(int reason) {
        putIntField(REASON_FIELD_OFFSET, reason);
        return this;
    }
}
