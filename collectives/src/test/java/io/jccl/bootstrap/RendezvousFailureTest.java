package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.jccl.bootstrap.JcclFailures.assertFailed;
import static io.jccl.bootstrap.JcclFailures.assertThrowsJccl;
import static io.jccl.bootstrap.TcpRendezvousTest.TIMEOUT;
import static io.jccl.bootstrap.TcpRendezvousTest.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A rendezvous that fails: departures, tampering, timeouts; every rank learns why. */
@Tag("integration")
class RendezvousFailureTest {
    /** Where the first CONTRIBUTE's data starts in the client-to-server stream: HELLO, proof, JOIN, header. */
    private static final long FIRST_CONTRIBUTION_DATA = RendezvousProtocol.HELLO_BYTES + RendezvousProtocol.MAC_BYTES
            + (5 + 8 + RendezvousProtocol.MAC_BYTES) + 5 + 4;
    /** Where the first ENTRY's data starts in the server-to-client stream: CHALLENGE, ACCEPT, WELCOME, header. */
    private static final long FIRST_ENTRY_DATA = (5 + RendezvousProtocol.HELLO_BYTES) + (5 + RendezvousProtocol.MAC_BYTES)
            + (5 + RendezvousProtocol.MAC_BYTES) + 5 + 8;

