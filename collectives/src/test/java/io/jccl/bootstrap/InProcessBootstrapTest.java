package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.jccl.bootstrap.JcclFailures.assertFailed;
import static io.jccl.bootstrap.JcclFailures.assertThrowsJccl;
import static io.jccl.bootstrap.TcpRendezvousTest.assertInvalid;
import static io.jccl.bootstrap.TcpRendezvousTest.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Tag("integration")
class InProcessBootstrapTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void ranksGatherSeveralRounds(int n) {
        int rounds = 4;
        List<Bootstrap> group = InProcessBootstrap.group(n, TIMEOUT);
        assertThat(group).hasSize(n);

        List<CompletableFuture<List<byte[][]>>> ranks = Ranks.run(n, rank -> {
            Bootstrap bootstrap = group.get(rank);
            assertThat(bootstrap.rank()).isEqualTo(rank);
            assertThat(bootstrap.size()).isEqualTo(n);
            List<byte[][]> tables = new ArrayList<>();
            try (bootstrap) {
                for (int round = 0; round < rounds; round++) {
                    tables.add(bootstrap.allGather(payload(rank, round, 1 + (rank + round) % 7)));
                }
            }
            return tables;
        });

        for (List<byte[][]> tables : Ranks.awaitAll(ranks)) {
            for (int round = 0; round < rounds; round++) {
                for (int rank = 0; rank < n; rank++) {
                    assertThat(tables.get(round)[rank]).isEqualTo(payload(rank, round, 1 + (rank + round) % 7));
                }
            }
        }
    }

    @Test
    void ranksNeverShareArrays() {
        List<Bootstrap> group = InProcessBootstrap.group(2, TIMEOUT);
        byte[] mine = {1};
        CompletableFuture<byte[][]> other = Ranks.async("rank-1", () -> group.get(1).allGather(new byte[] {2}));

        byte[][] table = group.get(0).allGather(mine);
        mine[0] = 99;
        table[1][0] = 77;

        assertThat(table[0]).containsExactly(1);
        assertThat(Ranks.await(other)).isDeepEqualTo(new byte[][] {{1}, {2}});
    }

    @Test
    void aRankThatNeverArrivesTimesOutNamingIt() {
        List<Bootstrap> group = InProcessBootstrap.group(3, Duration.ofMillis(200));

        assertThrowsJccl(() -> group.get(0).allGather(new byte[] {0}), ErrorCode.TIMEOUT,
                "rank 0 waited 200 ms at the in-process rendezvous for ranks [1, 2] in all-gather round 0");
        assertThrowsJccl(() -> group.get(0).allGather(new byte[] {0}), ErrorCode.TIMEOUT,
                "an earlier rendezvous call of rank 0 failed");
        // Rank 0 gave up, which fails the group: rank 1 is told instead of waiting in vain.
        assertThrowsJccl(() -> group.get(1).allGather(new byte[] {1}), ErrorCode.REMOTE_ERROR,
                "rank 0 left the rendezvous: it gave up: rank 0 waited 200 ms");
    }

    @Test
    void aClosedRankMakesTheOthersFailInsteadOfWaiting() {
        List<Bootstrap> group = InProcessBootstrap.group(3, TIMEOUT);
        List<CompletableFuture<byte[][]>> waiting = Ranks.run(2, rank -> group.get(rank).allGather(new byte[] {1}));

        group.get(2).close();

        for (CompletableFuture<byte[][]> rank : waiting) {
            assertFailed(rank, ErrorCode.REMOTE_ERROR, "rank 2 left the rendezvous after 0 all-gather rounds");
        }
    }

    @Test
    void aRankThatClosesAfterItsRoundsOnlyFailsLaterRounds() {
        List<Bootstrap> group = InProcessBootstrap.group(2, TIMEOUT);
        CompletableFuture<byte[][]> rank1 = Ranks.async("rank-1", () -> {
            try (Bootstrap b = group.get(1)) {
                return b.allGather(new byte[] {1});
            }
        });

        assertThat(group.get(0).allGather(new byte[] {0})).isDeepEqualTo(new byte[][] {{0}, {1}});
        Ranks.await(rank1);
        assertThrowsJccl(() -> group.get(0).allGather(new byte[] {0}), ErrorCode.REMOTE_ERROR,
                "rank 1 left the rendezvous after 1 all-gather rounds");
    }

    @Test
    void closingFromAnotherThreadAbortsAWaitingCall() {
        List<Bootstrap> group = InProcessBootstrap.group(2, TIMEOUT);
        CompletableFuture<byte[][]> waiting = Ranks.async("rank-0", () -> group.get(0).allGather(new byte[] {0}));
        TcpRendezvousTest.sleep(50);

        group.get(0).close();

        assertThat(Ranks.failure(waiting).code()).isIn(ErrorCode.ABORTED, ErrorCode.INVALID_USAGE);
    }

    @Test
    void aClosedRankCannotGatherAndCloseIsIdempotent() {
        List<Bootstrap> group = InProcessBootstrap.group(1, TIMEOUT);
        Bootstrap only = group.getFirst();
        assertThat(only.allGather(new byte[] {4})).isDeepEqualTo(new byte[][] {{4}});
        only.close();
        only.close();

        assertThatThrownBy(() -> only.allGather(new byte[0])).isInstanceOfSatisfying(JcclException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_USAGE));
    }

    @Test
    void argumentsAreValidated() {
        assertInvalid(() -> InProcessBootstrap.group(0, TIMEOUT), "must be at least 1");
        assertInvalid(() -> InProcessBootstrap.group(2, Duration.ZERO), "must be positive");
        assertInvalid(() -> InProcessBootstrap.group(2, null), "must be positive");
        Bootstrap only = InProcessBootstrap.group(1, TIMEOUT).getFirst();
        assertInvalid(() -> only.allGather(null), "contribution is null");
        assertInvalid(() -> only.allGather(new byte[RendezvousProtocol.MAX_PAYLOAD_BYTES + 1]), "exceeds the limit");
    }
}
