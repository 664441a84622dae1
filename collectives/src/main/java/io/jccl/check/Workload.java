package io.jccl.check;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A random but reproducible sequence of collective operations for soak tests and simulators: a function of (seed,
 * ranks, spec) only, and every prefix of a longer workload is the shorter one. Every rank runs the same sequence
 * through a {@link WorkloadRank}, which checks each result exactly against {@link CollectiveCheck}.
 *
 * <p>What is drawn, per operation:
 * <ul>
 * <li>the collective: the spec's kinds in rounds, each round a fresh shuffle, so every kind appears once in every
 *     {@code kinds.size()} operations;</li>
 * <li>the type: the 12 types in shuffled rounds the same way (a barrier takes no type from the rounds);</li>
 * <li>the reduction: per type, every reduction kind the type supports in shuffled rounds (every kind works with
 *     every type; a pre-mul-sum scalar must also fit the type, which the check scalars 1 to 3 always do);</li>
 * <li>the count: 0 (5%), 1 (10%), a prime below 100 (30%), a prime between 100 and 20,000 (30%), or large:
 *     between half the largest and the largest count that keeps every buffer within
 *     {@link WorkloadSpec#maxBytesPerRank()} (25%); each capped at that largest count;</li>
 * <li>the root of a rooted collective: any rank; in-place or not: a coin flip where the collective has an
 *     in-place form.</li>
 * </ul>
 * The generator is SplitMix64 written out here, so a seed means the same sequence on every JDK.
 */
public final class Workload {
    /** The operations a workload can contain: every collective, send/recv and barrier (not split). */
    public static final Set<OpKind> KINDS = Collections.unmodifiableSet(EnumSet.range(OpKind.ALL_REDUCE,
            OpKind.BARRIER));

    private static final int[] SMALL_PRIMES = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61,
        67, 71, 73, 79, 83, 89, 97};
    private static final int MEDIUM_MIN = 100;
    private static final int MEDIUM_MAX = 20_000;
    /** Mixed into the seed so a workload and its operations' inputs do not draw from the same stream. */
    private static final long SEQUENCE_SALT = 0x574F524B4C4F4144L;   // "WORKLOAD"
    private static final long INPUT_SALT = 0x494E505554534545L;      // "INPUTSEE"

    private Workload() {
    }

    /**
     * Draws a workload.
     *
     * @param seed   the seed: the same (seed, nRanks, spec) always gives the same operations
     * @param nRanks ranks that will run it (at least 1): counts and roots depend on it
     * @param ops    how many operations (0 or more)
     * @param spec   what it may contain
     * @return the operations, indexed 0 to {@code ops - 1}
     */
    public static List<WorkloadOp> generate(long seed, int nRanks, int ops, WorkloadSpec spec) {
        Objects.requireNonNull(spec, "spec");
        if (nRanks < 1) {
            throw new IllegalArgumentException("nRanks must be at least 1, got " + nRanks);
        }
        if (ops < 0) {
            throw new IllegalArgumentException("ops must not be negative, got " + ops);
        }
        Random rng = new Random(Patterns.mix(seed ^ SEQUENCE_SALT, 0, 0));
        Rounds<OpKind> kinds = new Rounds<>(new ArrayList<>(spec.kinds()), rng);
        Rounds<DataType> types = new Rounds<>(List.of(DataType.values()), rng);
        Map<DataType, Rounds<ReduceOp.Kind>> reductions = new EnumMap<>(DataType.class);
        for (DataType t : DataType.values()) {
            reductions.put(t, new Rounds<>(supportedReductions(t, nRanks), rng));
        }
        List<WorkloadOp> out = new ArrayList<>(ops);
        for (int i = 0; i < ops; i++) {
            OpKind kind = kinds.next();
            if (kind == OpKind.BARRIER) {
                out.add(new WorkloadOp(i, kind, DataType.INT8, null, 0, -1, false));
                continue;
            }
            DataType type = types.next();
            ReduceOp.Kind op = CollectiveCalls.reducing(kind) ? reductions.get(type).next() : null;
            long count = drawCount(rng, maxCount(kind, type, nRanks, spec.maxBytesPerRank()));
            int root = CollectiveCalls.rooted(kind) ? rng.nextInt(nRanks) : -1;
            boolean inPlace = CollectiveCalls.hasInPlaceForm(kind) && rng.nextInt(2) == 1;
            out.add(new WorkloadOp(i, kind, type, op, count, root, inPlace));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * @param seed  the workload's seed
     * @param index the operation's index
     * @return the {@link CollectiveCheck} seed of the operation's inputs
     */
    public static long opSeed(long seed, int index) {
        return Patterns.mix(seed ^ INPUT_SALT, 0, index);
    }

    /**
     * @param op     an operation
     * @param nRanks ranks running it
     * @param seed   the workload's seed
     * @param buffers scratch memory for the check
     * @return the check of the operation: its inputs on every rank and expected outputs
     */
    public static CollectiveCheck check(WorkloadOp op, int nRanks, long seed, CheckBuffers buffers) {
        return new CollectiveCheck(op.kind(), op.type(), op.op(), nRanks, op.count(), Math.max(op.root(), 0),
                opSeed(seed, op.index()), buffers);
    }

    /** The reduction kinds every rank can pass for the type with its check scalar. */
    static List<ReduceOp.Kind> supportedReductions(DataType type, int nRanks) {
        List<ReduceOp.Kind> ok = new ArrayList<>();
        for (ReduceOp.Kind k : ReduceOp.Kind.values()) {
            boolean all = true;
            for (int r = 0; r < Math.min(nRanks, 3) && all; r++) {   // the check scalars repeat every 3 ranks
                all = CollectiveCheck.opFor(k, r).unsupportedReason(type) == null;
            }
            if (all) {
                ok.add(k);
            }
        }
        return ok;
    }

    /**
     * The largest count that keeps each of a rank's buffers within {@code maxBytes}.
     */
    static long maxCount(OpKind kind, DataType type, int nRanks, long maxBytes) {
        long elements = maxBytes / type.sizeBytes();
        return switch (kind) {
            case ALL_REDUCE, BROADCAST, REDUCE, P2P -> elements;
            case ALL_GATHER, GATHER, REDUCE_SCATTER, SCATTER, ALL_TO_ALL -> elements / nRanks;
            // Per-peer counts are count * {1, 2, 3} / 2, so a rank's buffer holds at most 1.5 * count * nRanks.
            case ALL_TO_ALLV -> elements * 2 / (3L * nRanks);
            default -> 0;
        };
    }

    private static long drawCount(Random rng, long max) {
        int bucket = rng.nextInt(100);
        long count;
        if (bucket < 5) {
            count = 0;
        } else if (bucket < 15) {
            count = 1;
        } else if (bucket < 45) {
            count = SMALL_PRIMES[rng.nextInt(SMALL_PRIMES.length)];
        } else if (bucket < 75) {
            count = primeAtOrBelow(MEDIUM_MIN + rng.nextInt(MEDIUM_MAX - MEDIUM_MIN + 1));
        } else {
            long low = max / 2;
            count = low + rng.nextLong(max - low + 1);
        }
        return Math.min(count, max);
    }

    private static long primeAtOrBelow(long n) {
        for (long p = n; ; p--) {
            boolean prime = p >= 2;
            for (long d = 2; d * d <= p && prime; d++) {
                prime = p % d != 0;
            }
            if (prime) {
                return p;
            }
        }
    }

    /** SplitMix64: fully specified here, so a seed means the same workload on every JDK. */
    private static final class Random {
        private long state;

        Random(long seed) {
            this.state = seed;
        }

        long next() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        /** @return a value in [0, bound) (the modulo bias is below 2^-40 for the bounds used here) */
        long nextLong(long bound) {
            return Long.remainderUnsigned(next(), bound);
        }

        int nextInt(int bound) {
            return (int) nextLong(bound);
        }
    }

    /** Hands out the items in rounds, each round a fresh shuffle of all of them. */
    private static final class Rounds<T> {
        private final List<T> items;
        private final Random rng;
        private int position;

        Rounds(List<T> items, Random rng) {
            this.items = new ArrayList<>(items);
            this.rng = rng;
            this.position = this.items.size();
        }

        T next() {
            if (position == items.size()) {
                for (int i = items.size() - 1; i > 0; i--) {
                    Collections.swap(items, i, rng.nextInt(i + 1));
                }
                position = 0;
            }
            return items.get(position++);
        }
    }
}
