package io.jccl.bootstrap;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A client that speaks the wire protocol directly, so tests can misbehave in ways TcpBootstrap never does. */
final class RawClient implements AutoCloseable {
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(Ranks.TEST_BOUND_SECONDS);

    final Socket socket;
    final FrameChannel channel;

    private RawClient(Socket socket) throws IOException {
        this.socket = socket;
        this.channel = new FrameChannel(socket);
    }

    static RawClient connect(InetSocketAddress address) throws IOException {
        return new RawClient(new Socket(address.getAddress(), address.getPort()));
    }

    /** Handshake and JOIN with any rank and size, unchecked. */
    void join(byte[] secret, int rank, int size) throws IOException, RefusedException {
        Handshake.client(channel, secret, rank, size, deadline());
    }

    void contribute(int round, byte[] data) throws IOException {
        channel.send(RendezvousProtocol.CONTRIBUTE, RendezvousProtocol.ints(round), data);
    }

    byte[][] readTable(int round, int size) throws IOException {
        byte[][] table = new byte[size][];
        for (int rank = 0; rank < size; rank++) {
            Frame frame = next();
            assertThat(frame.type()).isEqualTo(RendezvousProtocol.ENTRY);
            assertThat(frame.intAt(0)).isEqualTo(round);
            assertThat(frame.intAt(4)).isEqualTo(rank);
            table[rank] = Arrays.copyOfRange(frame.body(), 8, frame.body().length);
        }
        return table;
    }

    Frame next() throws IOException {
        return channel.receive(deadline());
    }

    OutputStream rawOutput() throws IOException {
        return socket.getOutputStream();
    }

    /** @return the next byte, -1 at end of stream, waiting at most the test bound */
    int readByte() throws IOException {
        socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(Ranks.TEST_BOUND_SECONDS));
        return socket.getInputStream().read();
    }

    private static long deadline() {
        return System.nanoTime() + WAIT_NS;
    }

    @Override
    public void close() {
        channel.close();
    }
}
