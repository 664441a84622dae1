package io.jccl.net.aeronudp;

import io.jccl.net.aeron.HelloFrame;

/**
 * The aeron-udp transport's hello: an {@link HelloFrame} with magic 0x4A55484C ("JUHL") whose detail is the data publication's Aeron session id (low 32 bits; the high 32 are reserved, 0). The
 * message frames are {@link io.jccl.net.aeron.Frames}.
 */
final class UdpWire {
    static final int HELLO_MAGIC = 0x4A55484C;
    static final int TOKEN_BYTES = HelloFrame.TOKEN_BYTES;

    private UdpWire() {
    }
}
