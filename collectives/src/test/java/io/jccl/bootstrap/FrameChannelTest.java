package io.jccl.bootstrap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Framing, bounds and MACs over a real socket pair. */
@Tag("integration")
class FrameChannelTest {
    private static final long WAIT_NS = Duration.ofSeconds(Ranks.TEST_BOUND_SECONDS).toNanos();
    private Socket left;
    private Socket right;
    private FrameChannel a;
    private FrameChannel b;

    @BeforeEach
    void connect() throws IOException {
        try (ServerSocket listener = new ServerSocket(0, 1, TestRendezvous.LOOPBACK)) {
            left = new Socket(TestRendezvous.LOOPBACK, listener.getLocalPort());
            right = listener.accept();
        }
        a = new FrameChannel(left);
        b = new FrameChannel(right);
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void authenticatedFramesRoundTripInOrder() throws IOException {
        authenticateBoth();
        a.send(RendezvousProtocol.CONTRIBUTE, RendezvousProtocol.ints(3), new byte[] {1, 2, 3});
        a.send(RendezvousProtocol.BYE);

        Frame first = b.receive(deadline());
        Frame second = b.receive(deadline());

        assertThat(first.type()).isEqualTo(RendezvousProtocol.CONTRIBUTE);
        assertThat(first.body()).containsExactly(0, 0, 0, 3, 1, 2, 3);
        assertThat(second.type()).isEqualTo(RendezvousProtocol.BYE);
    }

    @Test
    void aFrameUnderAnotherKeyFailsAuthentication() throws IOException {
        a.authenticate(key(1), key(2));
        b.authenticate(key(2), key(9));
        a.send(RendezvousProtocol.QUERY, RendezvousProtocol.ints(0));

        assertThatThrownBy(() -> b.receive(deadline())).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("QUERY frame failed authentication");
    }

    @Test
    void aReplayedFrameFailsBecauseOfTheSequenceNumber() throws IOException {
        authenticateBoth();
        // A second channel on the same socket, with the same key, starts again at sequence 0: its frame is
        // byte for byte what a replay of the first one would be.
        FrameChannel replayer = new FrameChannel(left);
        replayer.authenticate(key(1), key(2));
        a.send(RendezvousProtocol.QUERY, RendezvousProtocol.ints(5));
        replayer.send(RendezvousProtocol.QUERY, RendezvousProtocol.ints(5));

        assertThat(b.receive(deadline()).intAt(0)).isEqualTo(5);
        assertThatThrownBy(() -> b.receive(deadline())).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("failed authentication");
    }

    @Test
    void lengthsOutsideTheTypesBoundsAreRejectedBeforeReading() throws IOException {
        assertHeaderRejected(RendezvousProtocol.ENTRY, RendezvousProtocol.MAX_PAYLOAD_BYTES + 9,
                "ENTRY announces a body of 16777225 bytes; the protocol allows 8..16777224");
    }

    @Test
    void negativeLengthsAreRejected() throws IOException {
        assertHeaderRejected(RendezvousProtocol.REFUSE, -1, "announces a body of 4294967295 bytes");
    }

    /** A frame header of {@code type} announcing {@code length} body bytes is refused naming {@code why}. */
    private void assertHeaderRejected(byte type, int length, String why) throws IOException {
        DataOutputStream out = new DataOutputStream(left.getOutputStream());
        out.writeByte(type);
        out.writeInt(length);
        out.flush();

        assertThatThrownBy(() -> b.receive(deadline())).isInstanceOf(ProtocolException.class)
                .hasMessageContaining(why);
    }

    @Test
    void unknownTypesAreRejected() throws IOException {
        left.getOutputStream().write(new byte[] {0x55, 0, 0, 0, 0});

        assertThatThrownBy(() -> b.receive(deadline())).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown frame type 0x55");
    }

    @Test
    void senderRefusesFramesOutsideTheBounds() {
        assertThatThrownBy(() -> a.send(RendezvousProtocol.JOIN, new byte[7]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JOIN with a body of 7 bytes");
    }

    @Test
    void aTimeoutAtAFrameBoundaryKeepsTheStreamUsable() throws IOException {
        assertThatThrownBy(() -> b.receive(System.nanoTime() + Duration.ofMillis(50).toNanos()))
                .isInstanceOfSatisfying(FrameTimeoutException.class, e -> assertThat(e.atFrameBoundary()).isTrue());

        a.send(RendezvousProtocol.WELCOME);
        assertThat(b.receive(deadline()).type()).isEqualTo(RendezvousProtocol.WELCOME);
    }

    @Test
    void aTimeoutInsideAFrameSaysSo() throws IOException {
        left.getOutputStream().write(new byte[] {RendezvousProtocol.JOIN, 0, 0, 0, 8, 1});

        assertThatThrownBy(() -> b.receive(System.nanoTime() + Duration.ofMillis(50).toNanos()))
                .isInstanceOfSatisfying(FrameTimeoutException.class, e -> assertThat(e.atFrameBoundary()).isFalse());
    }

    @Test
    void endOfStreamIsReported() {
        a.close();

        assertThatThrownBy(() -> b.receive(deadline())).isInstanceOf(EOFException.class);
    }

    @Test
    void longReasonsAreCutToTheLimit() {
        byte[] reason = RendezvousProtocol.reason("x".repeat(10_000));

        assertThat(reason.length).isLessThanOrEqualTo(RendezvousProtocol.MAX_REASON_BYTES);
        assertThat(RendezvousProtocol.reasonText("a\nb\u0000c".getBytes())).isEqualTo("a?b?c");
    }

    private void authenticateBoth() {
        a.authenticate(key(1), key(2));
        b.authenticate(key(2), key(1));
    }

    private static byte[] key(int seed) {
        byte[] key = new byte[32];
        java.util.Arrays.fill(key, (byte) seed);
        return key;
    }

    private static long deadline() {
        return System.nanoTime() + WAIT_NS;
    }
}
