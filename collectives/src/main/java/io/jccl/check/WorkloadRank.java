package io.jccl.check;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;

/**
 * One rank's side of a {@link Workload}: issues each operation through the public API and checks every element of
 * its result against {@link CollectiveCheck}, the independent reference.
 *
 * <p>Two buffers, each sized once for the workload's largest operation on this rank, are reused by every
 * operation. Each operation places its buffers at a shift of 0 to 7 bytes drawn from (seed, rank, index), so
 * element alignment varies, and writes {@value #GUARD_BYTES} guard bytes before and after every region it uses.
 * Receive memory is poisoned before the call, so an element never written is caught. {@link #check(WorkloadOp)}
 * counts wrong output elements, changed input elements of an out-of-place call (its send buffer must stay as it
 * was) and damaged guard bytes.
 *
 * <p>Usable from one thread for all ranks: {@link #issue} never waits for other ranks; call {@link #check} once the
 * future {@link CollectiveFuture#isDone() is done}. Not thread-safe; one operation at a time.
 */
public final class WorkloadRank implements AutoCloseable {
    /** Guard bytes on each side of every region an operation uses. */
    public static final int GUARD_BYTES = 64;
    private static final byte GUARD = (byte) 0xA5;
    private static final byte POISON = (byte) 0xCD;
    /** Regions start 0 to this many bytes after the leading guard. */
    private static final int MAX_SHIFT_BYTES = 7;

    private final int rank;
    private final int nRanks;
    private final long seed;
    private final long capacityBytes;
    private final Arena arena = Arena.ofShared();
    private final CheckBuffers checkBuffers = new CheckBuffers();
    /** The send side (out of place) or the non-root buffer (in place). */
    private final MemorySegment a;
    /** The receive side (out of place) or the in-place buffer. */
    private final MemorySegment b;

    private WorkloadOp current;
    private CollectiveCheck check;
    private MemorySegment send;
    private MemorySegment recv;
    /** The regions of {@link #a} and {@link #b} the current operation uses, guarded on both sides. */
    private MemorySegment regionA;
    private MemorySegment regionB;
    private boolean sendMustStay;
    private String lastProblem;

    /**
     * Sizes the buffers for the largest of {@code ops} on this rank and allocates them (once).
     *
     * @param rank   this rank
     * @param nRanks ranks running the workload
     * @param seed   the workload's seed (inputs of operation i come from {@link Workload#opSeed(long, int)})
     * @param ops    the workload, or any operations this rank will run
     */
    public WorkloadRank(int rank, int nRanks, long seed, List<WorkloadOp> ops) {
        Objects.requireNonNull(ops, "ops");
        if (nRanks < 1) {
            throw new IllegalArgumentException("nRanks must be at least 1, got " + nRanks);
        }
        if (rank < 0 || rank >= nRanks) {
            throw new IllegalArgumentException("rank " + rank + " is out of range 0 to " + (nRanks - 1));
        }
        this.rank = rank;
        this.nRanks = nRanks;
        this.seed = seed;
        long largest = 0;
        for (WorkloadOp op : ops) {
            largest = Math.max(largest, footprintBytes(op));
        }
        this.capacityBytes = largest;
        long size = largest + 2L * GUARD_BYTES + MAX_SHIFT_BYTES;
        this.a = arena.allocate(size, 64);
        this.b = arena.allocate(size, 64);
    }

    /** @return bytes the larger of the operation's two buffers takes on this rank; checks its root */
    private long footprintBytes(WorkloadOp op) {
        if (op.root() >= nRanks) {
            throw new IllegalArgumentException(op.describe() + ": root " + op.root() + " is out of range for "
                    + nRanks + " ranks");
        }
        CollectiveCheck c = new CollectiveCheck(op.kind(), op.type(), op.op(), nRanks, op.count(),
                Math.max(op.root(), 0), 0, checkBuffers);
        return Math.max(c.sendElements(rank), c.recvElements(rank)) * op.type().sizeBytes();
    }

    /** @return this rank */
    public int rank() {
        return rank;
    }

