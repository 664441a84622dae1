package io.jccl.net.aeron;

/**
 * The message frames that the Aeron-based transports ({@code aeron-ipc} over IPC, {@code aeron-udp} over UDP) write into
 * a connection's publication. Each is one Aeron fragment (never fragmented by Aeron: a frame is at most the
 * publication's maximum payload). All integers little-endian.
 *
 * <pre>
 * first frame of a message:
 *   0  int32   kind 0x4A534D31 ("JSM1")
 *   4  int32   reserved 0
 *   8  int64   tag
 *  16  int64   message length in bytes, 0 to {@value #MAX_MESSAGE_BYTES}
 *  24  payload (as much as fits the frame)
 *
 * continuation frame:
 *   0  int32   kind 0x4A534D32 ("JSM2")
 *   4  int32   reserved 0
 *   8  payload
 *
 * close frame (the sender closed its end; nothing follows):
 *   0  int32   kind 0x4A53434C ("JSCL")
 *   4  int32   reserved 0
 * </pre>
 */
public final class Frames {
    static final int KIND_FIRST = 0x4A534D31;
    static final int KIND_MORE = 0x4A534D32;
    static final int KIND_CLOSE = 0x4A53434C;
    static final int FIRST_HEADER_BYTES = 24;
    static final int MORE_HEADER_BYTES = 8;
    static final int CLOSE_BYTES = 8;

    /** Largest message: 1 TiB, as the TCP transport. */
    public static final long MAX_MESSAGE_BYTES = 1L << 40;

    private Frames() {
    }
}
