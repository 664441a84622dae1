package io.jccl.net.aeronipc;

import io.jccl.net.aeron.HelloFrame;

/**
 * The aeron-ipc transport's hello: an {@link HelloFrame} with magic 0x4A53484C ("JSHL") whose detail is the connecting process's pid. The
 * message frames are {@link io.jccl.net.aeron.Frames}.
 */
final class Wire {
    static final int HELLO_MAGIC = 0x4A53484C;
    static final int TOKEN_BYTES = HelloFrame.TOKEN_BYTES;

    private Wire() {
    }
}
