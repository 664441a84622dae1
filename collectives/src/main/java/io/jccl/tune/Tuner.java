package io.jccl.tune;

import io.jccl.Algorithm;
import io.jccl.plan.OpKind;

/**
 * Picks the all-reduce algorithm and the chunk size from a latency-bandwidth cost model (NCCL's tuning idea),
 * with constants fitted to measurements (docs/tuning.md, {@code AllReduceBenchmark}).
 *
 * <p>A <em>hop</em> (one message on the critical path) costs {@code h = transport latency + executor overhead},
 * the overhead being {@link #SIGNALLED_HOP_OVERHEAD_SECONDS} when the transport wakes the executor and
 * {@link #POLLED_HOP_OVERHEAD_SECONDS} when the executor must poll it. Moving {@code b} bytes costs
 * {@code b / beta}, reducing them {@code b / gamma}, where {@code gamma} is the rank's share of a core's copy
 * bandwidth divided by {@link #REDUCE_TRAFFIC_FACTOR} (a reduction reads two operands and writes one where a copy
 * reads one and writes one). For an all-reduce of {@code S} bytes per rank over {@code n} ranks:
 * <ul>
 * <li>ring: {@code (2(n-1) + loops - 1) h + 2(n-1)/n S/beta + (n-1)/n S/gamma};</li>
 * <li>double binary tree: {@code (2 ceil(log2 n) + pieces - 1) 1.5 h + 2.6 S/beta + S/gamma} — each tree step
 *     waits on two children, and the staging copies of this implementation move about 2.6 S per rank;</li>
 * <li>recursive doubling: {@code pieces r (2h + piece/beta) + r S/gamma} with {@code r = ceil(log2 n)} rounds (+2
 *     when n is not a power of two); each round is a symmetric exchange, so two hops, and reduces the whole
 *     message.</li>
 * </ul>
 * The reduction term is what makes the ring win at 2 ranks for large messages: both move {@code S} bytes each way,
 * but the ring reduces half of them per rank, recursive doubling all (docs/tuning.md).
 * The cheapest wins unless the configuration forces one.
 *
 * <p><b>Single copy.</b> Where every peer's connection lets the receiver read a message where it lies
 * ({@link io.jccl.net.SendConnection#singleCopyMaxOpBytes()}: shm with cross-memory attach), an out-of-place
 * all-reduce of 2 ranks up to that size asks for it and takes recursive doubling whatever the model says: each rank
 * then reads only the peer's input, written before the call, in cache-sized pieces folded into its result as they
 * arrive, where the ring's second step reads the result the peer has just written, line by line from the other
 * core's cache: on a host that runs the two ranks on cores sharing no cache, 1 MiB takes about half the ring's time
 * (docs/performance.md). In place the input is also the result, so the exchange would need a staging copy first,
 * and the ring stays.
 */
public final class Tuner {
    /** Executor cost of one hop when the transport signals completions (in-JVM: a thread hand-off). */
    public static final double SIGNALLED_HOP_OVERHEAD_SECONDS = 7.5e-6;
    /** Executor cost of one hop when the transport is polled (TCP: the executor's polling back-off). */
    public static final double POLLED_HOP_OVERHEAD_SECONDS = 70e-6;
    /** Tree hops wait on two children: relative cost of a tree hop. */
    static final double TREE_HOP_FACTOR = 1.5;
    /** Bytes the double binary tree moves per rank, per byte of message (measured). */
    static final double TREE_BANDWIDTH_FACTOR = 2.6;
    /** Memory traffic of reducing a byte relative to copying it: two reads and a write against a read and a write. */
    static final double REDUCE_TRAFFIC_FACTOR = 1.5;
    /** Relative difference of two predictions below which they count as a tie. */
    static final double TIE_TOLERANCE = 0.01;
    /** Smallest chunk the tuner picks. */
    public static final long MIN_CHUNK_BYTES = 16 << 10;

    private final int nRanks;
    private final double hopSeconds;
    private final double betaBytesPerSecond;
    private final double gammaBytesPerSecond;
    private final long maxChunkBytes;
    private final Algorithm forcedAlgorithm;
    private final long forcedChunkBytes;
    private final long singleCopyMaxBytes;

    /**
     * The choice for one operation.
     *
     * @param algorithm  the all-reduce algorithm (RING for other operations)
     * @param chunkBytes the pipeline chunk in bytes
     */
    public record Choice(Algorithm algorithm, long chunkBytes) {
    }

