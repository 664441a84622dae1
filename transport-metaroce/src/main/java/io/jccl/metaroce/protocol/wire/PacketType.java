package io.jccl.metaroce.protocol.wire;

/**
 * The packet type codes of wire format v1 (the common header's {@code type} byte) and what each type's layout
 * needs: the length of its type-specific header, whether it carries a body, and which flags it may set.
 */
public final class PacketType {
    /** One-sided write: payload placed at {@code base + offset} of region {@code target}. */
    public static final int WRITE = 1;
    /** Two-sided send: payload placed at {@code offset} of the receive posted as message {@code message} of stream {@code target}. */
    public static final int SEND = 2;
    /** Per-path acknowledgement with a 256-bit SACK bitmap. */
    public static final int ACK = 3;
    /** Opens a connection. */
    public static final int HANDSHAKE_INIT = 16;
    /** Accepts a connection. */
    public static final int HANDSHAKE_ACCEPT = 17;
    /** Tests a failed or re-routed path. */
    public static final int PROBE = 18;
    /** Answers a probe on the same path. */
    public static final int PROBE_REPLY = 19;
    /** The sender closes the connection. */
    public static final int CLOSE = 20;
    /** Receiver-not-ready: a SEND arrived with no posted receive. */
    public static final int RNR = 21;

    private PacketType() {
    }

    /**
     * @param type a type code (the common header's type byte, 0-255)
     * @return the length in bytes of that type's header (between the common header and the body), or -1 when the
     *         type is unknown
     */
    public static int typeHeaderLength(int type) {
        return switch (type) {
            case WRITE, SEND -> DataFlyweight.TYPE_HEADER_LENGTH;
            case ACK -> AckFlyweight.TYPE_HEADER_LENGTH;
            case HANDSHAKE_INIT -> HandshakeInitFlyweight.TYPE_HEADER_LENGTH;
            case HANDSHAKE_ACCEPT -> HandshakeAcceptFlyweight.TYPE_HEADER_LENGTH;
            case PROBE, PROBE_REPLY -> ProbeFlyweight.TYPE_HEADER_LENGTH;
            case CLOSE -> CloseFlyweight.TYPE_HEADER_LENGTH;
            case RNR -> RnrFlyweight.TYPE_HEADER_LENGTH;
            default -> -1;
        };
    }

    /**
     * @param type a type code
     * @return whether wire format v1 defines it
     */
    public static boolean isKnown(int type) {
        return typeHeaderLength(type) >= 0;
    }

    /**
     * @param type a type code
     * @return whether it is WRITE or SEND, the types that carry a payload (a body of 1 to
     *         {@link HeaderFlyweight#MAX_PAYLOAD_LENGTH} bytes); every other type has a body of 0 bytes
     */
    public static boolean isData(int type) {
        return type == WRITE || type == SEND;
    }

    /**
     * @param type a type code
     * @return the {@link Flags} bits that type may set; any other bit set is a malformed packet (0 for unknown
     *         types)
     */
    public static int allowedFlags(int type) {
        return type == WRITE ? Flags.DATA_FLAGS : type == SEND ? Flags.SEND_FLAGS : Flags.NONE;
    }

    /**
     * @param type a type code
     * @return its name ({@code "WRITE"}, ...), or {@code "UNKNOWN"}; a constant, so logging it allocates nothing
     */
    public static String name(int type) {
        return switch (type) {
            case WRITE -> "WRITE";
            case SEND -> "SEND";
            case ACK -> "ACK";
            case HANDSHAKE_INIT -> "HANDSHAKE_INIT";
            case HANDSHAKE_ACCEPT -> "HANDSHAKE_ACCEPT";
            case PROBE -> "PROBE";
            case PROBE_REPLY -> "PROBE_REPLY";
            case CLOSE -> "CLOSE";
            case RNR -> "RNR";
            default -> "UNKNOWN";
        };
    }
}
