package io.jccl.api;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static io.jccl.DataType.FLOAT32;
import static io.jccl.DataType.INT32;
import static io.jccl.DataType.INT64;
import static io.jccl.ReduceOp.SUM;
import static io.jccl.api.CommAssertions.HANG;
import static io.jccl.api.CommAssertions.assertCodeAndMessage;
import static io.jccl.api.CommAssertions.assertThrowsJccl;
import static io.jccl.api.CommAssertions.awaitAll;
import static io.jccl.api.CommAssertions.awaitFailure;
import static io.jccl.api.CommAssertions.awaitSuccess;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Groups: send/receive patterns that would deadlock alone, many messages to one peer (matched in order),
 * sends to self, collectives inside groups, nesting, misuse (groupEnd without start, other threads, split),
 * empty groups, and a group body that throws.
 */
class GroupTest {
    @RegisterExtension
    final LocalRanks ranks = new LocalRanks();
    private List<Communicator> comms;
    private Arena arena;

    @BeforeEach
    void setUp() {
        comms = ranks.start(3, Duration.ofSeconds(20));
        arena = ranks.arena();
    }

    /** {@code n} ints v, v+1, ... */
    private MemorySegment ints(int n, int v) {
        MemorySegment s = arena.allocate(4L * n);
        for (int i = 0; i < n; i++) {
            s.setAtIndex(ValueLayout.JAVA_INT, i, v + i);
        }
        return s;
    }

    private static void assertInts(MemorySegment s, int n, int v) {
        for (int i = 0; i < n; i++) {
            assertThat(s.getAtIndex(ValueLayout.JAVA_INT, i)).as("element %d", i).isEqualTo(v + i);
        }
    }

    private List<CollectiveFuture> onAll(java.util.function.Function<Communicator, CollectiveFuture> f) {
        List<CollectiveFuture> fs = new ArrayList<>();
        for (Communicator c : comms) {
            fs.add(f.apply(c));
        }
        return fs;
    }

    @Test
    void everyRankSendsFirstThenReceives() {
        // Each rank sends 64 KiB to both others, then receives from both: in a group this cannot deadlock.
        int n = 16 << 10;
        MemorySegment[][] in = new MemorySegment[3][3];
        List<CollectiveFuture> fs = onAll(c -> c.group(g -> {
            int r = c.rank();
            for (int p = 0; p < 3; p++) {
                if (p != r) {
                    g.send(Buffer.of(ints(n, 1000 * r + p)), n, INT32, p);
                }
            }
            for (int p = 0; p < 3; p++) {
                if (p != r) {
                    in[r][p] = arena.allocate(4L * n);
                    g.recv(Buffer.of(in[r][p]), n, INT32, p);
                }
            }
        }));
        awaitAll(fs);
        for (int r = 0; r < 3; r++) {
            for (int p = 0; p < 3; p++) {
                if (p != r) {
                    assertInts(in[r][p], n, 1000 * p + r);
                }
            }
        }
    }

    @Test
    void receivesFirstThenSendsAndMixedOrders() {
        MemorySegment got0 = arena.allocate(400);
        MemorySegment got1 = arena.allocate(400);
        CollectiveFuture f0 = comms.get(0).group(g -> {
            g.recv(Buffer.of(got0), 100, INT32, 1);
            g.send(Buffer.of(ints(100, 5)), 100, INT32, 1);
        });
        CollectiveFuture f1 = comms.get(1).group(g -> {
            g.send(Buffer.of(ints(100, 7)), 100, INT32, 0);
            g.recv(Buffer.of(got1), 100, INT32, 0);
        });
        awaitAll(List.of(f0, f1));
        assertInts(got0, 100, 7);
        assertInts(got1, 100, 5);
    }

    @Test
    void manyMessagesToOnePeerMatchInIssueOrder() {
        int messages = 40;
        MemorySegment[] got = new MemorySegment[messages];
        List<CollectiveFuture> members = new ArrayList<>();
        CollectiveFuture sender = comms.get(0).group(g -> {
            for (int i = 0; i < messages; i++) {
                members.add(g.send(Buffer.of(ints(i + 1, 100 * i)), i + 1, INT32, 2));
            }
        });
        CollectiveFuture receiver = comms.get(2).group(g -> {
            for (int i = 0; i < messages; i++) {
                got[i] = arena.allocate(4L * (i + 1));
                members.add(g.recv(Buffer.of(got[i]), i + 1, INT32, 0));
            }
        });
        awaitAll(List.of(sender, receiver));
        for (CollectiveFuture m : members) {
            assertThat(m.isDone()).as("each member completes with its group").isTrue();
            assertThat(m.error()).isEmpty();
        }
        for (int i = 0; i < messages; i++) {
            assertInts(got[i], i + 1, 100 * i);
        }
    }