    /**
     * @param nRanks                  ranks in the communicator
     * @param hopSeconds              cost of one message on the critical path: latency of the slowest transport
     *                                in use plus the executor overhead for it
     * @param bandwidthBytesPerSecond bandwidth one rank gets from the slowest transport in use
     * @param copyBytesPerSecond      bytes per second one rank copies in memory (its share of a core)
     * @param maxChunkBytes           largest chunk worth using on these transports
     * @param forcedAlgorithm         {@link Algorithm#AUTO} or the algorithm to use
     * @param forcedChunkBytes        0 or the chunk to use
     */
    public Tuner(int nRanks, double hopSeconds, double bandwidthBytesPerSecond, double copyBytesPerSecond,
                 long maxChunkBytes, Algorithm forcedAlgorithm, long forcedChunkBytes) {
        this(nRanks, hopSeconds, bandwidthBytesPerSecond, copyBytesPerSecond, maxChunkBytes, forcedAlgorithm,
                forcedChunkBytes, 0);
    }

    /**
     * @param nRanks                  ranks in the communicator
     * @param hopSeconds              cost of one message on the critical path
     * @param bandwidthBytesPerSecond bandwidth one rank gets from the slowest transport in use
     * @param copyBytesPerSecond      bytes per second one rank copies in memory (its share of a core)
     * @param maxChunkBytes           largest chunk worth using on these transports
     * @param forcedAlgorithm         {@link Algorithm#AUTO} or the algorithm to use
     * @param forcedChunkBytes        0 or the chunk to use
     * @param singleCopyMaxBytes      the largest all-reduce (bytes per rank) every peer's connection reads in one
     *                                copy ({@link io.jccl.net.SendConnection#singleCopyMaxOpBytes()}); 0 for none
     */
    public Tuner(int nRanks, double hopSeconds, double bandwidthBytesPerSecond, double copyBytesPerSecond,
                 long maxChunkBytes, Algorithm forcedAlgorithm, long forcedChunkBytes, long singleCopyMaxBytes) {
        if (singleCopyMaxBytes < 0) {
            throw new IllegalArgumentException("singleCopyMaxBytes must not be negative, not " + singleCopyMaxBytes);
        }
        this.singleCopyMaxBytes = singleCopyMaxBytes;
        this.nRanks = nRanks;
        this.hopSeconds = hopSeconds;
        this.betaBytesPerSecond = bandwidthBytesPerSecond;
        this.gammaBytesPerSecond = copyBytesPerSecond / REDUCE_TRAFFIC_FACTOR;
        this.maxChunkBytes = Math.max(MIN_CHUNK_BYTES, maxChunkBytes);
        this.forcedAlgorithm = forcedAlgorithm;
        this.forcedChunkBytes = forcedChunkBytes;
    }

    /**
     * @param transportLatencySeconds one-way latency the transport reports
     * @param signalled               whether the transport wakes the executor on completions
     * @return the cost of one hop
     */
    public static double hopSeconds(double transportLatencySeconds, boolean signalled) {
        return transportLatencySeconds + (signalled ? SIGNALLED_HOP_OVERHEAD_SECONDS : POLLED_HOP_OVERHEAD_SECONDS);
    }

    /**
     * @param kind  the operation
     * @param bytes bytes per rank the operation reduces or moves
     * @return algorithm and chunk
     */
    public Choice choose(OpKind kind, long bytes) {
        Algorithm algorithm = algorithm(kind, bytes);
        return new Choice(algorithm, chunkBytes(algorithm, bytes));
    }

    /**
     * The algorithm part of {@link #choose}, without allocating (the executor calls it for every operation).
     *
     * @param kind  the operation
     * @param bytes bytes per rank
     * @return the all-reduce algorithm, RING for other operations
     */
    public Algorithm algorithm(OpKind kind, long bytes) {
        return algorithm(kind, bytes, true);
    }

    /**
     * The algorithm for an operation, without allocating (the executor calls it for every operation): the forced
     * one, recursive doubling for a single-copy all-reduce at 2 ranks ({@link #singleCopy}), else the cheapest.
     *
     * @param kind    the operation
     * @param bytes   bytes per rank
     * @param inPlace whether the result replaces the input
     * @return the all-reduce algorithm, RING for other operations
     */
    public Algorithm algorithm(OpKind kind, long bytes, boolean inPlace) {
        return algorithm(kind, bytes, inPlace, singleCopy(kind, bytes, inPlace));
    }

    /**
     * As {@link #algorithm(OpKind, long, boolean)}, for an operation whose sends go single copy or not as the
     * caller decided: it may decline single copy where {@link #singleCopy} allows it (the executor times both ways
     * on hosts whose ranks share box lines), never take it where it does not.
     *
     * @param kind       the operation
     * @param bytes      bytes per rank
     * @param inPlace    whether the result replaces the input
     * @param singleCopy whether its sends go single copy
     * @return the all-reduce algorithm, RING for other operations
     */
    public Algorithm algorithm(OpKind kind, long bytes, boolean inPlace, boolean singleCopy) {
        if (kind != OpKind.ALL_REDUCE) {
            return Algorithm.RING;
        }
        if (forcedAlgorithm != Algorithm.AUTO) {
            return forcedAlgorithm;
        }
        if (nRanks == 2 && singleCopy && singleCopy(kind, bytes, inPlace)) {
            return Algorithm.RECURSIVE_DOUBLING;
        }
        return cheapestAllReduce(bytes);
    }

