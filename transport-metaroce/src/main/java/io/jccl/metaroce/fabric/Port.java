package io.jccl.metaroce.fabric;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;

/** One of the relay's sockets and the IP TOS it sends with, so the option is set only when it changes. */
final class Port {
    /** A TOS that leaves the socket's setting alone. */
    static final int TOS_UNCHANGED = -1;

    final DatagramChannel channel;
    private int tos = TOS_UNCHANGED;

    Port(DatagramChannel channel) {
        this.channel = channel;
    }

    /** Sets the TOS byte of what this socket sends next, if it differs (a system call). */
    void tos(int value) throws IOException {
        if (value != TOS_UNCHANGED && value != tos) {
            channel.setOption(StandardSocketOptions.IP_TOS, value);
            tos = value;
        }
    }

    void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing: nothing left to do
        }
    }
}
