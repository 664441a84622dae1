package io.jccl.examples.support;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The examples' command-line options: {@code --name value} or {@code --name=value}, each read once with a default
 * and a valid range. Every error names the option and the value, and {@link #finish()} refuses options no one read,
 * so a typo is never silently ignored.
 *
 * <pre>{@code
 * ExampleArgs args = ExampleArgs.parse(argv);
 * int epochs = args.intValue("--epochs", 10, 1, 1_000_000);
 * args.finish();
 * }</pre>
 */
public final class ExampleArgs {
    private final Map<String, String> values = new LinkedHashMap<>();

    private ExampleArgs() {
    }

    /**
     * @param argv the program's arguments
     * @return the options
     * @throws IllegalArgumentException for a word that is not an option, an option without a value, or one given
     *                                  twice
     */
    public static ExampleArgs parse(String... argv) {
        Objects.requireNonNull(argv, "argv");
        ExampleArgs args = new ExampleArgs();
        for (int i = 0; i < argv.length; i++) {
            String word = argv[i];
            if (!word.startsWith("--") || word.length() == 2) {
                throw new IllegalArgumentException("'" + word + "' is not an option (options are --name value)");
            }
            String name;
            String value;
            int eq = word.indexOf('=');
            if (eq > 0) {
                name = word.substring(0, eq);
                value = word.substring(eq + 1);
            } else if (word.equals("--help")) {
                name = word;
                value = "true";
            } else {
                if (i + 1 >= argv.length) {
                    throw new IllegalArgumentException(word + " needs a value");
                }
                name = word;
                value = argv[++i];
            }
            if (args.values.putIfAbsent(name, value) != null) {
                throw new IllegalArgumentException(name + " is given twice");
            }
        }
        return args;
    }

    /**
     * The start of an example's {@code main}: with {@code --help}, prints the usage and returns null (the program has
     * nothing more to do); when the options do not parse, prints the error and the usage on standard error and exits
     * with status 2.
     *
     * @param program the program's name, which starts the error message
     * @param argv    the program's arguments
     * @param usage   the program's usage text
     * @param parser  reads the program's options from its arguments, throwing {@link IllegalArgumentException} for
     *                a bad one
     * @param <T>     the program's options
     * @return the options, or null after {@code --help}
     */
    public static <T> T parseOrExit(String program, String[] argv, String usage, Function<String[], T> parser) {
        try {
            if (parse(argv).help()) {
                System.out.print(usage);
                return null;
            }
            return parser.apply(argv);
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            System.err.print(usage);
            System.exit(2);
            return null;
        }
    }

    /** @return whether {@code --help} was given (it is then consumed) */
    public boolean help() {
        return values.remove("--help") != null;
    }

    /**
     * @param name         e.g. {@code --epochs}
     * @param defaultValue the value when it is not given
     * @param min          the smallest valid value
     * @param max          the largest valid value
     * @return the value
     * @throws IllegalArgumentException when it is not a whole number in {@code [min, max]}
     */
    public long longValue(String name, long defaultValue, long min, long max) {
        return number(name, defaultValue, text -> Long.parseLong(text.replace("_", "")), "a whole number",
                v -> v >= min && v <= max, min, max);
    }

    /** {@link #longValue} for an {@code int}. */
    public int intValue(String name, int defaultValue, int min, int max) {
        return (int) longValue(name, defaultValue, min, max);
    }

    /**
     * @param name         e.g. {@code --lr}
     * @param defaultValue the value when it is not given
     * @param min          the smallest valid value
     * @param max          the largest valid value
     * @return the value
     * @throws IllegalArgumentException when it is not a finite number in {@code [min, max]}
     */
    public double doubleValue(String name, double defaultValue, double min, double max) {
        return number(name, defaultValue, Double::parseDouble, "a number", v -> v >= min && v <= max, min, max);
    }

    /**
     * What {@link #longValue} and {@link #doubleValue} share: the default when the option is not given, else the
     * value parsed and checked, each error naming the option and what was given.
     *
     * @param kind    what the text must be, for the error when it does not parse, e.g. {@code "a whole number"}
     * @param inRange whether a parsed value is valid (false for NaN)
     */
    private <N extends Number> N number(String name, N defaultValue, Function<String, N> parse, String kind,
                                        Predicate<N> inRange, N min, N max) {
        String text = values.remove(name);
        if (text == null) {
            return defaultValue;
        }
        N v;
        try {
            v = parse.apply(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": '" + text + "' is not " + kind);
        }
        if (!inRange.test(v)) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], got " + text);
        }
        return v;
    }

    /**
     * @param name         e.g. {@code --master}
     * @param defaultValue the value when it is not given (may be null)
     * @return the value
     */
    public String stringValue(String name, String defaultValue) {
        String text = values.remove(name);
        return text == null ? defaultValue : text;
    }

    /**
     * @param name e.g. {@code --weights-out}
     * @return the path given, or null
     */
    public Path pathValue(String name) {
        String text = values.remove(name);
        if (text != null && text.isBlank()) {
            throw new IllegalArgumentException(name + " needs a file name");
        }
        return text == null ? null : Path.of(text);
    }

    /**
     * @throws IllegalArgumentException naming the options given that none of the getters read
     */
    public void finish() {
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("unknown option" + (values.size() > 1 ? "s " : " ")
                    + String.join(", ", values.keySet()));
        }
    }
}
