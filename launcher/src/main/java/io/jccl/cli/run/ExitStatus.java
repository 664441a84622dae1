package io.jccl.cli.run;

/**
 * What a rank's exit status means. The JDK reports a child killed by signal N as status 128 + N, as shells do,
 * so a rank that itself exits with 128 + N reads the same (a JVM that ends because of SIGTERM does exactly that:
 * it runs its shutdown hooks and exits with 143). Statuses 129 to 159 are therefore described as signals 1 to 31,
 * with the number shown.
 */
final class ExitStatus {
    private static final String[] NAMES = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
        "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
        "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ",
        "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};

    private ExitStatus() {
    }

    /** @return the signal number a status stands for, or 0 when it is an ordinary exit status */
    static int signal(int status) {
        return status > 128 && status < 128 + NAMES.length ? status - 128 : 0;
    }

    /** @return e.g. SIGKILL */
    static String signalName(int signal) {
        return signal > 0 && signal < NAMES.length ? NAMES[signal] : "signal " + signal;
    }

    /** @return e.g. "exited with status 3" or "was killed by signal 9 (SIGKILL)" */
    static String describe(int status) {
        int sig = signal(status);
        return sig == 0 ? "exited with status " + status
                : "was killed by signal " + sig + " (" + signalName(sig) + ")";
    }
}
