package io.jccl.config;

/**
 * Checks of the values a settings record or builder is given in code (not options a user typed: those go through
 * {@link OptionReader}). A refused value fails as an {@link IllegalArgumentException} worded
 * {@code name=value must be EXPECTED}, so every settings type names the bad argument and its value the same way.
 * Each typed check returns the value, so a constructor can check and assign in one place, and allocates nothing
 * unless it fails.
 */
public final class Arguments {
    private Arguments() {
    }

    /**
     * @param name  the argument's name, as the caller wrote it
     * @param value its value
     * @param min   the least allowed
     * @param max   the most allowed
     * @return {@code value}
     * @throws IllegalArgumentException when it is outside {@code min-max}
     */
    public static int inRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw refused(name, value, min + "-" + max);
        }
        return value;
    }

    /**
     * @param name  the argument's name, as the caller wrote it
     * @param value its value
     * @param min   the least allowed
     * @param max   the most allowed
     * @return {@code value}
     * @throws IllegalArgumentException when it is outside {@code min-max}
     */
    public static long inRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw refused(name, value, min + "-" + max);
        }
        return value;
    }

    /**
     * @param name  the argument's name, as the caller wrote it
     * @param value its value
     * @param min   the least allowed
     * @return {@code value}
     * @throws IllegalArgumentException when it is below {@code min}
     */
    public static long atLeast(String name, long value, long min) {
        if (value < min) {
            throw refused(name, value, ">= " + min);
        }
        return value;
    }

    /**
     * @param name  the argument's name, as the caller wrote it
     * @param value its value
     * @return {@code value}
     * @throws IllegalArgumentException when it is not above 0
     */
    public static long positive(String name, long value) {
        if (!(value > 0)) {
            throw refused(name, value, "> 0");
        }
        return value;
    }

    /**
     * @param name  the argument's name, as the caller wrote it
     * @param value its value
     * @return {@code value}
     * @throws IllegalArgumentException when it is not above 0 (NaN is not)
     */
    public static double positive(String name, double value) {
        if (!(value > 0)) {
            throw refused(name, value, "> 0");
        }
        return value;
    }

    /**
     * The general form, for a condition the checks above do not cover (several arguments, a range in units).
     *
     * @param ok       whether the value is allowed
     * @param name     the argument's name, as the caller wrote it (or several, e.g. {@code floor/max})
     * @param value    its value, as the message shows it
     * @param expected what it must be, e.g. {@code 1 ms to 1 h}
     * @throws IllegalArgumentException when {@code ok} is false
     */
    public static void require(boolean ok, String name, Object value, String expected) {
        if (!ok) {
            throw refused(name, value, expected);
        }
    }

    private static IllegalArgumentException refused(String name, Object value, String expected) {
        return new IllegalArgumentException(name + "=" + value + " must be " + expected);
    }
}