    @Test
    void sendsToSelfMatchReceivesFromSelfInOrder() {
        MemorySegment a = arena.allocate(40);
        MemorySegment b = arena.allocate(80);
        MemorySegment fromPeer = arena.allocate(40);
        CollectiveFuture f0 = comms.get(0).group(g -> {
            g.recv(Buffer.of(a), 10, INT32, 0);
            g.send(Buffer.of(ints(10, 1)), 10, INT32, 0);
            g.send(Buffer.of(ints(20, 50)), 20, INT32, 0);
            g.recv(Buffer.of(b), 20, INT32, 0);
            g.send(Buffer.of(ints(10, 9)), 10, INT32, 1);
        });
        CollectiveFuture f1 = comms.get(1).group(g -> g.recv(Buffer.of(fromPeer), 10, INT32, 0));
        awaitAll(List.of(f0, f1));
        assertInts(a, 10, 1);
        assertInts(b, 20, 50);
        assertInts(fromPeer, 10, 9);
    }

    @Test
    void selfSendAndReceiveWithDifferentCountsIsRefusedAtGroupEnd() {
        MemorySegment r = arena.allocate(400);
        r.fill((byte) 0x33);
        comms.get(0).groupStart();
        CollectiveFuture member = comms.get(0).send(Buffer.of(ints(10, 1)), 10, INT32, 0);
        comms.get(0).recv(Buffer.of(r), 12, INT32, 0);
        JcclException e = assertThrows(JcclException.class, () -> comms.get(0).groupEnd());
        assertCodeAndMessage(e, ErrorCode.INVALID_USAGE, "send to self", "count=10", "count=12", "nothing in the group");
        awaitFailure(member, ErrorCode.INVALID_USAGE);
        for (long i = 0; i < r.byteSize(); i++) {
            assertThat(r.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x33);
        }
        assertStillWorks();
    }

    @Test
    void selfSendWithoutReceiveIsRefusedAtGroupEnd() {
        assertGroupRefusedAndHarmless(1, g -> {
            g.send(Buffer.of(ints(4, 1)), 4, INT32, 1);
            g.send(Buffer.of(ints(4, 1)), 4, INT32, 1);
            g.recv(Buffer.of(arena.allocate(16)), 4, INT32, 1);
        }, "2 sends to this rank (1)", "1 receives");
    }

    @Test
    void selfReceiveWithoutSendIsRefusedAtGroupEnd() {
        MemorySegment x = arena.allocate(16);
        assertGroupRefusedAndHarmless(2, g -> g.recv(Buffer.of(x), 2, INT64, 2), "0 sends", "1 receives");
    }

    @Test
    void selfSendOfDifferentTypeIsRefusedAtGroupEnd() {
        assertGroupRefusedAndHarmless(0, g -> {
            g.send(Buffer.of(ints(4, 1)), 4, INT32, 0);
            g.recv(Buffer.of(arena.allocate(16)), 4, FLOAT32, 0);
        }, "INT32", "FLOAT32");
    }

    /** Rank {@code rank}'s group fails with INVALID_USAGE naming {@code fragments}, and leaves the ranks usable. */
    private void assertGroupRefusedAndHarmless(int rank, Consumer<Communicator> body, String... fragments) {
        JcclException e = assertThrows(JcclException.class, () -> comms.get(rank).group(body));
        assertCodeAndMessage(e, ErrorCode.INVALID_USAGE, fragments);
        assertStillWorks();
    }

    @Test
    void waitingForAMemberOfTheOpenGroupIsRefusedInsteadOfHanging() {
        comms.get(0).groupStart();
        CollectiveFuture member = comms.get(0).send(Buffer.of(ints(4, 1)), 4, INT32, 0);
        comms.get(0).recv(Buffer.of(arena.allocate(16)), 4, INT32, 0);
        JcclException e = assertThrows(JcclException.class, member::await);
        assertCodeAndMessage(e, ErrorCode.INVALID_USAGE, "groupEnd()");
        comms.get(0).groupEnd().await();
        member.await();
    }

