package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.assertCodeAndMessage;
import static io.jccl.api.CommAssertions.awaitFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operation timeout ({@code opTimeout(500 ms)}): an operation whose peers never join fails with TIMEOUT
 * naming the ranks it waited for, the peers learn (REMOTE_ERROR), {@code asyncError()} reports it, and later
 * operations fail at once. Only codes and messages are asserted, never durations.
 */
class TimeoutTest {
    private static final Duration OP_TIMEOUT = Duration.ofMillis(500);
    @RegisterExtension
    final LocalRanks ranks = new LocalRanks();

    private List<Communicator> local(int n) {
        return ranks.start(n, OP_TIMEOUT);
    }

    private MemorySegment buf() {
        return ranks.buffer();
    }

    @Test
    void collectiveWhosePeerNeverJoinsTimesOut() {
        List<Communicator> c = local(2);
        CollectiveFuture f = c.get(0).allReduce(Buffer.of(buf()), Buffer.of(buf()), 100, FLOAT32, SUM);
        JcclException e = awaitFailure(f, ErrorCode.TIMEOUT, "allReduce", "rank 0", "500 ms", "waiting for",
                "[1]");
        assertThat(c.get(0).asyncError().orElseThrow().code()).isEqualTo(ErrorCode.TIMEOUT);
        // The peer learns, although it never issued anything.
        JcclException peer = MismatchTest.awaitAsyncError(c.get(1));
        assertCodeAndMessage(peer, ErrorCode.REMOTE_ERROR, "rank 0", "TIMEOUT");
        // Later operations fail fast with the same code, on both ranks.
        awaitFailure(c.get(0).barrier(), ErrorCode.TIMEOUT, "failed earlier");
        awaitFailure(c.get(1).allReduce(Buffer.of(buf()), Buffer.of(buf()), 100, FLOAT32, SUM), ErrorCode.REMOTE_ERROR,
                "rank 0");
        assertThat(e.detail()).doesNotContain("local work");
    }

    @Test
    void receiveNamesTheRankItWaitsFor() {
        List<Communicator> c = local(3);
        CollectiveFuture f = c.get(0).recv(Buffer.of(buf()), 10, FLOAT32, 2);
        awaitFailure(f, ErrorCode.TIMEOUT, "recv(count=10, FLOAT32, peer=2)", "data from ranks [2]");
        for (int r = 1; r < 3; r++) {
            assertCodeAndMessage(MismatchTest.awaitAsyncError(c.get(r)), ErrorCode.REMOTE_ERROR, "rank 0 failed",
                    "TIMEOUT");
        }
    }

    @Test
    void sendNobodyTakesNamesTheRank() {
        List<Communicator> c = local(2);
        // In the in-JVM transport a send completes when the receiver takes it.
        CollectiveFuture f = c.get(0).send(Buffer.of(buf()), 10, FLOAT32, 1);
        awaitFailure(f, ErrorCode.TIMEOUT, "send(count=10, FLOAT32, peer=1)", "ranks [1] to take data");
    }

    @Test
    void partOfTheRanksJoinTheOthersTimeOutOrLearn() {
        List<Communicator> c = local(3);
        CollectiveFuture f0 = c.get(0).allReduce(Buffer.of(buf()), Buffer.of(buf()), 1000, FLOAT32, SUM);
        CollectiveFuture f1 = c.get(1).allReduce(Buffer.of(buf()), Buffer.of(buf()), 1000, FLOAT32, SUM);
        JcclException e0 = awaitFailure(f0);
        JcclException e1 = awaitFailure(f1);
        // Whichever times out first tells the other; at least one is the timeout itself.
        assertThat(List.of(e0.code(), e1.code())).contains(ErrorCode.TIMEOUT);
        for (JcclException e : List.of(e0, e1)) {
            assertThat(e.code()).isIn(ErrorCode.TIMEOUT, ErrorCode.REMOTE_ERROR);
            assertThat(e.detail()).contains("did not complete within 500 ms");
        }
        assertCodeAndMessage(MismatchTest.awaitAsyncError(c.get(2)), ErrorCode.REMOTE_ERROR, "TIMEOUT");
        awaitFailure(c.get(2).barrier(), ErrorCode.REMOTE_ERROR);
    }

    @Test
    void timeoutCountsFromTheStartNotFromTheIssue() {
        // Ten quick all-reduces queued at once each get their own 500 ms once they start.
        List<Communicator> c = local(2);
        for (int round = 0; round < 3; round++) {
            List<CollectiveFuture> fs = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                for (Communicator comm : c) {
                    fs.add(comm.allReduce(Buffer.of(buf()), Buffer.of(buf()), 256, FLOAT32, SUM));
                }
            }
            CommAssertions.awaitAll(fs);
        }
        CommAssertions.assertAllReduceWorks(c, 10);
    }

    @Test
    void groupTimesOutToo() {
        List<Communicator> c = local(2);
        CollectiveFuture member = c.get(0).group(g -> {
            g.send(Buffer.of(buf()), 10, FLOAT32, 1);
            g.recv(Buffer.of(buf()), 10, FLOAT32, 1);
        });
        awaitFailure(member, ErrorCode.TIMEOUT, "group of 2 operations", "send(count=10, FLOAT32, peer=1)", "ranks [1]");
    }
}
