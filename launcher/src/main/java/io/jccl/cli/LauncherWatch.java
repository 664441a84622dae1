package io.jccl.cli;

import java.util.Map;

/**
 * Ends a rank process whose launcher is gone. A launcher ({@code jccl run}, {@code jccl perf}, the benchmarks' rank
 * JVMs) stops its ranks itself when it can; when it cannot (it was killed with SIGKILL, or crashed), its ranks would
 * run on with parent pid 1, outside any {@code --timeout}, and hold ports and memory. So every rank it starts
 * watches its parent and halts, with one line on standard error, soon after the parent is gone.
 *
 * <p>The launcher puts its pid in {@value #PID_VARIABLE} for ranks it starts directly: a rank whose parent is
 * already another process when it starts (the launcher died first, and the rank was handed to init) stops at once.
 * Without the variable (a rank started through a launch agent on another host) the rank watches whatever parent it
 * has there: the agent's session (sshd's), which ends when the agent's connection does.
 */
public final class LauncherWatch {
    /** Set by a launcher in the environment of each rank it starts itself: the launcher's pid. */
    public static final String PID_VARIABLE = "JCCL_LAUNCHER_PID";
    /** Exit status of a rank that stops because its launcher is gone (nobody reads it: the launcher is gone). */
    public static final int EXIT_LAUNCHER_GONE = 3;
    /** How often the parent is looked at; bounds how long a rank outlives its launcher. */
    static final long POLL_INTERVAL_MS = 200;

    private LauncherWatch() {
    }

    /**
     * Starts watching this process's parent on a daemon thread; halts the JVM (no shutdown hooks: they could wait
     * on peers that are gone too) with {@link #EXIT_LAUNCHER_GONE} when the parent exits. Returns at once.
     *
     * @param who names this process in the line printed when the launcher is gone, e.g. {@code jccl run: rank 3}
     * @param env this process's environment: {@value #PID_VARIABLE} is read
     * @throws IllegalArgumentException when {@value #PID_VARIABLE} is set but not a pid
     */
    public static void start(String who, Map<String, String> env) {
        long expectedPid = expectedPid(env);
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        if (parent == null || (expectedPid > 0 && parent.pid() != expectedPid)) {
            gone(who, expectedPid > 0 ? expectedPid : parent == null ? -1 : parent.pid());
            return;
        }
        Thread.ofPlatform().daemon().name("jccl-launcher-watch").start(() -> {
            // isAlive() also compares the start time, so a reused pid does not count as the launcher.
            while (parent.isAlive()) {
                try {
                    Thread.sleep(POLL_INTERVAL_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
            gone(who, parent.pid());
        });
    }

    private static long expectedPid(Map<String, String> env) {
        String raw = env.get(PID_VARIABLE);
        if (raw == null || raw.isBlank()) {
            return -1;
        }
        try {
            long pid = Long.parseLong(raw.strip());
            if (pid > 0) {
                return pid;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(PID_VARIABLE + "='" + raw + "' is not a process id (it is set by the "
                + "launcher for the ranks it starts)");
    }

    private static void gone(String who, long launcherPid) {
        System.out.flush();
        System.err.println(who + ": the launcher" + (launcherPid > 0 ? " (pid " + launcherPid + ")" : "")
                + " is gone (killed or crashed); stopping this rank now, with exit status " + EXIT_LAUNCHER_GONE);
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_LAUNCHER_GONE);
    }
}
