package io.jccl.net.shm;

/**
 * The shm transport's frames. Each is one Aeron fragment (never fragmented by Aeron: a frame is at most the
 * publication's maximum payload). All integers little-endian.
 *
 * <pre>
 * hello, {@value #HELLO_BYTES} bytes, once per connection on the listener's hello stream:
 *   0  int32   magic 0x4A53484C ("JSHL")
 *   4  uint16  version {@value #VERSION}
 *   6  uint16  flags 0
 *   8  int32   rank of the connecting side (for logs)
 *  12  int32   the data stream id the connecting side publishes the connection's messages on
 *  16  int64   pid of the connecting process (for peer-death detection)
 *  24  byte[16] the listener's token, from its handle
 *
 * first frame of a message, on the data stream:
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
final class Wire {
    static final int HELLO_MAGIC = 0x4A53484C;
    static final int VERSION = 1;
    static final int HELLO_BYTES = 40;
    static final int TOKEN_BYTES = 16;

    static final int KIND_FIRST = 0x4A534D31;
    static final int KIND_MORE = 0x4A534D32;
    static final int KIND_CLOSE = 0x4A53434C;
    static final int FIRST_HEADER_BYTES = 24;
    static final int MORE_HEADER_BYTES = 8;
    static final int CLOSE_BYTES = 8;

    /** Largest message: 1 TiB, as the TCP transport. */
    static final long MAX_MESSAGE_BYTES = 1L << 40;

    private Wire() {
    }
}
