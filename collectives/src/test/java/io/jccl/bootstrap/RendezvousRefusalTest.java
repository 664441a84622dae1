package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.jccl.bootstrap.JcclFailures.assertFailed;
import static io.jccl.bootstrap.JcclFailures.assertThrowsJccl;
import static io.jccl.bootstrap.TcpRendezvousTest.TIMEOUT;
import static io.jccl.bootstrap.TcpRendezvousTest.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Connections the rendezvous refuses; the ranks that belong are never disturbed. */
@Tag("integration")
class RendezvousRefusalTest {
    @Test
    void aWrongSecretIsRefusedWhileTheOthersComplete() throws Exception {
        int n = 3;
        TestRendezvous.runToItsEnd(rv -> {
            List<CompletableFuture<byte[][]>> ranks = rv.runJoined(n, (rank, bootstrap) -> {
                bootstrap.allGather(payload(rank, 0, 16));
                return bootstrap.allGather(payload(rank, 1, 16));
            });
            var wrong = rv.wrongSecret();

            assertThatThrownBy(() -> TcpBootstrap.join(wrong, 1, n, TIMEOUT))
                    .isInstanceOfSatisfying(JcclException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.REMOTE_ERROR);
                        assertThat(e.getMessage()).contains("refused rank 1 of 3")
                                .contains("authentication failed").contains("is the unique id right?")
                                .doesNotContain(base64(rv.secret)).doesNotContain(base64(wrong.secretBytes()));
                    });
            for (byte[][] table : Ranks.awaitAll(ranks)) {
                assertThat(table).isDeepEqualTo(new byte[][] {payload(0, 1, 16), payload(1, 1, 16), payload(2, 1, 16)});
            }
        });
    }

    /**
     * A second rank whose join conflicts with the first's, with a part of the message it is refused with: a
     * duplicate rank names where the first came from, a size that differs names the first rank's.
     */
    @ParameterizedTest(name = "rank {0} of {1}")
    @CsvSource(delimiter = '|', value = {
        "0 | 2 | rank 0 already joined from /127.0.0.1:",
        "1 | 3 | size 3 differs from size 2 that rank 0 (from /127.0.0.1:"})
    void aJoinThatConflictsWithTheFirstRanksIsRefused(int rank, int size, String messagePart) throws Exception {
        try (TestRendezvous rv = TestRendezvous.start()) {
            TcpBootstrap first = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT);

            assertThrowsJccl(() -> TcpBootstrap.join(rv.id, rank, size, TIMEOUT), ErrorCode.REMOTE_ERROR, messagePart);
            completeTwoRanks(rv, first);
        }
    }

    @Test
    void aRankOutOfRangeIsRefusedByTheServer() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start()) {
            TcpBootstrap first = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT);

            for (int[] bad : new int[][] {{5, 2}, {2, 2}, {-1, 2}}) {
                try (RawClient raw = RawClient.connect(rv.server.address())) {
                    assertThatThrownBy(() -> raw.join(rv.secret, bad[0], bad[1]))
                            .isInstanceOf(RefusedException.class)
                            .hasMessageContaining("rank " + bad[0] + " is out of range for size 2");
                }
            }
            try (RawClient raw = RawClient.connect(rv.server.address())) {
                assertThatThrownBy(() -> raw.join(rv.secret, 0, 0)).isInstanceOf(RefusedException.class)
                        .hasMessageContaining("size 0 is not valid");
            }
            completeTwoRanks(rv, first);
        }
    }

    @Test
    void aNonJcclClientGetsBadMagic() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start();
             Socket socket = new Socket(rv.server.address().getAddress(), rv.server.address().getPort())) {
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

            String reason = readRefusal(socket);

            assertThat(reason).contains("bad magic 0x47455420").contains("JCCL rendezvous");
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
            completeTwoRanks(rv, TcpBootstrap.join(rv.id, 0, 2, TIMEOUT));
        }
    }

    @Test
    void anotherProtocolVersionIsRefused() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start();
             Socket socket = new Socket(rv.server.address().getAddress(), rv.server.address().getPort())) {
            socket.getOutputStream().write(ByteBuffer.allocate(RendezvousProtocol.HELLO_BYTES)
                    .putInt(RendezvousProtocol.MAGIC).putShort((short) 2).array());

            assertThat(readRefusal(socket)).contains("protocol version 2 is not supported")
                    .contains("speaks version 1");
            completeTwoRanks(rv, TcpBootstrap.join(rv.id, 0, 2, TIMEOUT));
        }
    }

    @Test
    void silentClientsAreDroppedAfterTheHandshakeTimeoutWithoutDisturbingOthers() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start(Duration.ofMillis(300));
             Socket silent = new Socket(rv.server.address().getAddress(), rv.server.address().getPort());
             Socket stalls = new Socket(rv.server.address().getAddress(), rv.server.address().getPort())) {
            // Sends HELLO, then never its proof.
            stalls.getOutputStream().write(ByteBuffer.allocate(RendezvousProtocol.HELLO_BYTES)
                    .putInt(RendezvousProtocol.MAGIC).putShort((short) RendezvousProtocol.VERSION).array());
            TcpBootstrap rank0 = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT);

            assertThat(readRefusal(silent)).contains("handshake timed out").contains("300 ms");
            DataInputStream in = new DataInputStream(stalls.getInputStream());
            in.readFully(new byte[5 + RendezvousProtocol.HELLO_BYTES]); // the CHALLENGE
            assertThat(readRefusal(stalls)).contains("handshake timed out");
            assertThat(silent.getInputStream().read()).isEqualTo(-1);

            completeTwoRanks(rv, rank0);
        }
    }

    @Test
    void silentClientsDoNotHoldUpTheRanksAndAreRefusedWhenTheyTimeOut() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start(Duration.ofMillis(300));
             Socket silent = new Socket(rv.server.address().getAddress(), rv.server.address().getPort())) {
            completeTwoRanks(rv, TcpBootstrap.join(rv.id, 0, 2, TIMEOUT));

            assertThat(readRefusal(silent)).contains("handshake timed out");
            assertThat(silent.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void aRankStillInTheHandshakeWhenTheRendezvousFailsIsToldWhy() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start();
             RawClient late = RawClient.connect(rv.server.address());
             TcpBootstrap rank0 = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT)) {
            rv.server.close();

            assertThatThrownBy(() -> late.join(rv.secret, 1, 2)).isInstanceOf(RefusedException.class)
                    .hasMessageContaining("the rendezvous has failed: the rendezvous at")
                    .hasMessageContaining("was closed by its owner");
            assertThat(catchThrowableOfType(JcclException.class, () -> rank0.allGather(new byte[0])).code())
                    .isEqualTo(ErrorCode.REMOTE_ERROR);
        }
    }

    @Test
    void anOversizedFrameFromAMemberFailsTheRendezvousWithoutAllocatingIt() throws Exception {
        withRawRank1JoinedToRank0Gathering((rank0, raw) -> {
            OutputStream out = raw.rawOutput();
            out.write(ByteBuffer.allocate(5).put(RendezvousProtocol.CONTRIBUTE).putInt(0x7fffffff).array());
            out.flush();

            assertFailed(rank0, ErrorCode.REMOTE_ERROR, "rank 1 was dropped from the rendezvous",
                    "announces a body of 2147483647 bytes");
        });
    }

    @Test
    void aContributionForTheWrongRoundFailsTheRendezvous() throws Exception {
        withRawRank1JoinedToRank0Gathering((rank0, raw) -> {
            raw.contribute(7, new byte[] {2});

            assertThat(Ranks.failure(rank0).getMessage()).contains("rank 1 was dropped from the rendezvous")
                    .contains("contributed to round 7 while the rendezvous is at round 0");
            Frame error = raw.next();
            assertThat(error.type()).isEqualTo(RendezvousProtocol.ERROR);
        });
    }

    /** What the test does as rank 1, over a raw client, while rank 0 gathers. */
    @FunctionalInterface
    private interface RawRank1 {
        void run(CompletableFuture<byte[][]> rank0, RawClient raw) throws Exception;
    }

    /**
     * Starts a rendezvous of two whose rank 0 gathers ({@link #rank0OfTwoGathering}), joins a raw client as rank 1 and
     * hands both to {@code rank1}; then closes the client and checks that the server ends.
     */
    private static void withRawRank1JoinedToRank0Gathering(RawRank1 rank1) throws Exception {
        try (TestRendezvous rv = TestRendezvous.start()) {
            CompletableFuture<byte[][]> rank0 = rank0OfTwoGathering(rv);
            try (RawClient raw = RawClient.connect(rv.server.address())) {
                raw.join(rv.secret, 1, 2);
                rank1.run(rank0, raw);
            }
            rv.assertTerminates();
        }
    }

    @Test
    void aJoinAfterTheRendezvousIsOverCannotReachIt() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start()) {
            TcpBootstrap.join(rv.id, 0, 1, TIMEOUT).close();
            rv.assertTerminates();

            assertThrowsJccl(() -> TcpBootstrap.join(rv.id, 0, 1, Duration.ofMillis(300)), ErrorCode.TIMEOUT,
                    "to reach the rendezvous 127.0.0.1:");
        }
    }

    /** Joins rank 1 of 2 and runs one round with {@code rank0}; both must succeed and the server end. */
    /** Joins rank 0 of 2 and starts its all-gather of one byte, which waits for rank 1 (played by the test). */
    private static CompletableFuture<byte[][]> rank0OfTwoGathering(TestRendezvous rv) {
        TcpBootstrap joined = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT);
        return Ranks.async("rank-0", () -> {
            try (joined) {
                return joined.allGather(new byte[] {1});
            }
        });
    }

    private static void completeTwoRanks(TestRendezvous rv, TcpBootstrap rank0) throws Exception {
        CompletableFuture<byte[][]> other = Ranks.async("rank-1", () -> {
            try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, 1, 2, TIMEOUT)) {
                return bootstrap.allGather(new byte[] {1});
            }
        });
        try (rank0) {
            assertThat(rank0.allGather(new byte[] {0})).isDeepEqualTo(new byte[][] {{0}, {1}});
        }
        assertThat(Ranks.await(other)).isDeepEqualTo(new byte[][] {{0}, {1}});
        rv.assertTerminates();
    }

    /** Reads a plain REFUSE frame and returns its reason. */
    static String readRefusal(Socket socket) throws IOException {
        socket.setSoTimeout((int) Duration.ofSeconds(Ranks.TEST_BOUND_SECONDS).toMillis());
        DataInputStream in = new DataInputStream(socket.getInputStream());
        assertThat(in.readByte()).isEqualTo(RendezvousProtocol.REFUSE);
        byte[] reason = new byte[in.readInt()];
        in.readFully(reason);
        return new String(reason, StandardCharsets.UTF_8);
    }

    static String base64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