    /**
     * Whether an operation's messages should be read where they lie
     * ({@link io.jccl.net.SendConnection#isendSingleCopy}): an out-of-place all-reduce of 2 ranks up to the size every
     * peer's connection reads in one copy. Only 2 ranks, as measured: 4 ranks on 2 cores took 1.6 ms per 1 MiB ring
     * all-reduce with single-copy sends against 1.2 ms without (docs/performance.md).
     *
     * @param kind    the operation
     * @param bytes   bytes per rank
     * @param inPlace whether the result replaces the input
     * @return true to ask for single-copy sends
     */
    public boolean singleCopy(OpKind kind, long bytes, boolean inPlace) {
        return kind == OpKind.ALL_REDUCE && nRanks == 2 && !inPlace && bytes <= singleCopyMaxBytes
                && singleCopyMaxBytes > 0;
    }

    /** @return the largest all-reduce read in one copy (bytes per rank), 0 for none */
    public long singleCopyMaxBytes() {
        return singleCopyMaxBytes;
    }

    /**
     * The chunk part of {@link #choose}.
     *
     * @param algorithm what {@link #algorithm} returned
     * @param bytes     bytes per rank
     * @return the chunk in bytes
     */
    public long chunkBytes(Algorithm algorithm, long bytes) {
        return forcedChunkBytes > 0 ? forcedChunkBytes : chunkFor(algorithm, bytes);
    }

    private long chunkFor(Algorithm algorithm, long bytes) {
        long wanted = switch (algorithm) {
            case RECURSIVE_DOUBLING -> bytes;
            case TREE -> bytes / 8;                            // enough pieces to fill the two pipelines
            default -> bytes / Math.max(1, 2L * nRanks);       // at least two loops around the ring
        };
        return Math.min(maxChunkBytes, Math.max(MIN_CHUNK_BYTES, roundUp(wanted, 4096)));
    }

    private static long roundUp(long v, long m) {
        return (v + m - 1) / m * m;
    }

    /**
     * @param bytes bytes per rank
     * @return the algorithm with the lowest predicted time
     */
    public Algorithm cheapestAllReduce(long bytes) {
        if (nRanks == 1) {
            return Algorithm.RING;
        }
        Algorithm best = Algorithm.RING;
        double bestSeconds = predictAllReduceSeconds(Algorithm.RING, bytes);
        // A tie, within the model's resolution, goes to recursive doubling: it is one exchange round where the ring
        // is two steps in series (at 2 ranks a small all-reduce costs 2h either way in the model, the ring's smaller
        // share of a few bytes' reduction aside, and one hop less in fact).
        double rd = predictAllReduceSeconds(Algorithm.RECURSIVE_DOUBLING, bytes);
        if (rd <= bestSeconds * (1 + TIE_TOLERANCE)) {
            best = Algorithm.RECURSIVE_DOUBLING;
            bestSeconds = rd;
        }
        double tree = predictAllReduceSeconds(Algorithm.TREE, bytes);
        if (tree < bestSeconds) {
            best = Algorithm.TREE;
        }
        return best;
    }

    /**
     * The model's estimate.
     *
     * @param algorithm RING, TREE or RECURSIVE_DOUBLING
     * @param bytes     bytes per rank
     * @return predicted seconds
     */
    public double predictAllReduceSeconds(Algorithm algorithm, long bytes) {
        int n = nRanks;
        double s = bytes;
        double log2 = Math.ceil(Math.log(n) / Math.log(2));
        long chunk = chunkFor(algorithm, bytes);
        return switch (algorithm) {
            case TREE -> {
                double pieces = Math.max(1, Math.ceil(s / 2 / chunk));
                yield (2 * log2 + pieces - 1) * TREE_HOP_FACTOR * hopSeconds
                        + TREE_BANDWIDTH_FACTOR * s / betaBytesPerSecond + s / gammaBytesPerSecond;
            }
            case RECURSIVE_DOUBLING -> {
                double rounds = log2 + (Integer.bitCount(n) == 1 ? 0 : 2);
                double pieces = Math.max(1, Math.ceil(s / chunk));
                yield pieces * rounds * (2 * hopSeconds + Math.min(s, chunk) / betaBytesPerSecond)
                        + rounds * s / gammaBytesPerSecond;
            }
            default -> {
                double loops = Math.max(1, Math.ceil(s / ((double) n * chunk)));
                yield (2.0 * (n - 1) + (loops - 1)) * hopSeconds + 2.0 * (n - 1) / n * s / betaBytesPerSecond
                        + (double) (n - 1) / n * s / gammaBytesPerSecond;
            }
        };
    }
}
