package io.jccl.check;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Inputs and expected outputs of one collective call on every rank. {@link OpKind#P2P} means a ring of
 * send/recv: every rank sends its buffer to rank+1 and receives from rank-1.
 *
 * <p>Buffer sizes in elements: {@link #sendElements(int)} and {@link #recvElements(int)}; {@code count} has the
 * API's meaning for the collective (per rank for all-gather and gather, per block for reduce-scatter, scatter
 * and all-to-all). For all-to-allv the per-peer counts are {@code count * (1 + (sender + 2 * receiver) % 3) / 2}.
 */
public final class CollectiveCheck {
    private final OpKind kind;
    private final DataType type;
    private final ReduceOp.Kind op;
    private final int nRanks;
    private final long count;
    private final int root;
    private final long seed;
    private final long[][] sendCounts;
    private final long[][] sendDispls;
    private final long[][] recvDispls;
    private final CheckBuffers buffers;
    private MemorySegment[] inputs;
    private MemorySegment reduction;
    private MemorySegment shared;
    private MemorySegment[] perRank;
    private ReduceOp[] opsByRank;

    /**
     * @param kind   the collective
     * @param type   element type
     * @param op     reduction kind for reducing collectives, else null
     * @param nRanks ranks
     * @param count  the call's count
     * @param root   root rank for rooted collectives, else ignored
     * @param seed   run seed
     */
    public CollectiveCheck(OpKind kind, DataType type, ReduceOp.Kind op, int nRanks, long count, int root, long seed) {
        this(kind, type, op, nRanks, count, root, seed, new CheckBuffers());
    }

    /**
     * @param kind    the collective
     * @param type    element type
     * @param op      reduction kind for reducing collectives, else null
     * @param nRanks  ranks
     * @param count   the call's count
     * @param root    root rank for rooted collectives, else ignored
     * @param seed    run seed
     * @param buffers scratch memory to reuse (slots {@code 0 .. 2 * nRanks + 1})
     */
    public CollectiveCheck(OpKind kind, DataType type, ReduceOp.Kind op, int nRanks, long count, int root, long seed,
                           CheckBuffers buffers) {
        this.buffers = Objects.requireNonNull(buffers, "buffers");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.type = Objects.requireNonNull(type, "type");
        boolean reducing = kind == OpKind.ALL_REDUCE || kind == OpKind.REDUCE || kind == OpKind.REDUCE_SCATTER;
        if (reducing != (op != null)) {
            throw new IllegalArgumentException(kind + (reducing ? " needs" : " takes no") + " reduction");
        }
        this.op = op;
        this.nRanks = nRanks;
        this.count = count;
        this.root = root;
        this.seed = seed;
        if (kind == OpKind.ALL_TO_ALLV) {
            sendCounts = new long[nRanks][nRanks];
            sendDispls = new long[nRanks][nRanks];
            recvDispls = new long[nRanks][nRanks];
            for (int s = 0; s < nRanks; s++) {
                for (int r = 0; r < nRanks; r++) {
                    sendCounts[s][r] = count * (1 + (s + 2L * r) % 3) / 2;
                }
            }
            for (int s = 0; s < nRanks; s++) {
                long off = 0;
                for (int r = 0; r < nRanks; r++) {
                    sendDispls[s][r] = off;
                    off += sendCounts[s][r];
                }
            }
            for (int r = 0; r < nRanks; r++) {
                long off = 0;
                for (int s = 0; s < nRanks; s++) {
                    recvDispls[r][s] = off;
                    off += sendCounts[s][r];
                }
            }
        } else {
            sendCounts = null;
            sendDispls = null;
            recvDispls = null;
        }
    }

    /** @return the collective */
    public OpKind kind() {
        return kind;
    }

    /** @return the element type */
    public DataType type() {
        return type;
    }

    /** @return the reduction kind, or null for a collective that does not reduce */
    public ReduceOp.Kind op() {
        return op;
    }

    /** @return the ranks taking part */
    public int nRanks() {
        return nRanks;
    }

    /** @return the call's count (the API's meaning for the collective) */
    public long count() {
        return count;
    }

    /** @return the root rank (meaningful for rooted collectives only) */
    public int root() {
        return root;
    }

    /** @return the reduction a rank passes: pre-mul-sum scalars differ per rank (made once, then reused) */
    public ReduceOp opFor(int rank) {
        if (op == null) {
            return null;
        }
        if (opsByRank == null) {
            opsByRank = new ReduceOp[nRanks];
        }
        if (opsByRank[rank] == null) {
            opsByRank[rank] = opFor(op, rank);
        }
        return opsByRank[rank];
    }

    /**
     * @param op   reduction kind, or null
     * @param rank the rank passing it
     * @return the reduction that rank passes in checks (pre-mul-sum with {@link Patterns#preMulScalar(int)}),
     *         or null for null
     */
    public static ReduceOp opFor(ReduceOp.Kind op, int rank) {
        if (op == null) {
            return null;
        }
        return switch (op) {
            case SUM -> ReduceOp.SUM;
            case PROD -> ReduceOp.PROD;
            case MIN -> ReduceOp.MIN;
            case MAX -> ReduceOp.MAX;
            case AVG -> ReduceOp.AVG;
            case PRE_MUL_SUM -> ReduceOp.preMulSum(Patterns.preMulScalar(rank));
        };
    }

    /** @return elements the rank's send buffer holds (0 where the rank sends nothing) */
    public long sendElements(int rank) {
        return switch (kind) {
            case ALL_REDUCE, REDUCE, ALL_GATHER, GATHER, P2P -> count;
            case BROADCAST -> rank == root ? count : 0;
            case SCATTER -> rank == root ? count * nRanks : 0;
            case REDUCE_SCATTER, ALL_TO_ALL -> count * nRanks;
            case ALL_TO_ALLV -> sum(sendCounts[rank]);
            default -> 0;
        };
    }

    /** @return elements the rank's receive buffer holds (0 where it receives nothing) */
    public long recvElements(int rank) {
        return switch (kind) {
            case ALL_REDUCE, BROADCAST, P2P -> count;
            case REDUCE -> rank == root ? count : 0;
            case ALL_GATHER, ALL_TO_ALL -> count * nRanks;
            case GATHER -> rank == root ? count * nRanks : 0;
            case REDUCE_SCATTER, SCATTER -> count;
            case ALL_TO_ALLV -> {
                long n = 0;
                for (int s = 0; s < nRanks; s++) {
                    n += sendCounts[s][rank];
                }
                yield n;
            }
            default -> 0;
        };
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    /** @return all-to-allv send counts of a rank (elements, one per receiver) */
    public long[] sendCounts(int rank) {
        return sendCounts[rank].clone();
    }

    /** The all-to-allv send counts of a rank, not copied: for callers in this package that do not change them. */
    long[] sendCountsView(int rank) {
        return sendCounts[rank];
    }

    /** The all-to-allv send displacements of a rank, not copied. */
    long[] sendDisplsView(int rank) {
        return sendDispls[rank];
    }

    /** The all-to-allv receive displacements of a rank, not copied. */
    long[] recvDisplsView(int rank) {
        return recvDispls[rank];
    }

    /** @return all-to-allv send displacements of a rank */
    public long[] sendDispls(int rank) {
        return sendDispls[rank].clone();
    }

    /** @return all-to-allv receive counts of a rank (one per sender) */
    public long[] recvCounts(int rank) {
        long[] c = new long[nRanks];
        for (int s = 0; s < nRanks; s++) {
            c[s] = sendCounts[s][rank];
        }
        return c;
    }

    /** @return all-to-allv receive displacements of a rank */
    public long[] recvDispls(int rank) {
        return recvDispls[rank].clone();
    }

    /** @return the bits of element {@code index} of {@code rank}'s input */
    public long input(int rank, long index) {
        return Patterns.input(type, op, nRanks, seed, rank, index);
    }

    /** Generates every rank's input once, into scratch memory. */
    private void generateInputs() {
        if (inputs != null) {
            return;
        }
        inputs = new MemorySegment[nRanks];
        int es = type.sizeBytes();
        for (int r = 0; r < nRanks; r++) {
            long n = inputElements(r);
            MemorySegment seg = buffers.get(r, n * es);
            for (long i = 0; i < n; i++) {
                Elements.set(seg, i, type, input(r, i));
            }
            inputs[r] = seg;
        }
    }

    /** Elements of a rank's input that outputs may depend on (the root's for broadcast/scatter, all otherwise). */
    private long inputElements(int rank) {
        return switch (kind) {
            case BROADCAST -> count;
            case SCATTER -> count * nRanks;
            default -> sendElements(rank);
        };
    }

    /**
     * Writes the rank's input.
     *
     * @param rank whose
     * @param send where (at least {@link #sendElements(int)} elements)
     */
    public void fillSend(int rank, MemorySegment send) {
        // Every rank's input at once: the expectation needs them all anyway, and generating this rank's alone first
        // would generate it twice (measured: the collective matrix ran 1.75x slower).
        generateInputs();
        long bytes = sendElements(rank) * type.sizeBytes();
        if (bytes > 0) {
            MemorySegment.copy(inputs[rank], 0, send, 0, bytes);
        }
    }

    /**
     * Counts the elements of a rank's send buffer that no longer hold its input: an out-of-place collective
     * must leave its send buffer alone.
     *
     * @param rank whose input
     * @param send the send buffer after the call ({@link #sendElements(int)} elements are compared)
     * @return how many elements differ from the input
     */
    public long countChangedInput(int rank, MemorySegment send) {
        long n = sendElements(rank);
        long changed = 0;
        for (long i = 0; i < n; i++) {
            if (Elements.get(send, i, type) != input(rank, i)) {
                changed++;
            }
        }
        return changed;
    }

    /**
     * @param rank whose output
     * @return what the rank's output must hold, {@link #recvElements(int)} elements
     */
    public MemorySegment expected(int rank) {
        generateInputs();
        int es = type.sizeBytes();
        return switch (kind) {
            case ALL_REDUCE, REDUCE -> reduction(count);
            case REDUCE_SCATTER -> reduction(count * nRanks).asSlice((long) rank * count * es, count * es);
            case BROADCAST -> inputs[root];
            case SCATTER -> inputs[root].asSlice((long) rank * count * es, count * es);
            case P2P -> inputs[(rank - 1 + nRanks) % nRanks];
            case ALL_GATHER, GATHER -> {
                if (shared == null) {
                    shared = buffers.get(nRanks, count * nRanks * es);
                    for (int q = 0; q < nRanks; q++) {
                        MemorySegment.copy(inputs[q], 0, shared, (long) q * count * es, count * es);
                    }
                }
                yield shared;
            }
            case ALL_TO_ALL, ALL_TO_ALLV -> {
                if (perRank == null) {
                    perRank = new MemorySegment[nRanks];
                }
                if (perRank[rank] == null) {
                    MemorySegment e = buffers.get(nRanks + 2 + rank, recvElements(rank) * es);
                    for (int q = 0; q < nRanks; q++) {
                        long from = kind == OpKind.ALL_TO_ALL ? (long) rank * count : sendDispls[q][rank];
                        long to = kind == OpKind.ALL_TO_ALL ? (long) q * count : recvDispls[rank][q];
                        long n = kind == OpKind.ALL_TO_ALL ? count : sendCounts[q][rank];
                        MemorySegment.copy(inputs[q], from * es, e, to * es, n * es);
                    }
                    perRank[rank] = e;
                }
                yield perRank[rank];
            }
            default -> throw new IllegalStateException(kind + " has no output");
        };
    }

    /** @return the bits the element {@code index} of {@code rank}'s output must have */
    public long expected(int rank, long index) {
        return Elements.get(expected(rank), index, type);
    }

    /**
     * Compares a rank's output with the expectation.
     *
     * @param rank whose output
     * @param recv the output
     * @return how many elements are wrong
     */
    public long countWrong(int rank, MemorySegment recv) {
        long n = recvElements(rank);
        if (n == 0) {
            return 0;
        }
        MemorySegment want = expected(rank);
        long bytes = n * type.sizeBytes();
        long first = MemorySegment.mismatch(recv, 0, bytes, want, 0, bytes);
        if (first < 0) {
            return 0;
        }
        long wrong = 0;
        for (long i = first / type.sizeBytes(); i < n; i++) {
            if (Elements.get(recv, i, type) != Elements.get(want, i, type)) {
                wrong++;
            }
        }
        return wrong;
    }

    /** @return a description of the first wrong element, or null when all are right */
    public String firstMismatch(int rank, MemorySegment recv) {
        long n = recvElements(rank);
        if (n == 0) {
            return null;
        }
        MemorySegment want = expected(rank);
        long bytes = n * type.sizeBytes();
        long first = MemorySegment.mismatch(recv, 0, bytes, want, 0, bytes);
        if (first < 0) {
            return null;
        }
        long i = first / type.sizeBytes();
        long got = Elements.get(recv, i, type);
        long w = Elements.get(want, i, type);
        return "rank " + rank + " element " + i + ": got " + Elements.format(type, got) + " (0x"
                + Long.toHexString(got) + "), expected " + Elements.format(type, w) + " (0x" + Long.toHexString(w)
                + ")";
    }

    private MemorySegment reduction(long n) {
        if (reduction == null) {
            MemorySegment r = buffers.get(2 * nRanks + 2, n * type.sizeBytes());
            for (long i = 0; i < n; i++) {
                Elements.set(r, i, type, computeReduction(i));
            }
            reduction = r;
        }
        return reduction;
    }

    private long computeReduction(long index) {
        if (type.isInteger()) {
            long acc = 0;
            for (int r = 0; r < nRanks; r++) {
                long v = Elements.get(inputs[r], index, type);
                if (op == ReduceOp.Kind.PRE_MUL_SUM) {
                    v = Elements.normalize(type, v * (long) Patterns.preMulScalar(r));
                }
                acc = r == 0 ? v : combineInt(acc, v);
            }
            if (op == ReduceOp.Kind.AVG) {
                acc = type.isUnsigned() ? Long.divideUnsigned(acc, nRanks) : acc / nRanks;
            }
            return Elements.normalize(type, acc);
        }
        double acc = 0;
        for (int r = 0; r < nRanks; r++) {
            double v = Elements.toDouble(type, Elements.get(inputs[r], index, type));
            if (op == ReduceOp.Kind.PRE_MUL_SUM) {
                v *= Patterns.preMulScalar(r);
            }
            acc = r == 0 ? v : switch (op) {
                case PROD -> acc * v;
                case MIN -> Math.min(acc, v);
                case MAX -> Math.max(acc, v);
                default -> acc + v;
            };
        }
        if (op == ReduceOp.Kind.AVG) {
            acc /= nRanks;
        }
        return Elements.fromDouble(type, acc);
    }

    private long combineInt(long a, long b) {
        return switch (op) {
            case PROD -> Elements.normalize(type, a * b);
            case MIN -> type.isUnsigned() ? (Long.compareUnsigned(a, b) <= 0 ? a : b) : Math.min(a, b);
            case MAX -> type.isUnsigned() ? (Long.compareUnsigned(a, b) >= 0 ? a : b) : Math.max(a, b);
            default -> Elements.normalize(type, a + b);
        };
    }
}