    /** The communicators are healthy: an all-reduce on every rank gives the exact sum. */
    private void assertStillWorks() {
        List<CollectiveFuture> fs = new java.util.ArrayList<>();
        MemorySegment[] bufs = new MemorySegment[comms.size()];
        for (int r = 0; r < comms.size(); r++) {
            bufs[r] = ints(3, r + 1);
            fs.add(comms.get(r).allReduce(Buffer.of(bufs[r]), Buffer.of(bufs[r]), 3, INT32, io.jccl.ReduceOp.SUM));
        }
        awaitAll(fs);
        int n = comms.size();
        for (MemorySegment b : bufs) {
            for (int i = 0; i < 3; i++) {   // sum over ranks r of (r + 1 + i)
                assertThat(b.getAtIndex(ValueLayout.JAVA_INT, i)).isEqualTo(n * (n + 1) / 2 + n * i);
            }
        }
    }

    @Test
    void collectivesInsideAGroupRunInOrderBeforeItsSendsAndReceives() {
        MemorySegment[] sum = new MemorySegment[3];
        MemorySegment[] bcast = new MemorySegment[3];
        MemorySegment[] ring = new MemorySegment[3];
        List<List<CollectiveFuture>> members = new ArrayList<>();
        List<CollectiveFuture> groups = onAll(c -> {
            int r = c.rank();
            sum[r] = arena.allocate(400);
            bcast[r] = r == 1 ? ints(50, 77) : arena.allocate(200);
            ring[r] = arena.allocate(40);
            List<CollectiveFuture> mine = new ArrayList<>();
            members.add(mine);
            return c.group(g -> {
                mine.add(g.recv(Buffer.of(ring[r]), 10, INT32, (r + 2) % 3));
                mine.add(g.allReduce(Buffer.of(ints(100, r)), Buffer.of(sum[r]), 100, INT32, SUM));
                mine.add(g.send(Buffer.of(ints(10, 10 * r)), 10, INT32, (r + 1) % 3));
                mine.add(g.broadcast(Buffer.of(bcast[r]), 50, INT32, 1));
                mine.add(g.barrier());
            });
        });
        awaitAll(groups);
        for (int r = 0; r < 3; r++) {
            for (int i = 0; i < 100; i++) {
                assertThat(sum[r].getAtIndex(ValueLayout.JAVA_INT, i)).isEqualTo(3 * i + 3);
            }
            assertInts(bcast[r], 50, 77);
            assertInts(ring[r], 10, 10 * ((r + 2) % 3));
            assertThat(members.get(r)).allSatisfy(m -> assertThat(m.isDone()).isTrue());
        }
        CommAssertions.assertAllReduceWorks(comms, 7);
    }

    @Test
    void nestedGroupsLaunchAtTheOutermostEnd() {
        MemorySegment got = arena.allocate(40);
        Communicator c0 = comms.get(0);
        c0.groupStart();
        c0.groupStart();
        CollectiveFuture send = c0.send(Buffer.of(ints(10, 3)), 10, INT32, 1);
        CollectiveFuture inner = c0.groupEnd();
        assertThat(inner.isDone()).as("an inner end launches nothing and returns a completed future").isTrue();
        c0.groupStart();
        CollectiveFuture recv = c0.recv(Buffer.of(got), 10, INT32, 1);
        c0.groupEnd();
        CollectiveFuture peer = comms.get(1).group(g -> {
            g.send(Buffer.of(ints(10, 4)), 10, INT32, 0);
            g.recv(Buffer.of(arena.allocate(40)), 10, INT32, 0);
        });
        assertThat(send.isDone()).as("not launched before the outermost end").isFalse();
        CollectiveFuture outer = c0.groupEnd();
        awaitAll(List.of(outer, peer, send, recv));
        assertInts(got, 10, 4);
    }

