package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static io.jccl.bootstrap.JcclFailures.assertThrowsJccl;
import static org.assertj.core.api.Assertions.assertThat;

/** The TCP rendezvous when everything goes right, and argument checking. */
@Tag("integration")
class TcpRendezvousTest {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void ranksJoiningInRandomOrderGatherSeveralRounds(int n) throws Exception {
        int rounds = 3;
        Random random = new Random(1000 + n);
        long[] delaysMs = random.longs(n, 0, 40).toArray();
        try (TestRendezvous rv = TestRendezvous.start()) {
            List<CompletableFuture<List<byte[][]>>> ranks = Ranks.run(n, rank -> {
                sleep(delaysMs[rank]);
                List<byte[][]> tables = new ArrayList<>();
                try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, rank, n, TIMEOUT)) {
                    assertThat(bootstrap.rank()).isEqualTo(rank);
                    assertThat(bootstrap.size()).isEqualTo(n);
                    for (int round = 0; round < rounds; round++) {
                        tables.add(bootstrap.allGather(payload(rank, round, (rank * 37 + round * 11) % 100)));
                    }
                }
                return tables;
            });

            for (List<byte[][]> tables : Ranks.awaitAll(ranks)) {
                for (int round = 0; round < rounds; round++) {
                    assertThat(tables.get(round)).hasNumberOfRows(n);
                    for (int rank = 0; rank < n; rank++) {
                        assertThat(tables.get(round)[rank]).isEqualTo(payload(rank, round,
                                (rank * 37 + round * 11) % 100));
                    }
                }
            }
            rv.assertTerminates();
        }
    }

    @Test
    void largePayloadsOfSeveralMebibytes() throws Exception {
        int n = 4;
        int sizeBytes = 3 << 20;
        try (TestRendezvous rv = TestRendezvous.start()) {
            List<CompletableFuture<Boolean>> ranks = rv.runJoined(n, (rank, bootstrap) -> {
                for (int round = 0; round < 2; round++) {
                    byte[][] table = bootstrap.allGather(payload(rank, round, sizeBytes));
                    for (int r = 0; r < n; r++) {
                        assertThat(Arrays.equals(table[r], payload(r, round, sizeBytes)))
                                .as("rank %d's entry in round %d", r, round).isTrue();
                    }
                }
                return true;
            });

            assertThat(Ranks.awaitAll(ranks)).containsOnly(true);
            rv.assertTerminates();
        }
    }

    @Test
    void theLargestAllowedPayloadPasses() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start();
             TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, 0, 1, TIMEOUT)) {
            byte[] max = new byte[RendezvousProtocol.MAX_PAYLOAD_BYTES];
            max[max.length - 1] = 42;

            assertThat(bootstrap.allGather(max)[0]).hasSize(max.length).endsWith(42);
        }
    }

    @Test
    void aLateRankIsWaitedForWithoutADeadlineOnTheServer() throws Exception {
        int n = 3;
        try (TestRendezvous rv = TestRendezvous.start(Duration.ofMillis(300))) {
            List<CompletableFuture<byte[][]>> early = Ranks.run(2, rank -> {
                try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, rank, n, TIMEOUT)) {
                    return bootstrap.allGather(payload(rank, 0, 8));
                }
            });
            sleep(700); // longer than the server's handshake timeout: joined ranks are not subject to it
            byte[][] late;
            try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, 2, n, TIMEOUT)) {
                late = bootstrap.allGather(payload(2, 0, 8));
            }

            for (byte[][] table : List.of(late, Ranks.await(early.get(0)), Ranks.await(early.get(1)))) {
                assertThat(table).isDeepEqualTo(new byte[][] {payload(0, 0, 8), payload(1, 0, 8), payload(2, 0, 8)});
            }
            rv.assertTerminates();
        }
    }

    @Test
    void aRankThatStartsBeforeTheRootRetriesUntilItIsUp() throws Exception {
        int port = TestRendezvous.unusedPort();
        byte[] secret = TestRendezvous.randomSecret();
        UniqueId id = UniqueId.of(new InetSocketAddress(TestRendezvous.LOOPBACK, port), secret);
        CompletableFuture<byte[][]> rank = Ranks.async("early", () -> {
            try (TcpBootstrap bootstrap = TcpBootstrap.join(id, 0, 1, TIMEOUT)) {
                return bootstrap.allGather(new byte[] {5});
            }
        });
        sleep(200);
        RendezvousServer server = RendezvousServer.start(new InetSocketAddress(TestRendezvous.LOOPBACK, port), secret,
                RendezvousServer.DEFAULT_HANDSHAKE_TIMEOUT);

        assertThat(Ranks.await(rank)).isDeepEqualTo(new byte[][] {{5}});
        assertThat(server.awaitTermination(Duration.ofSeconds(30))).isTrue();
    }

    @Test
    void zeroRoundsThenGoodbyeCompletesTheRendezvous() throws Exception {
        try (TestRendezvous rv = TestRendezvous.start()) {
            Ranks.awaitAll(Ranks.run(3, rank -> {
                TcpBootstrap.join(rv.id, rank, 3, TIMEOUT).close();
                return true;
            }));
            rv.assertTerminates();
        }
    }

    @Test
    void emptyPayloadsAreFine() {
        try (TestRendezvous rv = TestRendezvous.start()) {
            List<byte[][]> tables = Ranks.awaitAll(Ranks.run(2, rank -> {
                try (TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, rank, 2, TIMEOUT)) {
                    return bootstrap.allGather(new byte[0]);
                }
            }));
            assertThat(tables).allSatisfy(t -> assertThat(t).isDeepEqualTo(new byte[][] {{}, {}}));
        }
    }

    @Test
    void joinValidatesItsArguments() {
        try (TestRendezvous rv = TestRendezvous.start()) {
            assertInvalid(() -> TcpBootstrap.join(null, 0, 1, TIMEOUT), "unique id is null");
            assertInvalid(() -> TcpBootstrap.join(rv.id, 0, 0, TIMEOUT), "size 0 must be at least 1");
            assertInvalid(() -> TcpBootstrap.join(rv.id, -1, 2, TIMEOUT), "rank -1 is out of range [0, 2)");
            assertInvalid(() -> TcpBootstrap.join(rv.id, 2, 2, TIMEOUT), "rank 2 is out of range [0, 2)");
            assertInvalid(() -> TcpBootstrap.join(rv.id, 0, 1, null), "timeout null must be positive");
            assertInvalid(() -> TcpBootstrap.join(rv.id, 0, 1, Duration.ZERO), "must be positive");
            assertInvalid(() -> TcpBootstrap.join(rv.id, 0, 1, Duration.ofMillis(-5)), "must be positive");
        }
    }

    @Test
    void allGatherValidatesItsArgumentAndFailsAfterClose() {
        try (TestRendezvous rv = TestRendezvous.start()) {
            TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, 0, 1, TIMEOUT);
            assertInvalid(() -> bootstrap.allGather(null), "contribution is null");
            assertInvalid(() -> bootstrap.allGather(new byte[RendezvousProtocol.MAX_PAYLOAD_BYTES + 1]),
                    "exceeds the limit of 16777216 bytes");
            assertThat(bootstrap.allGather(new byte[] {1})).isDeepEqualTo(new byte[][] {{1}});
            bootstrap.close();
            bootstrap.close();

            assertThrowsJccl(() -> bootstrap.allGather(new byte[0]), ErrorCode.INVALID_USAGE, "rank 0 is closed");
        }
    }

    @Test
    void serverStartValidatesItsArguments() {
        byte[] secret = TestRendezvous.randomSecret();
        InetSocketAddress any = new InetSocketAddress(TestRendezvous.LOOPBACK, 0);
        assertInvalid(() -> RendezvousServer.start(null, secret), "bind address null");
        assertInvalid(() -> RendezvousServer.start(InetSocketAddress.createUnresolved("example.com", 0), secret,
                Duration.ofSeconds(1)), "unresolved");
        assertInvalid(() -> RendezvousServer.start(TestRendezvous.LOOPBACK, new byte[16]), "must be 32 bytes, got 16");
        assertInvalid(() -> RendezvousServer.start(TestRendezvous.LOOPBACK, null), "got null");
        assertInvalid(() -> RendezvousServer.start(any, secret, Duration.ZERO), "must be positive");
        assertInvalid(() -> RendezvousServer.start(any, secret, null), "must be positive");
    }

    @Test
    void aLargeTimeoutDoesNotOverflow() {
        try (TestRendezvous rv = TestRendezvous.start();
             TcpBootstrap bootstrap = TcpBootstrap.join(rv.id, 0, 1, Duration.ofSeconds(Long.MAX_VALUE))) {
            assertThat(bootstrap.allGather(new byte[] {3})).isDeepEqualTo(new byte[][] {{3}});
        }
    }

    static byte[] payload(int rank, int round, int sizeBytes) {
        ByteBuffer buffer = ByteBuffer.allocate(sizeBytes);
        int seed = rank * 1_000_003 + round * 7919;
        while (buffer.remaining() >= 4) {
            buffer.putInt(seed++);
        }
        while (buffer.hasRemaining()) {
            buffer.put((byte) rank);
        }
        return buffer.array();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static void assertInvalid(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String fragment) {
        assertThrowsJccl(call, ErrorCode.INVALID_ARGUMENT, fragment);
    }
}
