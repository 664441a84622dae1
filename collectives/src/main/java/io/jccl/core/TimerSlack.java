package io.jccl.core;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Shortens the calling thread's Linux timer slack ({@code prctl(PR_SET_TIMERSLACK)}): by default the kernel may
 * fire a thread's timers up to 50 µs late, so every short {@code parkNanos} of a polling executor lasts at least
 * 50 µs. A no-op elsewhere, and when the JVM does not grant this module native access (no
 * {@code --enable-native-access}): nothing is printed then, the parks are just longer.
 */
final class TimerSlack {
    private static final int PR_SET_TIMERSLACK = 29;
    private static final MethodHandle PRCTL = lookup();

    private TimerSlack() {
    }

    private static MethodHandle lookup() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                || !TimerSlack.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("prctl").map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * @param slackNs the slack for the calling thread's timers, in nanoseconds (at least 1)
     * @return whether it was set
     */
    static boolean setForCurrentThread(long slackNs) {
        if (PRCTL == null) {
            return false;
        }
        try {
            return (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, Math.max(1, slackNs), 0L, 0L, 0L) == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
