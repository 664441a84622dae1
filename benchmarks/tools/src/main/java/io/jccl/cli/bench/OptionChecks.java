package io.jccl.cli.bench;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The range checks the tools' commands make of their numeric options, with the same words everywhere: a value out of
 * range is a usage error (exit status 2) naming the option, the range and the value.
 */
public final class OptionChecks {
    private OptionChecks() {
    }

    /**
     * @param spec   the command's spec (the error is its usage error)
     * @param option the option's name as the user typed it, e.g. {@code "--paths"}
     * @param value  what was given
     * @param min    smallest allowed
     * @param max    largest allowed
     * @throws CommandLine.ParameterException "OPTION must be MIN-MAX, got VALUE" when out of range
     */
    public static void within(CommandSpec spec, String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw usage(spec, option + " must be " + min + "-" + max + ", got " + value);
        }
    }

    /**
     * {@link #within} in other words, for the commands that say it so.
     *
     * @param spec   the command's spec
     * @param option the option's name
     * @param value  what was given
     * @param min    smallest allowed
     * @param max    largest allowed
     * @throws CommandLine.ParameterException "OPTION must be between MIN and MAX, got VALUE" when out of range
     */
    public static void between(CommandSpec spec, String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw usage(spec, option + " must be between " + min + " and " + max + ", got " + value);
        }
    }

    /**
     * @param spec   the command's spec
     * @param option the option's name
     * @param value  what was given
     * @param min    smallest allowed
     * @throws CommandLine.ParameterException "OPTION must be at least MIN, got VALUE" when below it
     */
    public static void atLeast(CommandSpec spec, String option, long value, long min) {
        if (value < min) {
            throw usage(spec, option + " must be at least " + min + ", got " + value);
        }
    }

    /**
     * @param spec   the command's spec
     * @param option the option's name
     * @param values what was given, in order
     * @throws CommandLine.ParameterException "OPTION: VALUE is listed twice" for the first value given again
     */
    public static void noRepeats(CommandSpec spec, String option, List<?> values) {
        Set<Object> seen = new HashSet<>();
        for (Object v : values) {
            if (!seen.add(v)) {
                throw usage(spec, option + ": " + v + " is listed twice");
            }
        }
    }

    private static CommandLine.ParameterException usage(CommandSpec spec, String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