    /**
     * Fills this rank's input of {@code op}, poisons its output, writes the guards and issues the call
     * (non-blocking; the in-place layout of {@link CollectiveCalls#inPlace} for an in-place operation). The
     * previous operation must have completed.
     *
     * @param comm this rank's communicator (rank and size must match)
     * @param op   the operation
     * @return the call's future
     */
    public CollectiveFuture issue(Communicator comm, WorkloadOp op) {
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(op, "op");
        if (comm.rank() != rank || comm.size() != nRanks) {
            throw new IllegalArgumentException("communicator is rank " + comm.rank() + " of " + comm.size()
                    + " but this workload rank is " + rank + " of " + nRanks);
        }
        long footprint = footprintBytes(op);
        if (footprint > capacityBytes) {
            throw new IllegalArgumentException(op.describe() + " needs " + footprint + " bytes per buffer, more than "
                    + "the " + capacityBytes + " this rank was sized for (was it in the constructor's list?)");
        }
        DataType type = op.type();
        int es = type.sizeBytes();
        check = Workload.check(op, nRanks, seed, checkBuffers);
        current = op;
        lastProblem = null;
        long start = GUARD_BYTES + Math.floorMod(Patterns.mix(seed, rank, op.index()), MAX_SHIFT_BYTES + 1);
        long sendBytes = check.sendElements(rank) * es;
        long recvBytes = check.recvElements(rank) * es;
        if (op.inPlace()) {
            regionB = b.asSlice(start, footprint);
            regionA = a.asSlice(start, op.count() * es);
            regionB.fill(POISON);
            regionA.fill(POISON);
            CollectiveCalls.Placement p = CollectiveCalls.inPlace(op.kind(), rank, nRanks, op.root(), op.count(),
                    type, regionB, regionA);
            send = p.send();
            recv = p.recv();
            sendMustStay = send != null && (recv == null || send.asOverlappingSlice(recv).isEmpty());
        } else {
            regionA = a.asSlice(start, sendBytes);
            regionB = b.asSlice(start, recvBytes);
            regionB.fill(POISON);
            send = passesSend(op) ? regionA : null;
            recv = passesRecv(op) ? regionB : null;
            sendMustStay = send != null;
        }
        if (send != null && sendBytes > 0) {
            check.fillSend(rank, send);
        }
        guard(a, regionA);
        guard(b, regionB);
        return CollectiveCalls.issue(comm, check, Buffer.of(send), Buffer.of(recv));
    }

    /** Whether this rank passes a send buffer (the API ignores it on the non-roots of broadcast and scatter). */
    private boolean passesSend(WorkloadOp op) {
        return switch (op.kind()) {
            case BROADCAST, SCATTER -> rank == op.root();
            case BARRIER -> false;
            default -> true;
        };
    }

    /** Whether this rank passes a receive buffer (the API ignores it on the non-roots of reduce and gather). */
    private boolean passesRecv(WorkloadOp op) {
        return switch (op.kind()) {
            case REDUCE, GATHER -> rank == op.root();
            case BARRIER -> false;
            default -> true;
        };
    }

    private static void guard(MemorySegment buffer, MemorySegment region) {
        long offset = region.address() - buffer.address();
        buffer.asSlice(offset - GUARD_BYTES, GUARD_BYTES).fill(GUARD);
        buffer.asSlice(offset + region.byteSize(), GUARD_BYTES).fill(GUARD);
    }

    /** @return guard bytes around the region that are no longer the guard value */
    private static long damagedGuardBytes(MemorySegment buffer, MemorySegment region) {
        long offset = region.address() - buffer.address();
        long damaged = 0;
        for (int i = 0; i < GUARD_BYTES; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, offset - GUARD_BYTES + i) != GUARD) {
                damaged++;
            }
            if (buffer.get(ValueLayout.JAVA_BYTE, offset + region.byteSize() + i) != GUARD) {
                damaged++;
            }
        }
        return damaged;
    }

    /**
     * Checks the result of the last issued operation, which must be {@code op} and must have completed.
     *
     * @param op the operation last passed to {@link #issue}
     * @return wrong output elements + changed elements of an out-of-place send buffer + damaged guard bytes;
     *         0 when everything is right ({@link #lastProblem()} describes the first problem otherwise)
     */
    public long check(WorkloadOp op) {
        if (current == null || !current.equals(op)) {
            throw new IllegalStateException("check(" + (op == null ? "null" : op.describe()) + ") but the last "
                    + "issued operation is " + (current == null ? "none" : current.describe()));
        }
        long problems = 0;
        long outputElements = check.recvElements(rank);
        if (recv != null && outputElements > 0) {
            MemorySegment out = recv.asSlice(0, outputElements * op.type().sizeBytes());
            long wrong = check.countWrong(rank, out);
            if (wrong > 0) {
                note(wrong + " wrong output elements; first: " + check.firstMismatch(rank, out));
            }
            problems += wrong;
        }
        if (sendMustStay) {
            long changed = check.countChangedInput(rank, send);
            if (changed > 0) {
                note("rank " + rank + ": " + changed + " elements of the send buffer changed");
            }
            problems += changed;
        }
        long damaged = damagedGuardBytes(a, regionA) + damagedGuardBytes(b, regionB);
        if (damaged > 0) {
            note("rank " + rank + ": " + damaged + " guard bytes around the buffers overwritten");
        }
        return problems + damaged;
    }

    private void note(String problem) {
        if (lastProblem == null) {
            lastProblem = current.describe() + ": " + problem;
        }
    }

    /** @return the first problem the last {@link #check} found, with the operation's description; null if none */
    public String lastProblem() {
        return lastProblem;
    }

    /**
     * @return this rank's receive buffer of the last issued operation (null where it passes none): for tests that
     *         spoil a result on purpose to see the check catch it
     */
    public MemorySegment output() {
        return recv;
    }

    /** @return the bytes each of the two buffers holds for an operation (the largest footprint) */
    public long capacityBytes() {
        return capacityBytes;
    }

    /** Frees the buffers. */
    @Override
    public void close() {
        checkBuffers.close();
        arena.close();
    }
}
