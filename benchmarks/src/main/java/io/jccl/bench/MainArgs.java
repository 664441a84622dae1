package io.jccl.bench;

import io.jccl.CommConfig;

import java.util.function.ToLongFunction;

/** The command lines of the benchmark mains that the scripts run: a wrong one prints why and exits 2. */
final class MainArgs {
    private MainArgs() {
    }

    /**
     * Prints {@code why} on standard error and exits 2 unless {@code ok}.
     *
     * @param ok  whether the arguments are right
     * @param why the line to print: a usage line, or the program's name and what is wrong
     */
    static void require(boolean ok, String why) {
        if (!ok) {
            System.err.println(why);
            System.exit(2);
        }
    }

    /**
     * @param program the main's name, for the message
     * @param text    a size in bytes with an optional K, M or G
     * @return the size; exits 2 naming the program when the text is none
     */
    static long bytes(String program, String text) {
        return parsed(program, text, CommConfig::parseBytes);
    }

    /**
     * @param program the main's name, for the message
     * @param text    a whole number
     * @return the number; exits 2 naming the program when the text is none
     */
    static int count(String program, String text) {
        return (int) parsed(program, text, Integer::parseInt);
    }

    private static long parsed(String program, String text, ToLongFunction<String> parse) {
        try {
            return parse.applyAsLong(text);
        } catch (IllegalArgumentException e) {   // NumberFormatException too
            require(false, program + ": " + e.getMessage());
            throw e;   // not reached
        }
    }
}
