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
    private long[] expectedReduction;

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

    /** @return the reduction a rank passes: pre-mul-sum scalars differ per rank */
    public ReduceOp opFor(int rank) {
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

    /**
     * Writes the rank's input.
     *
     * @param rank whose
     * @param send where (at least {@link #sendElements(int)} elements)
     */
    public void fillSend(int rank, MemorySegment send) {
        long n = sendElements(rank);
        for (long i = 0; i < n; i++) {
            Elements.set(send, i, type, input(rank, i));
        }
    }

    /** @return the bits the element {@code index} of {@code rank}'s output must have */
    public long expected(int rank, long index) {
        return switch (kind) {
            case ALL_REDUCE, REDUCE -> reduction(index);
            case REDUCE_SCATTER -> reduction((long) rank * count + index);
            case BROADCAST -> input(root, index);
            case ALL_GATHER, GATHER -> input((int) (index / count), index % count);
            case SCATTER -> input(root, (long) rank * count + index);
            case ALL_TO_ALL -> input((int) (index / count), (long) rank * count + index % count);
            case ALL_TO_ALLV -> {
                int s = 0;
                while (s + 1 < nRanks && recvDispls[rank][s + 1] <= index) {
                    s++;
                }
                yield input(s, sendDispls[s][rank] + index - recvDispls[rank][s]);
            }
            case P2P -> input((rank - 1 + nRanks) % nRanks, index);
            default -> throw new IllegalStateException(kind + " has no output");
        };
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
        long wrong = 0;
        for (long i = 0; i < n; i++) {
            if (Elements.get(recv, i, type) != expected(rank, i)) {
                wrong++;
            }
        }
        return wrong;
    }

    /** @return a description of the first wrong element, or null when all are right */
    public String firstMismatch(int rank, MemorySegment recv) {
        long n = recvElements(rank);
        for (long i = 0; i < n; i++) {
            long got = Elements.get(recv, i, type);
            long want = expected(rank, i);
            if (got != want) {
                return "rank " + rank + " element " + i + ": got " + Elements.format(type, got) + " (0x"
                        + Long.toHexString(got) + "), expected " + Elements.format(type, want) + " (0x"
                        + Long.toHexString(want) + ")";
            }
        }
        return null;
    }

    private long reduction(long index) {
        if (expectedReduction == null) {
            long n = kind == OpKind.REDUCE_SCATTER ? count * nRanks : count;
            long[] e = new long[Math.toIntExact(n)];
            for (int i = 0; i < e.length; i++) {
                e[i] = computeReduction(i);
            }
            expectedReduction = e;
        }
        return expectedReduction[(int) index];
    }

    private long computeReduction(long index) {
        if (type.isInteger()) {
            long acc = 0;
            for (int r = 0; r < nRanks; r++) {
                long v = input(r, index);
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
            double v = Elements.toDouble(type, input(r, index));
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