    @Test
    void aRankThatDisconnectsMidwayMakesTheOthersFailWithRemoteError() throws Exception {
        int n = 3;
        TestRendezvous.runToItsEnd(rv -> {
            List<CompletableFuture<byte[][]>> ranks = Ranks.run(2, rank -> {
                try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, rank, n, TIMEOUT)) {
                    bootstrap.allGather(payload(rank, 0, 32));
                    return bootstrap.allGather(payload(rank, 1, 32));
                }
            });
            try (RawClient rank2 = RawClient.connect(rv.server.address())) {
                rank2.join(rv.secret, 2, n);
                rank2.contribute(0, payload(2, 0, 32));
                assertThat(rank2.readTable(0, n)[1]).isEqualTo(payload(1, 0, 32));
            } // closes without goodbye, before round 1

            for (CompletableFuture<byte[][]> rank : ranks) {
                assertFailed(rank, ErrorCode.REMOTE_ERROR, "rank 2 left the rendezvous", "was closed",
                        "all-gather round 1");
            }
        });
    }

    @Test
    void aRankThatClosesAfterFewerRoundsThanTheOthersMakesThemFail() throws Exception {
        int n = 3;
        TestRendezvous.runToItsEnd(rv -> {
            List<CompletableFuture<byte[][]>> ranks = rv.runJoined(n, (rank, bootstrap) -> {
                byte[][] table = bootstrap.allGather(payload(rank, 0, 8));
                return rank == 1 ? table : bootstrap.allGather(payload(rank, 1, 8));
            });

            assertThat(Ranks.await(ranks.get(1))[1]).isEqualTo(payload(1, 0, 8));
            for (int rank : new int[] {0, 2}) {
                assertFailed(ranks.get(rank), ErrorCode.REMOTE_ERROR,
                        "rank 1 left the rendezvous after 1 all-gather rounds");
            }
        });
    }

    @Test
    void aFlippedByteFromAClientIsDetectedAndFailsEveryone() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start();
             ByteProxy proxy = new ByteProxy(rv.server.address(), FIRST_CONTRIBUTION_DATA + 3, -1)) {
            TcpBootstrap rank0 = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT);
            TcpBootstrap rank1 = TcpBootstrap.join(rv.via(proxy.address()), 1, 2, TIMEOUT);
            CompletableFuture<byte[][]> direct = Ranks.async("rank-0", () -> {
                try (rank0) {
                    return rank0.allGather(payload(0, 0, 64));
                }
            });
            CompletableFuture<byte[][]> tampered = Ranks.async("rank-1", () -> {
                try (rank1) {
                    return rank1.allGather(payload(1, 0, 64));
                }
            });

            for (CompletableFuture<byte[][]> rank : List.of(direct, tampered)) {
                assertFailed(rank, ErrorCode.REMOTE_ERROR, "rank 1 was dropped from the rendezvous",
                        "CONTRIBUTE frame failed authentication (tampered with or injected in transit?)");
            }
            rv.assertTerminates();
        }
    }

    @Test
    void aFlippedByteFromTheServerIsDetectedByTheClient() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start();
             ByteProxy proxy = new ByteProxy(rv.server.address(), -1, FIRST_ENTRY_DATA + 1)) {
            CompletableFuture<byte[][]> direct = Ranks.async("rank-0", () -> {
                try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT)) {
                    bootstrap.allGather(payload(0, 0, 64));
                    return bootstrap.allGather(payload(0, 1, 64));
                }
            });
            CompletableFuture<byte[][]> tampered = Ranks.async("rank-1", () -> {
                try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.via(proxy.address()), 1, 2, TIMEOUT)) {
                    return bootstrap.allGather(payload(1, 0, 64));
                }
            });

            assertFailed(tampered, ErrorCode.REMOTE_ERROR, "ENTRY frame failed authentication");
            assertFailed(direct, ErrorCode.REMOTE_ERROR, "rank 1 left the rendezvous");
            rv.assertTerminates();
        }
    }

    @Test
    void aRoundTimesOutNamingTheMissingRank() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start();
             TcpBootstrap rank0 = TcpBootstrap.join(rv.id, 0, 2, Duration.ofMillis(300))) {
            assertThrowsJccl(() -> rank0.allGather(new byte[] {1}), ErrorCode.TIMEOUT, "rank 0 waited 300 ms at the"
                    + " rendezvous " + SocketAddresses.format(rv.server.address())
                    + " for rank [1] in all-gather round 0");
            assertThrowsJccl(() -> rank0.allGather(new byte[] {1}), ErrorCode.TIMEOUT,
                    "an earlier rendezvous call of rank 0 failed");
            rv.assertTerminates();
        }
    }

    @Test
    void aTimeoutListsOnlyTheRanksThatHaveNotArrived() throws Exception {
        int n = 4;
        TestRendezvous.runToItsEnd(rv -> {
            TcpBootstrap rank1 = TcpBootstrap.join(rv.id, 1, n, TIMEOUT);
            CompletableFuture<byte[][]> patient = Ranks.async("rank-1", () -> {
                try (rank1) {
                    return rank1.allGather(new byte[] {1});
                }
            });
            try (TcpBootstrap rank0 = TcpBootstrap.join(rv.id, 0, n, Duration.ofMillis(300))) {
                JcclException e = assertThrows(JcclException.class, () -> rank0.allGather(new byte[] {0}));

                assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT);
                List<Integer> missing = listedRanks(e.getMessage());
                assertThat(missing).contains(2, 3).doesNotContain(0);
            }
            // Rank 0 gave up and left, so the rendezvous fails for rank 1 rather than keeping it waiting.
            assertFailed(patient, ErrorCode.REMOTE_ERROR,
                    "rank 0 left the rendezvous: it gave up: rank 0 waited 300 ms");
        });
    }

    @Test
    void joiningARendezvousThatIsNotThereTimesOut() throws Exception {
        int port = TestRendezvous.unusedPort();
        UniqueId id = UniqueId.of(new InetSocketAddress(TestRendezvous.LOOPBACK, port), TestRendezvous.randomSecret());

        assertThrowsJccl(() -> TcpBootstrap.join(id, 1, 2, Duration.ofMillis(300)), ErrorCode.TIMEOUT,
                "rank 1 waited 300 ms to reach the rendezvous 127.0.0.1:" + port, "last error: ",
                "is the rank that created the unique id running");
    }

    @Test
    void aServerThatNeverAnswersTheHandshakeTimesOut() throws Exception {
        try (ServerSocket mute = new ServerSocket(0, 1, TestRendezvous.LOOPBACK)) {
            UniqueId id = UniqueId.of(new InetSocketAddress(TestRendezvous.LOOPBACK, mute.getLocalPort()),
                    TestRendezvous.randomSecret());

            assertThrowsJccl(() -> TcpBootstrap.join(id, 0, 1, Duration.ofMillis(300)), ErrorCode.TIMEOUT,
                    "waited 300 ms for the rendezvous", "to answer its handshake");
        }
    }

    @Test
    void aServerThatDoesNotKnowTheSecretIsDetected() throws Exception {
        try (ServerSocket impostor = new ServerSocket(0, 1, TestRendezvous.LOOPBACK)) {
            Thread.ofPlatform().daemon().start(() -> impersonate(impostor));
            UniqueId id = UniqueId.of(new InetSocketAddress(TestRendezvous.LOOPBACK, impostor.getLocalPort()),
                    TestRendezvous.randomSecret());

            assertThrowsJccl(() -> TcpBootstrap.join(id, 0, 1, TIMEOUT), ErrorCode.REMOTE_ERROR,
                    "could not prove it knows the unique id's secret");
        }
    }

    @Test
    void closingTheServerFailsTheWaitingRanks() throws Exception {
        TestRendezvous.runToItsEnd(rv -> {
            TcpBootstrap rank0 = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT);
            CompletableFuture<byte[][]> waiting = Ranks.async("rank-0", () -> rank0.allGather(new byte[] {0}));

            rv.server.close();

            assertFailed(waiting, ErrorCode.REMOTE_ERROR, "was closed by its owner");
            rank0.close();
        });
    }

    @Test
    void closingABootstrapFromAnotherThreadAbortsItsWaitingCall() throws Exception {
        TestRendezvous.runToItsEnd(rv -> {
            TcpBootstrap rank0 = TcpBootstrap.join(rv.id, 0, 2, TIMEOUT);
            TcpBootstrap rank1 = TcpBootstrap.join(rv.id, 1, 2, TIMEOUT);
            CompletableFuture<byte[][]> waiting = Ranks.async("rank-0", () -> rank0.allGather(new byte[] {0}));
            TcpRendezvousTest.sleep(100);

            rank0.close();

            JcclException e = Ranks.failure(waiting);
            assertThat(e.code()).isIn(ErrorCode.ABORTED, ErrorCode.INVALID_USAGE);
            assertThrowsJccl(() -> rank1.allGather(new byte[] {1}), ErrorCode.REMOTE_ERROR,
                    "rank 0 left the rendezvous");
            rank1.close();
        });
    }

    /** Speaks the handshake with a proof it cannot have computed. */
    private static void impersonate(ServerSocket listener) {
        try (Socket socket = listener.accept(); FrameChannel channel = new FrameChannel(socket)) {
            byte[] hello = new byte[RendezvousProtocol.HELLO_BYTES];
            long deadline = System.nanoTime() + Duration.ofSeconds(Ranks.TEST_BOUND_SECONDS).toNanos();
            channel.receiveRaw(hello, deadline);
            byte[] challenge = hello.clone(); // same magic and version; any nonce
            channel.send(RendezvousProtocol.CHALLENGE, challenge);
            channel.receiveRaw(new byte[RendezvousProtocol.MAC_BYTES], deadline);
            channel.send(RendezvousProtocol.ACCEPT, TestRendezvous.randomSecret());
            channel.drain(1 << 16, deadline);
        } catch (IOException e) {
            // the test's assertions tell
        }
    }

    private static List<Integer> listedRanks(String message) {
        Matcher matcher = Pattern.compile("for ranks? \\[([0-9, ]*)]").matcher(message);
        assertThat(matcher.find()).as("a list of ranks in: %s", message).isTrue();
        return Stream.of(matcher.group(1).split(", ")).map(Integer::parseInt).toList();
    }
}
