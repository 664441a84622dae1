package io.jccl.tune;

import io.jccl.Algorithm;
import io.jccl.plan.OpKind;

/**
 * Picks an algorithm and chunk size from a latency-bandwidth cost model (NCCL's tuning idea, simplified).
 *
 * <p>Each message costs {@code alpha = transport latency + per-step software overhead}; moving {@code b}
 * bytes over one connection costs {@code b / beta}. For an all-reduce of {@code S} bytes over {@code n} ranks:
 * <ul>
 * <li>ring: {@code 2(n-1) alpha + 2(n-1)/n * S/beta}, plus one alpha per extra pipelined loop;</li>
 * <li>double binary tree: {@code 2 ceil(log2 n) alpha + S/beta}, plus one alpha per extra piece;</li>
 * <li>recursive doubling: {@code r (alpha + S/beta)} with {@code r = ceil(log2 n)} rounds (+2 when n is not a
 *     power of two).</li>
 * </ul>
 * The cheapest wins unless the configuration forces one. Constants are documented in {@code docs/tuning.md}.
 */
public final class Tuner {
    /** Software cost of one pipeline step (posting, matching, waking a thread), measured on the in-JVM transport. */
    public static final double STEP_OVERHEAD_SECONDS = 4e-6;
    /** Smallest chunk the tuner picks. */
    public static final long MIN_CHUNK_BYTES = 16 << 10;

    private final int nRanks;
    private final double alphaSeconds;
    private final double betaBytesPerSecond;
    private final long maxChunkBytes;
    private final Algorithm forcedAlgorithm;
    private final long forcedChunkBytes;

    /**
     * The choice for one operation.
     *
     * @param algorithm  the all-reduce algorithm (RING for other operations)
     * @param chunkBytes the pipeline chunk in bytes
     */
    public record Choice(Algorithm algorithm, long chunkBytes) {
    }

    /**
     * @param nRanks             ranks in the communicator
     * @param latencySeconds     one-way latency of the slowest transport in use
     * @param bandwidthBytesPerSecond bandwidth of the slowest transport in use
     * @param maxChunkBytes      largest chunk worth using on these transports
     * @param forcedAlgorithm    {@link Algorithm#AUTO} or the algorithm to use
     * @param forcedChunkBytes   0 or the chunk to use
     */
    public Tuner(int nRanks, double latencySeconds, double bandwidthBytesPerSecond, long maxChunkBytes,
                 Algorithm forcedAlgorithm, long forcedChunkBytes) {
        this.nRanks = nRanks;
        this.alphaSeconds = latencySeconds + STEP_OVERHEAD_SECONDS;
        this.betaBytesPerSecond = bandwidthBytesPerSecond;
        this.maxChunkBytes = Math.max(MIN_CHUNK_BYTES, maxChunkBytes);
        this.forcedAlgorithm = forcedAlgorithm;
        this.forcedChunkBytes = forcedChunkBytes;
    }

    /**
     * @param kind  the operation
     * @param bytes bytes per rank the operation reduces or moves (the all-reduce count times element size)
     * @return algorithm and chunk
     */
    public Choice choose(OpKind kind, long bytes) {
        Algorithm algorithm = Algorithm.RING;
        if (kind == OpKind.ALL_REDUCE) {
            algorithm = forcedAlgorithm != Algorithm.AUTO ? forcedAlgorithm : cheapestAllReduce(bytes);
        }
        long chunk = forcedChunkBytes > 0 ? forcedChunkBytes : chunkFor(algorithm, bytes);
        return new Choice(algorithm, chunk);
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

    Algorithm cheapestAllReduce(long bytes) {
        if (nRanks == 1) {
            return Algorithm.RING;
        }
        Algorithm best = Algorithm.RING;
        double bestSeconds = predictAllReduceSeconds(Algorithm.RING, bytes);
        for (Algorithm a : new Algorithm[] {Algorithm.TREE, Algorithm.RECURSIVE_DOUBLING}) {
            double s = predictAllReduceSeconds(a, bytes);
            if (s < bestSeconds) {
                best = a;
                bestSeconds = s;
            }
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
                yield 2 * log2 * alphaSeconds + (pieces - 1) * alphaSeconds + s / betaBytesPerSecond;
            }
            case RECURSIVE_DOUBLING -> {
                double rounds = log2 + (Integer.bitCount(n) == 1 ? 0 : 2);
                double pieces = Math.max(1, Math.ceil(s / chunk));
                yield pieces * rounds * (alphaSeconds + Math.min(s, chunk) / betaBytesPerSecond);
            }
            default -> {
                double loops = Math.max(1, Math.ceil(s / ((double) n * chunk)));
                yield (2.0 * (n - 1) + (loops - 1)) * alphaSeconds + 2.0 * (n - 1) / n * s / betaBytesPerSecond;
            }
        };
    }
}
