package io.jccl;

import java.util.Locale;

/**
 * All-reduce algorithms. The tuner picks one per call from a cost model; {@code JCCL_ALGO} or
 * {@link CommConfig.Builder#algorithm(Algorithm)} forces one.
 */
public enum Algorithm {
    /** Let the tuner choose by message size and transport properties. */
    AUTO,
    /** Ring: reduce-scatter then all-gather, pipelined in chunks; bandwidth-optimal for large messages. */
    RING,
    /** Double binary tree: reduce up and broadcast down two complementary trees, each carrying half the data. */
    TREE,
    /** Recursive doubling: log2(n) exchange rounds of the whole message; latency-optimal for small messages. */
    RECURSIVE_DOUBLING;

    /**
     * Parses {@code auto}, {@code ring}, {@code tree}, {@code rd} / {@code recursive_doubling} (any case).
     *
     * @param name the name
     * @return the algorithm
     * @throws IllegalArgumentException naming the value and the accepted names
     */
    public static Algorithm parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        return switch (n) {
            case "auto", "" -> AUTO;
            case "ring" -> RING;
            case "tree" -> TREE;
            case "rd", "recursive_doubling", "recursivedoubling" -> RECURSIVE_DOUBLING;
            default -> throw new IllegalArgumentException(
                    "unknown algorithm '" + name + "'; expected one of auto, ring, tree, rd");
        };
    }
}
