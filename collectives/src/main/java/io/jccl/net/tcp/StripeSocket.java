package io.jccl.net.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * What a socket of either end of a TCP connection holds: its index in the connection (which stripe it carries),
 * its channel, and its staging buffer, sized by index and empty at first, with the buffer's segment and the views
 * it copies payloads through.
 */
abstract class StripeSocket {
    final int index;
    final SocketChannel channel;
    /** Bytes staged are from position to limit. */
    final ByteBuffer staging;
    final MemorySegment stagingSegment;
    final SegmentViews views = new SegmentViews();

    StripeSocket(int index, SocketChannel channel) {
        this.index = index;
        this.channel = channel;
        this.staging = ByteBuffer.allocateDirect(TcpConnection.stagingBytes(index));
        this.stagingSegment = MemorySegment.ofBuffer(staging);
        staging.limit(0);
    }

    /**
     * @param channels  a connection's sockets, index order
     * @param newArray  makes the array
     * @param newSocket makes the socket of an index and its channel
     * @return one socket per channel, index order
     */
    static <S extends StripeSocket> S[] perChannel(SocketChannel[] channels, IntFunction<S[]> newArray,
                                                   BiFunction<Integer, SocketChannel, S> newSocket) {
        S[] sockets = newArray.apply(channels.length);
        for (int i = 0; i < channels.length; i++) {
            sockets[i] = newSocket.apply(i, channels[i]);
        }
        return sockets;
    }
}
