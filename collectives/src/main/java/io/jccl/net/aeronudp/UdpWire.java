package io.jccl.net.aeronudp;

/**
 * The aeron-udp transport's hello frame; the message frames are {@link io.jccl.net.aeron.Frames}. One Aeron
 * fragment; all integers little-endian.
 *
 * <pre>
 * hello, {@value #HELLO_BYTES} bytes, once per connection on the listener's hello stream:
 *   0  int32   magic 0x4A55484C ("JUHL")
 *   4  uint16  version {@value #VERSION}
 *   6  uint16  flags 0
 *   8  int32   rank of the connecting side (for logs)
 *  12  int32   the data stream id the connecting side publishes the connection's messages on
 *  16  int32   the Aeron session id of that publication
 *  20  int32   reserved 0
 *  24  byte[16] the listener's token, from its handle
 * </pre>
 */
final class UdpWire {
    static final int HELLO_MAGIC = 0x4A55484C;
    static final int VERSION = 1;
    static final int HELLO_BYTES = 40;
    static final int TOKEN_BYTES = 16;

    private UdpWire() {
    }
}
