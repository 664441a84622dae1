package io.jccl.testing;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.check.CheckBuffers;
import io.jccl.check.CollectiveCalls;
import io.jccl.check.CollectiveCheck;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Runs one collective on every rank of a set of communicators with checked inputs, then verifies every
 * rank's output exactly and that no byte around the buffers changed.
 */
public final class CollectiveRun {
    private static final ThreadLocal<GuardedBuffers[]> BUFFERS = new ThreadLocal<>();
    private static final ThreadLocal<CheckBuffers> CHECK_BUFFERS = ThreadLocal.withInitial(CheckBuffers::new);

    private CollectiveRun() {
    }

    /** nccl-tests' convention: {@code size} counts the elements of the largest buffer. */
    public static long countFor(OpKind kind, long size, int n) {
        return switch (kind) {
            case ALL_GATHER, GATHER, REDUCE_SCATTER, SCATTER, ALL_TO_ALL, ALL_TO_ALLV ->
                    size == 0 ? 0 : Math.max(1, size / n);
            default -> size;
        };
    }

    public static boolean supportsInPlace(OpKind kind) {
        return kind != OpKind.ALL_TO_ALL && kind != OpKind.ALL_TO_ALLV && kind != OpKind.P2P;
    }

    private static GuardedBuffers buffers(int rank) {
        GuardedBuffers[] b = BUFFERS.get();
        if (b == null || b.length <= rank) {
            GuardedBuffers[] nb = new GuardedBuffers[Math.max(rank + 1, 8)];
            if (b != null) {
                System.arraycopy(b, 0, nb, 0, b.length);
            }
            b = nb;
            BUFFERS.set(b);
        }
        if (b[rank] == null) {
            b[rank] = new GuardedBuffers();
        }
        return b[rank];
    }

    public static void run(List<Communicator> comms, OpKind kind, DataType type, ReduceOp.Kind op, long size,
                           boolean inPlace, long seed) {
        int n = comms.size();
        long count = countFor(kind, size, n);
        int root = (int) (Math.floorMod(seed, n));
        CollectiveCheck check = new CollectiveCheck(kind, type, op, n, count, root, seed, CHECK_BUFFERS.get());
        int es = type.sizeBytes();
        MemorySegment[] send = new MemorySegment[n];
        MemorySegment[] recv = new MemorySegment[n];
        MemorySegment[] guarded = new MemorySegment[2 * n];
        for (int r = 0; r < n; r++) {
            long sendBytes = check.sendElements(r) * es;
            long recvBytes = check.recvElements(r) * es;
            GuardedBuffers gb = buffers(r);
            boolean rootOnly = kind == OpKind.BROADCAST || kind == OpKind.REDUCE || kind == OpKind.GATHER
                    || kind == OpKind.SCATTER;
            boolean inPlaceHere = inPlace && (!rootOnly || r == root);
            if (inPlaceHere && (kind == OpKind.REDUCE_SCATTER || kind == OpKind.SCATTER)) {
                // recv is block `rank` of send.
                send[r] = gb.region(0, sendBytes, r);
                guarded[2 * r] = send[r];
                recv[r] = send[r].asSlice((long) r * count * es, count * es);
            } else if (inPlaceHere) {
                recv[r] = gb.region(0, recvBytes, r);
                guarded[2 * r] = recv[r];
                long at = kind == OpKind.ALL_GATHER || kind == OpKind.GATHER ? (long) r * count * es : 0;
                send[r] = recv[r].asSlice(at, sendBytes);
            } else {
                recv[r] = check.recvElements(r) > 0 || !rootOnly ? gb.region(0, recvBytes, r) : null;
                send[r] = check.sendElements(r) > 0 || !rootOnly ? gb.region(1, sendBytes, r + 1) : null;
                guarded[2 * r] = recv[r];
                guarded[2 * r + 1] = send[r];
            }
            if (recv[r] != null && !(inPlaceHere && (kind == OpKind.REDUCE_SCATTER || kind == OpKind.SCATTER))) {
                recv[r].fill((byte) 0xCD);
            }
            if (send[r] != null) {
                check.fillSend(r, send[r]);
            }
        }
        List<CollectiveFuture> futures = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            futures.add(CollectiveCalls.issue(comms.get(r), check, Buffer.of(send[r]), Buffer.of(recv[r])));
        }
        String what = kind + " " + type + (op == null ? "" : " " + op) + " size=" + size + " count=" + count
                + " n=" + n + (inPlace ? " in-place" : "") + " root=" + root + " seed=" + seed;
        for (CollectiveFuture f : futures) {
            if (!f.await(Duration.ofSeconds(120))) {
                fail("timed out: " + what);
            }
        }
        for (int r = 0; r < n; r++) {
            if (check.recvElements(r) > 0) {
                String mismatch = check.firstMismatch(r, recv[r]);
                if (mismatch != null) {
                    fail(what + ": " + check.countWrong(r, recv[r]) + " wrong elements; first: " + mismatch);
                }
            }
            for (int k = 0; k < 2; k++) {
                MemorySegment g = guarded[2 * r + k];
                if (g != null) {
                    assertThat(GuardedBuffers.guardsIntact(g)).as("bytes around rank %d's buffer untouched: %s", r,
                            what)
                            .isTrue();
                }
            }
        }
    }
}
