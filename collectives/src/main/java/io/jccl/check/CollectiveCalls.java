package io.jccl.check;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * How checks call the public API: which collectives reduce, have a root or an in-place form, NCCL's in-place
 * buffer layout of each, and the one call that issues a {@link CollectiveCheck}'s collective on a rank. Shared by
 * the tests, {@code jccl selftest}, {@code jccl perf} and the random {@link Workload}.
 */
public final class CollectiveCalls {
    private CollectiveCalls() {
    }

    /**
     * A rank's buffers for one call; either may be null where the rank passes none (the non-root side of a rooted
     * collective).
     *
     * @param send what the call gets as its send buffer
     * @param recv what the call gets as its receive buffer
     */
    public record Placement(MemorySegment send, MemorySegment recv) {
    }

    /** @return whether the collective takes a reduction */
    public static boolean reducing(OpKind kind) {
        return kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
    }

    /** @return whether the collective has a root rank */
    public static boolean rooted(OpKind kind) {
        return kind == OpKind.BROADCAST || kind == OpKind.REDUCE || kind == OpKind.GATHER || kind == OpKind.SCATTER;
    }

    /** @return whether the API has an in-place form of the collective (all-to-all(v), send/recv, barrier: no) */
    public static boolean hasInPlaceForm(OpKind kind) {
        return switch (kind) {
            case ALL_REDUCE, BROADCAST, REDUCE, ALL_GATHER, REDUCE_SCATTER, GATHER, SCATTER -> true;
            default -> false;
        };
    }

    /**
     * NCCL's in-place layout of a collective on one rank: send and receive buffer are views of {@code buffer}
     * at the positions the API's in-place rule names (all-gather and gather: send is block {@code rank} of
     * recv; reduce-scatter and scatter: recv is block {@code rank} of send; the others: the same memory). A
     * rank outside the in-place form (a non-root of gather or scatter) gets its one buffer from {@code other};
     * a non-root of broadcast or reduce uses {@code buffer} for the one buffer it passes.
     *
     * @param kind   a collective with an in-place form
     * @param rank   this rank
     * @param nRanks ranks
     * @param root   the root of a rooted collective
     * @param count  the call's count
     * @param type   element type
     * @param buffer the in-place memory, at least {@code count * nRanks} elements for the gathering and
     *               scattering collectives, {@code count} for the others
     * @param other  memory for a non-root's buffer of gather and scatter (at least {@code count} elements)
     * @return the views to pass
     * @throws IllegalArgumentException when the collective has no in-place form
     */
    public static Placement inPlace(OpKind kind, int rank, int nRanks, int root, long count, DataType type,
                                    MemorySegment buffer, MemorySegment other) {
        long block = count * type.sizeBytes();
        return switch (kind) {
            case ALL_REDUCE -> new Placement(buffer.asSlice(0, block), buffer.asSlice(0, block));
            case BROADCAST -> new Placement(rank == root ? buffer.asSlice(0, block) : null, buffer.asSlice(0, block));
            case REDUCE -> new Placement(buffer.asSlice(0, block), rank == root ? buffer.asSlice(0, block) : null);
            case ALL_GATHER -> new Placement(buffer.asSlice(rank * block, block), buffer.asSlice(0, nRanks * block));
            case REDUCE_SCATTER -> new Placement(buffer.asSlice(0, nRanks * block), buffer.asSlice(rank * block, block));
            case GATHER -> rank == root
                    ? new Placement(buffer.asSlice(rank * block, block), buffer.asSlice(0, nRanks * block))
                    : new Placement(other.asSlice(0, block), null);
            case SCATTER -> rank == root
                    ? new Placement(buffer.asSlice(0, nRanks * block), buffer.asSlice(rank * block, block))
                    : new Placement(null, other.asSlice(0, block));
            default -> throw new IllegalArgumentException(kind.apiName() + " has no in-place form");
        };
    }

    /**
     * Issues the check's collective on one rank, non-blocking: send/recv ({@link OpKind#P2P}) as a group that
     * sends to rank+1 and receives from rank-1, all-to-allv with the check's per-peer counts, reductions with the
     * rank's {@link CollectiveCheck#opFor(int)}.
     *
     * @param comm  this rank's communicator
     * @param check the collective, its type, count, root and reduction
     * @param send  the send buffer (may be null where the rank passes none)
     * @param recv  the receive buffer (may be null where the rank passes none)
     * @return the call's future
     */
    public static CollectiveFuture issue(Communicator comm, CollectiveCheck check, Buffer send, Buffer recv) {
        Objects.requireNonNull(comm, "comm");
        int r = comm.rank();
        int n = comm.size();
        long count = check.count();
        DataType type = check.type();
        int root = check.root();
        return switch (check.kind()) {
            case ALL_REDUCE -> comm.allReduce(send, recv, count, type, check.opFor(r));
            case BROADCAST -> comm.broadcast(send, recv, count, type, root);
            case REDUCE -> comm.reduce(send, recv, count, type, check.opFor(r), root);
            case ALL_GATHER -> comm.allGather(send, recv, count, type);
            case REDUCE_SCATTER -> comm.reduceScatter(send, recv, count, type, check.opFor(r));
            case ALL_TO_ALL -> comm.allToAll(send, recv, count, type);
            // The communicator copies the arrays, so the check's own can be passed.
            case ALL_TO_ALLV -> comm.allToAllv(send, check.sendCountsView(r), check.sendDisplsView(r), recv,
                    check.recvCounts(r), check.recvDisplsView(r), type);
            case GATHER -> comm.gather(send, recv, count, type, root);
            case SCATTER -> comm.scatter(send, recv, count, type, root);
            case P2P -> comm.group(g -> {
                g.send(send, count, type, (r + 1) % n);
                g.recv(recv, count, type, (r - 1 + n) % n);
            });
            case BARRIER -> comm.barrier();
            default -> throw new IllegalArgumentException(check.kind().apiName() + " is not a collective checks run");
        };
    }
}
