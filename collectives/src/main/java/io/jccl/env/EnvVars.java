package io.jccl.env;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.config.InvalidOptionException;
import io.jccl.config.OptionReader;

import java.util.Map;

/** Reading launcher variables with errors that name the variable and its value. */
final class EnvVars {
    private EnvVars() {
    }

    /** @return the value, stripped, or null when unset or blank */
    static String get(Map<String, String> env, String name) {
        return reader(env).string(name, null);
    }

    /** @return a reader of {@code env} for which blank variables are unset, as launchers sometimes leave them */
    static OptionReader reader(Map<String, String> env) {
        return OptionReader.of(env).blankAsUnset();
    }

    /** @return whether the variable is set to something other than blanks */
    static boolean isSet(Map<String, String> env, String name) {
        return get(env, name) != null;
    }

    /** @return the first of {@code names} that is set, or null */
    static String firstSet(Map<String, String> env, String... names) {
        for (String n : names) {
            if (isSet(env, n)) {
                return n;
            }
        }
        return null;
    }

    /**
     * Reads a required whole number.
     *
     * @param why what needs it, for the message when it is unset (e.g. "under Open MPI")
     */
    static int required(Map<String, String> env, String name, int min, String why) {
        String v = get(env, name);
        if (v == null) {
            throw invalid(name + " is not set; it is needed " + why);
        }
        return parse(env, name, min);
    }

    /** Reads an optional whole number; -1 when unset. */
    static int optional(Map<String, String> env, String name, int min) {
        String v = get(env, name);
        return v == null ? -1 : parse(env, name, min);
    }

    private static int parse(Map<String, String> env, String name, int min) {
        try {
            return reader(env).intValue(name, -1, min, Integer.MAX_VALUE);
        } catch (InvalidOptionException e) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), e);
        }
    }

    /**
     * Checks that the numbers a launcher gave fit together: {@code 0 <= rank < size}, and when both local values
     * are known, {@code 0 <= localRank < localSize <= size}.
     */
    static void checkPlacement(String rankVar, int rank, String sizeVar, int size, String localRankVar,
                               int localRank, String localSizeVar, int localSize) {
        if (size < 1) {
            throw invalid(sizeVar + "=" + size + " must be at least 1");
        }
        if (rank < 0 || rank >= size) {
            throw invalid(rankVar + "=" + rank + " is out of range for " + sizeVar + "=" + size + " (0 to "
                    + (size - 1) + ")");
        }
        if (localSize > size) {
            throw invalid(localSizeVar + "=" + localSize + " is larger than " + sizeVar + "=" + size);
        }
        if (localRank >= 0 && localSize >= 1 && localRank >= localSize) {
            throw invalid(localRankVar + "=" + localRank + " is out of range for " + localSizeVar + "=" + localSize
                    + " (0 to " + (localSize - 1) + ")");
        }
    }

    static JcclException invalid(String message) {
        return new JcclException(ErrorCode.INVALID_ARGUMENT, message);
    }

    /** @return {@code text} cut to 64 characters with control characters replaced, for messages */
    static String printable(String text) {
        return OptionReader.printable(text);
    }
}
