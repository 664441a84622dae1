package io.jccl.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Typed, checked reading of options from one source: the process environment, a {@code CommConfig}'s merged
 * settings, a transport's {@code TransportContext.options()}. Every getter takes the option's key and a default
 * for when it is not set; a value that is set but not allowed fails with an {@link InvalidOptionException} worded
 * {@code KEY='value' is invalid: it must be EXPECTED}, naming the key as the user wrote it, the value and what would
 * have been accepted. Values are read with surrounding white space stripped.
 *
 * <p>Numbers are whole decimal numbers ({@link Long#parseLong}); byte sizes ({@link #bytes}) also take a binary
 * suffix, K, M, G or T, optionally followed by B ({@link #parseBytes}). Flags are {@code 0} or {@code 1}, and
 * choices among enum constants or names ignore case.
 *
 * <p>A reader is immutable; {@link #blankAsUnset()} and {@link #withSource} return changed copies.
 */
public final class OptionReader {
    private final Map<String, String> values;
    private final boolean blankIsUnset;
    private final Function<String, String> sourceOfKey;

    private OptionReader(Map<String, String> values, boolean blankIsUnset, Function<String, String> sourceOfKey) {
        this.values = values;
        this.blankIsUnset = blankIsUnset;
        this.sourceOfKey = sourceOfKey;
    }

    /**
     * A reader over {@code values}, which it reads but does not copy. A blank value counts as set (and is refused
     * by every typed getter) until {@link #blankAsUnset()}.
     *
     * @param values the options by key; null reads as empty
     * @return the reader
     */
    public static OptionReader of(Map<String, String> values) {
        return new OptionReader(values == null ? Map.of() : values, false, key -> null);
    }

    /** @return a reader over the same values that treats a blank value as not set (the default then applies) */
    public OptionReader blankAsUnset() {
        return new OptionReader(values, true, sourceOfKey);
    }

    /**
     * @param sourceOfKey where the value of a key came from, e.g. {@code from the environment}, for the end of error
     *                    messages; null from it leaves the source out
     * @return a reader over the same values whose errors say where the value came from
     */
    public OptionReader withSource(Function<String, String> sourceOfKey) {
        return new OptionReader(values, blankIsUnset, Objects.requireNonNull(sourceOfKey, "sourceOfKey"));
    }

    /** @return the value of {@code key} as written, or null when it is not set (or blank, with blankAsUnset) */
    public String raw(String key) {
        String v = values.get(key);
        return v == null || (blankIsUnset && v.isBlank()) ? null : v;
    }

    /** @return whether {@code key} is set */
    public boolean isSet(String key) {
        return raw(key) != null;
    }

    /** @return the value of {@code key}, stripped, or {@code fallback} when not set */
    public String string(String key, String fallback) {
        String v = raw(key);
        return v == null ? fallback : v.strip();
    }

    /**
     * @return true for {@code 1}, false for {@code 0}, {@code fallback} when not set
     * @throws InvalidOptionException for anything else
     */
    public boolean flag(String key, boolean fallback) {
        return whole(key, fallback ? 1 : 0, v -> v == 0 || v == 1, "0 or 1") == 1;
    }

    /**
     * @return the whole number {@code key} holds, {@code min} to {@code max}, or {@code fallback} when not set
     * @throws InvalidOptionException when it is not a whole number or outside the range
     */
    public long longValue(String key, long fallback, long min, long max) {
        return longValue(key, fallback, min, max, null);
    }

    /**
     * @param unit what the number counts, plural (e.g. {@code milliseconds}), for the error message; null for none
     * @return the whole number {@code key} holds, {@code min} to {@code max}, or {@code fallback} when not set
     * @throws InvalidOptionException when it is not a whole number or outside the range
     */
    public long longValue(String key, long fallback, long min, long max, String unit) {
        return whole(key, fallback, v -> v >= min && v <= max, wholeNumber(unit) + range(min, max));
    }

    /**
     * @return the whole number {@code key} holds, {@code min} to {@code max}, or {@code fallback} when not set
     * @throws InvalidOptionException when it is not a whole number or outside the range
     */
    public int intValue(String key, int fallback, int min, int max) {
        return intValue(key, fallback, min, max, null);
    }

    /**
     * @param unit what the number counts, plural, for the error message; null for none
     * @return the whole number {@code key} holds, {@code min} to {@code max}, or {@code fallback} when not set
     * @throws InvalidOptionException when it is not a whole number or outside the range
     */
    public int intValue(String key, int fallback, int min, int max, String unit) {
        return (int) longValue(key, fallback, min, max, unit);
    }

    /**
     * A whole number with a rule of its own (a power of two, zero or at least some floor, ...).
     *
     * @param accept   whether a number is allowed
     * @param expected what is allowed, completing {@code it must be ...}
     * @return the number {@code key} holds, or {@code fallback} (unchecked) when not set
     * @throws InvalidOptionException when it is not a whole number or {@code accept} refuses it
     */
    public long whole(String key, long fallback, LongPredicate accept, String expected) {
        String v = raw(key);
        if (v == null) {
            return fallback;
        }
        long n;
        try {
            n = Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw invalid(key, expected);
        }
        if (!accept.test(n)) {
            throw invalid(key, expected);
        }
        return n;
    }

    /**
     * A byte size, a whole number with an optional binary suffix ({@link #parseBytes}).
     *
     * @return the size {@code key} holds, {@code min} to {@code max} bytes, or {@code fallback} when not set
     * @throws InvalidOptionException when it is not a size or outside the range
     */
    public long bytes(String key, long fallback, long min, long max) {
        String v = raw(key);
        if (v == null) {
            return fallback;
        }
        String expected = "a size in bytes (e.g. 524288, 512K, 1M)" + range(min, max);
        long n;
        try {
            n = parseBytes(v);
        } catch (IllegalArgumentException e) {
            throw invalid(key, expected);
        }
        if (n < min || n > max) {
            throw invalid(key, expected);
        }
        return n;
    }

    /**
     * @return the constant of {@code type} named by {@code key}, ignoring case, or {@code fallback} when not set
     * @throws InvalidOptionException naming the constants, in lower case, when it names none
     */
    public <E extends Enum<E>> E choice(String key, E fallback, Class<E> type) {
        String v = raw(key);
        if (v == null) {
            return fallback;
        }
        String name = v.strip();
        for (E c : type.getEnumConstants()) {
            if (c.name().equalsIgnoreCase(name)) {
                return c;
            }
        }
        throw invalid(key, oneOf(Stream.of(type.getEnumConstants()).map(c -> c.name().toLowerCase(Locale.ROOT))
                .toList()));
    }

    /**
     * @param allowed the names allowed, in lower case
     * @return the name {@code key} holds, in lower case, or {@code fallback} when not set
     * @throws InvalidOptionException naming the allowed names when it is none of them
     */
    public String choice(String key, String fallback, List<String> allowed) {
        String v = raw(key);
        if (v == null) {
            return fallback;
        }
        String name = v.strip().toLowerCase(Locale.ROOT);
        if (!allowed.contains(name)) {
            throw invalid(key, oneOf(allowed));
        }
        return name;
    }

    /**
     * The error for the value of {@code key} as it stands, for rules the getters do not cover.
     *
     * @param expected what is allowed, completing {@code it must be ...}
     * @return the exception, to throw
     */
    public InvalidOptionException invalid(String key, String expected) {
        return because(key, "it must be " + expected);
    }

    /**
     * The error for the value of {@code key} as it stands, with a reason other than what is allowed.
     *
     * @param reason why the value is refused, e.g. {@code the host 'x' cannot be resolved}
     * @return the exception, to throw
     */
    public InvalidOptionException because(String key, String reason) {
        return new InvalidOptionException(key, values.get(key), reason, sourceOfKey.apply(key));
    }

    /**
     * Parses a byte count with an optional binary suffix: {@code 4096}, {@code 512K}, {@code 64M} or {@code 64MB},
     * {@code 1G}, {@code 1T}; case is ignored.
     *
     * @param text the text
     * @return the number of bytes
     * @throws IllegalArgumentException when it is not such a number, is negative, or overflows
     */
    public static long parseBytes(String text) {
        if (text == null) {
            throw new IllegalArgumentException("size is missing");
        }
        String t = text.strip().toUpperCase(Locale.ROOT);
        if (t.endsWith("B") && t.length() > 1 && !Character.isDigit(t.charAt(t.length() - 2))) {
            t = t.substring(0, t.length() - 1);   // 64MB -> 64M
        }
        if (t.isEmpty()) {
            throw new IllegalArgumentException("size is empty");
        }
        int shift = switch (t.charAt(t.length() - 1)) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            case 'T' -> 40;
            default -> 0;
        };
        String digits = shift > 0 ? t.substring(0, t.length() - 1) : t;
        long value;
        try {
            value = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + printable(text) + "' is not a size in bytes");
        }
        if (value < 0) {
            throw new IllegalArgumentException("'" + printable(text) + "' is negative");
        }
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + printable(text) + "' is too large");
        }
        return value << shift;
    }

    /**
     * @return {@code text} cut to 64 characters with control characters replaced by {@code ?}, fit to quote in a
     *         message; {@code null} for null
     */
    public static String printable(String text) {
        if (text == null) {
            return null;
        }
        String cut = text.length() > 64 ? text.substring(0, 64) + "..." : text;
        StringBuilder sb = new StringBuilder(cut.length());
        cut.codePoints().forEach(cp -> sb.appendCodePoint(cp < 0x20 || cp == 0x7f ? '?' : cp));
        return sb.toString();
    }

    private static String wholeNumber(String unit) {
        return unit == null ? "a whole number" : "a whole number of " + unit;
    }

    /** @return " from min to max", or ", at least min" when there is no real upper bound */
    private static String range(long min, long max) {
        return max == Long.MAX_VALUE || max == Integer.MAX_VALUE ? ", at least " + min
                : " from " + min + " to " + max;
    }

    private static String oneOf(List<String> names) {
        return "one of " + names.stream().collect(Collectors.joining(", "));
    }
}
