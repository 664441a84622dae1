package io.jccl.cli.soak;

import io.jccl.metaroce.impair.Impairments;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code --impair} value of {@code jccl soak}: what the relay does to each datagram of every flow, each way.
 * Written {@code loss=0.02,dup=0.01,reorder=0.05,corrupt=0.005} (any subset, any order; fractions, or percentages
 * with {@code %}).
 *
 * @param loss      probability a datagram is dropped
 * @param duplicate probability it is delivered twice
 * @param reorder   probability it is held back until {@value #REORDER_DEPTH_PACKETS} later ones have passed (at most
 *                  {@value #REORDER_MAX_HOLD_NS} ns)
 * @param corrupt   probability one of its bits is flipped (the receiver's CRC must catch it)
 */
record ImpairSpec(double loss, double duplicate, double reorder, double corrupt) {
    /** Later datagrams that overtake a held one. */
    static final int REORDER_DEPTH_PACKETS = 10;
    /** Longest hold of a reordered datagram when no later ones come, ns. */
    static final long REORDER_MAX_HOLD_NS = 100_000;
    /** The keys, in the order {@link #toString()} writes them. */
    static final String KEYS = "loss, dup, reorder, corrupt";

    /**
     * @param text the option's value
     * @return the spec
     * @throws IllegalArgumentException naming the part that is wrong and what is expected
     */
    static ImpairSpec parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--impair is empty; give KEY=VALUE pairs separated by commas, keys "
                    + KEYS + ", e.g. loss=0.02,dup=0.01,reorder=0.05,corrupt=0.005");
        }
        Map<String, Double> values = new LinkedHashMap<>();
        for (String part : text.split(",", -1)) {
            String p = part.trim();
            int eq = p.indexOf('=');
            if (eq <= 0 || eq == p.length() - 1) {
                throw new IllegalArgumentException("--impair: '" + p + "' is not KEY=VALUE (keys " + KEYS + ")");
            }
            String key = p.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            if (!key.equals("loss") && !key.equals("dup") && !key.equals("reorder") && !key.equals("corrupt")) {
                throw new IllegalArgumentException("--impair: unknown key '" + p.substring(0, eq).trim()
                        + "'; the keys are " + KEYS);
            }
            if (values.containsKey(key)) {
                throw new IllegalArgumentException("--impair: '" + key + "' is given twice");
            }
            values.put(key, probability(key, p.substring(eq + 1).trim()));
        }
        return new ImpairSpec(values.getOrDefault("loss", 0.0), values.getOrDefault("dup", 0.0),
                values.getOrDefault("reorder", 0.0), values.getOrDefault("corrupt", 0.0));
    }

    /** A fraction below 1, or a percentage below 100% (at 1 nothing, or nothing intact, would get through). */
    private static double probability(String key, String value) {
        boolean percent = value.endsWith("%");
        String number = percent ? value.substring(0, value.length() - 1).trim() : value;
        double v = number.matches("[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?")
                ? Double.parseDouble(number) / (percent ? 100 : 1) : Double.NaN;
        if (!(v >= 0 && v < 1)) {
            throw new IllegalArgumentException("--impair: " + key + "=" + value + " must be a probability from 0 up "
                    + "to (not including) 1, as a fraction (0.02) or a percentage (2%)");
        }
        return v;
    }

    /** @return the relay's impairments */
    Impairments impairments() {
        return Impairments.NONE.withLossRate(loss).withDuplicateRate(duplicate)
                .withReorder(reorder, REORDER_DEPTH_PACKETS, REORDER_MAX_HOLD_NS).withCorruptRate(corrupt);
    }

    /** @return the canonical form, e.g. {@code loss=0.02,dup=0.01,reorder=0.05,corrupt=0.005} */
    @Override
    public String toString() {
        return "loss=" + format(loss) + ",dup=" + format(duplicate) + ",reorder=" + format(reorder) + ",corrupt="
                + format(corrupt);
    }

    private static String format(double v) {
        String s = Double.toString(v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }
}