    @Test
    void groupEndWithoutStartIsInvalidUsage() {
        assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> comms.get(0).groupEnd(), "groupEnd", "groupStart");
        comms.get(0).groupStart();
        comms.get(0).groupEnd();
        assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> comms.get(0).groupEnd(), "groupEnd");
        CommAssertions.assertAllReduceWorks(comms, 3);
    }

    @Test
    void emptyGroupsCompleteAtOnce() {
        Communicator c = comms.get(2);
        c.groupStart();
        assertThat(c.groupEnd().isDone()).isTrue();
        c.groupStart();
        c.groupStart();
        assertThat(c.groupEnd().isDone()).isTrue();
        assertThat(c.groupEnd().isDone()).isTrue();
        CollectiveFuture f = c.group(g -> { });
        awaitSuccess(f);
        assertThat(f.error()).isEmpty();
        CommAssertions.assertAllReduceWorks(comms, 3);
    }

    @Test
    void otherThreadsAreRefusedWhileAGroupIsOpen() throws Exception {
        Communicator c0 = comms.get(0);
        c0.groupStart();
        MemorySegment buf = arena.allocate(400);
        CompletableFuture<List<JcclException>> other = CompletableFuture.supplyAsync(() -> {
            List<JcclException> refusals = new ArrayList<>();
            List<CommAssertions.Call> calls = List.of(
                    () -> c0.allReduce(Buffer.of(buf), Buffer.of(buf), 10, INT32, SUM),
                    () -> c0.send(Buffer.of(buf), 10, INT32, 1),
                    c0::barrier,
                    c0::groupStart,
                    c0::groupEnd,
                    () -> c0.split(0, 0));
            for (CommAssertions.Call call : calls) {
                refusals.add(assertThrowsJccl(ErrorCode.INVALID_USAGE, call, "group"));
            }
            return refusals;
        }, CommAssertions.daemonPool());
        List<JcclException> refusals = other.get(HANG.toSeconds(), TimeUnit.SECONDS);
        assertThat(refusals.get(0).detail()).contains(Thread.currentThread().getName());
        CollectiveFuture g = c0.groupEnd();
        awaitSuccess(g);
        // Once the group is closed, other threads may issue again.
        CompletableFuture.runAsync(() -> CommAssertions.assertAllReduceWorks(comms, 5), CommAssertions.daemonPool())
                .get(HANG.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void splitInsideAGroupIsInvalidUsage() {
        Communicator c0 = comms.get(0);
        c0.groupStart();
        try {
            assertThrowsJccl(ErrorCode.INVALID_USAGE, () -> c0.split(0, 0), "split", "group");
        } finally {
            c0.groupEnd();
        }
        CommAssertions.assertAllReduceWorks(comms, 3);
    }

    @Test
    void aGroupWhoseBodyThrowsLaunchesNothing() {
        Communicator c0 = comms.get(0);
        List<CollectiveFuture> collected = new ArrayList<>();
        IllegalStateException boom = new IllegalStateException("boom");
        try {
            c0.group(g -> {
                collected.add(g.send(Buffer.of(ints(10, 1)), 10, INT32, 1));
                collected.add(g.allReduce(Buffer.of(ints(10, 1)), Buffer.of(arena.allocate(40)), 10, INT32, SUM));
                throw boom;
            });
        } catch (IllegalStateException e) {
            assertThat(e).isSameAs(boom);
        }
        for (CollectiveFuture f : collected) {
            assertCodeAndMessage(awaitFailure(f), ErrorCode.INVALID_USAGE, "not launched", "boom");
        }
        // An argument error inside the body: the same.
        CollectiveFuture[] first = new CollectiveFuture[1];
        assertThrowsJccl(ErrorCode.INVALID_ARGUMENT, () -> c0.group(g -> {
            first[0] = g.send(Buffer.of(ints(10, 1)), 10, INT32, 2);
            g.send(Buffer.of(ints(10, 1)), 10, INT32, 7);
        }), "peer 7");
        awaitFailure(first[0], ErrorCode.INVALID_USAGE, "not launched", "peer 7");
        // Nothing was launched, so the communicator is healthy and the peers are not waiting for anything.
        assertThat(c0.asyncError()).isEmpty();
        CommAssertions.assertAllReduceWorks(comms, 5);
    }

    @Test
    void anInnerGroupWhoseBodyThrowsCancelsTheOuterGroup() {
        Communicator c0 = comms.get(0);
        c0.groupStart();
        CollectiveFuture outerMember = c0.send(Buffer.of(ints(10, 1)), 10, INT32, 1);
        try {
            c0.group(g -> {
                throw new IllegalArgumentException("inner");
            });
        } catch (IllegalArgumentException expected) {
            // The group's own exception comes through.
        }
        assertThrowsJccl(ErrorCode.INVALID_USAGE, c0::groupEnd, "not launched", "inner");
        awaitFailure(outerMember, ErrorCode.INVALID_USAGE, "not launched");
        assertThrowsJccl(ErrorCode.INVALID_USAGE, c0::groupEnd, "groupStart");
        CommAssertions.assertAllReduceWorks(comms, 5);
    }

    @Test
    void groupEndOnAClosedCommunicatorFailsTheCollectedOperations() {
        Communicator c = Communicator.local(1).get(0);
        c.groupStart();
        CollectiveFuture member = c.allReduce(Buffer.of(ints(4, 1)), Buffer.of(arena.allocate(16)), 4, INT32, SUM);
        CompletableFuture.runAsync(c::close, CommAssertions.daemonPool()).join();
        assertThrowsJccl(ErrorCode.INVALID_USAGE, c::groupEnd, "closed");
        awaitFailure(member, ErrorCode.INVALID_USAGE, "closed");
    }
}
