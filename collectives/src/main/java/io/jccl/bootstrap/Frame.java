package io.jccl.bootstrap;

import java.nio.ByteBuffer;

/**
 * One received frame of the rendezvous protocol.
 *
 * @param type the frame type, one of {@link RendezvousProtocol}'s constants
 * @param body the body, already checked against the type's length bounds (and MAC, once authenticated)
 */
record Frame(byte type, byte[] body) {
    /** @return the big-endian int at {@code offset} of the body */
    int intAt(int offset) {
        return ByteBuffer.wrap(body).getInt(offset);
    }
}
