package io.jccl.net;

/**
 * A transport failure. Thrown by the SPI's methods; the communicator turns it into a
 * {@link io.jccl.JcclException} with the matching code.
 */
public final class NetException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure. */
    public enum Reason {
        /** The message arrived with another tag than the receive expected; see {@link #actualTag()}. */
        TAG_MISMATCH,
        /** The message was larger than the receive buffer. */
        TRUNCATED,
        /** The peer closed its end, or its process went away. */
        PEER_CLOSED,
        /** This end was closed while the request was pending. */
        CLOSED,
        /** The operating system failed an I/O call. */
        IO_ERROR,
        /** The peer sent something that breaks the protocol (bad magic, impossible length, wrong token). */
        PROTOCOL_ERROR
    }

    private final Reason reason;
    private final long expectedTag;
    private final long actualTag;

    /**
     * @param reason  the kind of failure
     * @param message what happened
     */
    public NetException(Reason reason, String message) {
        this(reason, message, null);
    }

    /**
     * @param reason  the kind of failure
     * @param message what happened
     * @param cause   the underlying failure, or null
     */
    public NetException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.expectedTag = 0;
        this.actualTag = 0;
    }

    private NetException(long expectedTag, long actualTag) {
        super("tag mismatch: receive expected tag 0x" + Long.toHexString(expectedTag) + " but the message carries 0x"
                + Long.toHexString(actualTag));
        this.reason = Reason.TAG_MISMATCH;
        this.expectedTag = expectedTag;
        this.actualTag = actualTag;
    }

    /**
     * @param expectedTag the tag the receive named
     * @param actualTag   the tag the message carried
     * @return a {@link Reason#TAG_MISMATCH} failure
     */
    public static NetException tagMismatch(long expectedTag, long actualTag) {
        return new NetException(expectedTag, actualTag);
    }

    /** @return the kind of failure */
    public Reason reason() {
        return reason;
    }

    /** @return for {@link Reason#TAG_MISMATCH}, the tag the receive expected */
    public long expectedTag() {
        return expectedTag;
    }

    /** @return for {@link Reason#TAG_MISMATCH}, the tag the message carried */
    public long actualTag() {
        return actualTag;
    }
}
