package io.jccl.metaroce.protocol.wire;

/** The bits of the common header's {@code flags} byte. Only DATA packets (WRITE, SEND) set any. */
public final class Flags {
    /** No flag. */
    public static final int NONE = 0;
    /** Bit 0: the last packet of a message (by position: the packet whose payload ends the message). */
    public static final int LAST = 1;
    /** Bit 1: the sender asks the receiver to acknowledge at once. */
    public static final int ACK_REQUESTED = 1 << 1;
    /** Bit 2: the packet retransmits an earlier one (new PSN, same destination). */
    public static final int RETRANSMISSION = 1 << 2;
    /**
     * Bit 3: a WRITE's last packet carries the write's 4-byte immediate after its payload (write-with-immediate); only
     * with {@link #LAST}, never on a SEND.
     */
    public static final int IMMEDIATE = 1 << 3;
    /** Every flag a SEND packet may set. */
    public static final int SEND_FLAGS = LAST | ACK_REQUESTED | RETRANSMISSION;
    /** Every flag a DATA packet may set (a WRITE: all of them). */
    public static final int DATA_FLAGS = SEND_FLAGS | IMMEDIATE;

    private Flags() {
    }

    /**
     * @param flags a flags byte
     * @param flag  one or more bits
     * @return whether every bit of {@code flag} is set in {@code flags}
     */
    public static boolean isSet(int flags, int flag) {
        return (flags & flag) == flag;
    }
}
