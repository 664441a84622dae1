package io.jccl.cli.bench;

import io.jccl.cli.LauncherWatch;
import io.jccl.cli.LogBackend;
import io.jccl.cli.aot.AotOptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Rank JVMs started from this one: the same {@code java}, class path and JVM flags (debugger agents excepted),
 * their standard output and error captured together (the last {@value #KEPT_LINES} lines of each, for reports),
 * and rank 0's lines passed on in order. {@link #close()} kills whatever still runs; a shutdown hook does the same
 * if this JVM exits first (and the ranks watch this JVM themselves, see {@link CollectiveBenchRank}).
 */
public final class RankProcesses implements AutoCloseable {
    /** Captured lines kept per rank. */
    public static final int KEPT_LINES = 200;

    /** What {@link #next} saw. */
    public sealed interface Event {
    }

    /** A line rank 0 printed. */
    public record Line(String text) implements Event {
    }

    /** Every rank exited with status 0 (and all its output was read). */
    public record AllDone() implements Event {
    }

    /** A rank exited with a non-zero status; the others are still running. */
    public record Failed(int rank, int status) implements Event {
    }

    /** The deadline passed with ranks still running. */
    public record TimedOut() implements Event {
    }

    private final List<Process> processes = new ArrayList<>();
    private final List<Deque<String>> output = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();
    private final BlockingQueue<String> rank0 = new LinkedBlockingQueue<>();
    private final Thread killer = new Thread(this::killAll, "jccl-bench-rank-killer");
    private final LineListener listener;

    private RankProcesses(LineListener listener) {
        this.listener = listener;
    }

    /** Sees every line of every rank as it is read (on that rank's reader thread), besides what {@link #next} does. */
    @FunctionalInterface
    public interface LineListener {
        /**
         * @param rank whose output
         * @param text the line, without its end
         */
        void line(int rank, String text);

        /**
         * Called once the rank's output has ended (it exited, or closed it), after its last line.
         *
         * @param rank whose output
         */
        default void ended(int rank) {
        }
    }

    /** The work of a JVM started by {@link #start}: its arguments in, its exit status out. */
    @FunctionalInterface
    public interface Program {
        /**
         * @param args the program arguments
         * @return the exit status
         * @throws Exception when it fails (status 1)
         */
        int run(String[] args) throws Exception;
    }

    /**
     * The {@code main} of a JVM started by {@link #start}: configures logging from the environment, halts with
     * status 3 if the parent process exits first (so that no child outlives its benchmark; {@link LauncherWatch}),
     * runs {@code program},
     * and exits with its status; a failure is reported on standard error as one line, {@code failurePrefix} and the
     * message with its causes' (for the parent to show), then the stack trace, and exits with status 1.
     *
     * @param args          the program arguments
     * @param program       the work
     * @param failurePrefix starts the line that says why it failed
     */
    public static void runChild(String[] args, Program program, String failurePrefix) {
        LogBackend.configure(System.getenv());
        LauncherWatch.start("jccl bench: rank JVM " + ProcessHandle.current().pid(), System.getenv());
        int status;
        try {
            status = program.run(args);
        } catch (Exception | Error e) {
            System.out.flush();
            System.err.println(failurePrefix + describe(e));
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    /** @return the exception's message with its causes' on one line */
    static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
                b.append(": ").append(c.getMessage());
            }
        }
        return b.toString().replace('\n', ' ');
    }

    /**
     * Starts {@code n} JVMs running {@code mainClass}.
     *
     * @param mainClass a class with a main method on this JVM's class path
     * @param n         how many
     * @param args      the program arguments of rank r
     * @param env       environment variables added to this JVM's
     * @return the running ranks
     * @throws UncheckedIOException when a JVM cannot be started (those already started are killed)
     */
    public static RankProcesses start(Class<?> mainClass, int n, IntFunction<List<String>> args,
                                      Map<String, String> env) {
        return startEach(mainClass, n, args, r -> env);
    }

    /**
     * Starts {@code n} JVMs running {@code mainClass}, each with environment variables of its own.
     *
     * @param mainClass a class with a main method on this JVM's class path
     * @param n         how many
     * @param args      the program arguments of rank r
     * @param env       environment variables of rank r, added to this JVM's
     * @return the running ranks
     * @throws UncheckedIOException when a JVM cannot be started (those already started are killed)
     */
    public static RankProcesses startEach(Class<?> mainClass, int n, IntFunction<List<String>> args,
                                          IntFunction<Map<String, String>> env) {
        return startEach(mainClass, n, args, env, r -> List.of());
    }

    /**
     * Starts {@code n} JVMs running {@code mainClass}, each with environment variables of its own and behind a
     * command prefix of its own (e.g. {@code ip netns exec NAME}, which runs the JVM in a network namespace: the
     * prefix must exec the JVM, so that killing the process kills the JVM).
     *
     * @param mainClass a class with a main method on this JVM's class path
     * @param n         how many
     * @param args      the program arguments of rank r
     * @param env       environment variables of rank r, added to this JVM's
     * @param prefix    the words before {@code java} for rank r, empty for none
     * @return the running ranks
     * @throws UncheckedIOException when a JVM cannot be started (those already started are killed)
     */
    public static RankProcesses startEach(Class<?> mainClass, int n, IntFunction<List<String>> args,
                                          IntFunction<Map<String, String>> env, IntFunction<List<String>> prefix) {
        return startEach(mainClass, n, args, env, prefix, null);
    }

    /**
     * Starts {@code n} JVMs as {@link #startEach(Class, int, IntFunction, IntFunction, IntFunction)} does, and passes
     * every line any of them prints to {@code listener}.
     *
     * @param mainClass a class with a main method on this JVM's class path
     * @param n         how many
     * @param args      the program arguments of rank r
     * @param env       environment variables of rank r, added to this JVM's
     * @param prefix    the words before {@code java} for rank r, empty for none
     * @param listener  sees every line of every rank, or null
     * @return the running ranks
     * @throws UncheckedIOException when a JVM cannot be started (those already started are killed)
     */
    public static RankProcesses startEach(Class<?> mainClass, int n, IntFunction<List<String>> args,
                                          IntFunction<Map<String, String>> env, IntFunction<List<String>> prefix,
                                          LineListener listener) {
        RankProcesses ranks = new RankProcesses(listener);
        Runtime.getRuntime().addShutdownHook(ranks.killer);
        try {
            for (int r = 0; r < n; r++) {
                List<String> cmd = new ArrayList<>(prefix.apply(r));
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.addAll(inheritedJvmOptions());
                cmd.add("-cp");
                cmd.add(System.getProperty("java.class.path"));
                cmd.add(mainClass.getName());
                cmd.addAll(args.apply(r));
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
                pb.environment().putAll(env.apply(r));
                if (prefix.apply(r).isEmpty()) {
                    // This JVM is the rank's parent (a prefix that forked instead of exec'ing would be).
                    pb.environment().put(LauncherWatch.PID_VARIABLE, Long.toString(ProcessHandle.current().pid()));
                } else {
                    pb.environment().remove(LauncherWatch.PID_VARIABLE);   // not inherited from this JVM's launcher
                }
                Process p = pb.start();
                p.getOutputStream().close();
                ranks.add(r, p);
            }
        } catch (IOException e) {
            ranks.close();
            throw new UncheckedIOException("cannot start a rank JVM: " + e.getMessage(), e);
        }
        return ranks;
    }

    /**
     * This JVM's flags, less those that would clash in a second JVM: a debugger agent's port, and the options of an AOT
     * training run (each JVM would write the same cache). An AOT cache this JVM uses is inherited.
     */
    static List<String> inheritedJvmOptions() {
        return inheritable(ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

    /**
     * @param jvmOptions a JVM's options
     * @return those a JVM started from it gets (see {@link #inheritedJvmOptions()})
     */
    static List<String> inheritable(List<String> jvmOptions) {
        List<String> out = new ArrayList<>();
        for (String a : jvmOptions) {
            if (!(a.startsWith("-agentlib:jdwp") || a.startsWith("-Xrunjdwp") || a.equals("-Xdebug")
                    || AotOptions.isTrainingOption(a))) {
                out.add(a);
            }
        }
        return out;
    }

    private void add(int rank, Process p) {
        Deque<String> kept = new ArrayDeque<>();
        processes.add(p);
        output.add(kept);
        Thread reader = Thread.ofPlatform().daemon().name("jccl-bench-rank-" + rank + "-output").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (kept) {
                        if (kept.size() == KEPT_LINES) {
                            kept.removeFirst();
                        }
                        kept.addLast(line);
                    }
                    if (listener != null) {
                        listener.line(rank, line);
                    }
                    if (rank == 0) {
                        rank0.add(line);
                    }
                }
            } catch (IOException e) {
                // The process was killed: its output ends here.
            }
            if (listener != null) {
                listener.ended(rank);
            }
        });
        readers.add(reader);
    }

    /** @return the number of ranks */
    public int size() {
        return processes.size();
    }

    /** @return the process of rank {@code rank} */
    public Process process(int rank) {
        return processes.get(rank);
    }

    /**
     * Waits for the next line of rank 0, the end of every rank, the first failing rank or the deadline.
     *
     * @param deadlineNs a {@link System#nanoTime()} value
     * @return what happened
     */
    public Event next(long deadlineNs) throws InterruptedException {
        while (true) {
            String line = rank0.poll();
            if (line != null) {
                return new Line(line);
            }
            boolean allDone = true;
            for (int r = 0; r < processes.size(); r++) {
                Process p = processes.get(r);
                if (p.isAlive()) {
                    allDone = false;
                } else if (p.exitValue() != 0) {
                    return new Failed(r, p.exitValue());
                }
            }
            if (allDone) {
                for (Thread t : readers) {
                    t.join(TimeUnit.SECONDS.toMillis(5));
                }
                line = rank0.poll();
                return line != null ? new Line(line) : new AllDone();
            }
            long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0) {
                return new TimedOut();
            }
            line = rank0.poll(Math.min(leftNs, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
            if (line != null) {
                return new Line(line);
            }
        }
    }

    /**
     * Kills every rank and says so on {@code err}: {@code why}, then each rank's heading and last captured lines
     * ({@link #killAndReport}). Standard output is flushed first, so the report follows what was already printed.
     *
     * @param why starts the report, e.g. {@code "jccl perf: rank 1 exited with status 3"}
     * @param err where the report goes (standard error)
     */
    public void stopAndReport(String why, PrintStream err) {
        String report = killAndReport();
        System.out.flush();
        err.println(why + "; every rank stopped. Their output (last " + KEPT_LINES + " lines each):");
        err.print(report);
        err.flush();
    }

    /**
     * Kills every rank still running, waits for their output to end, and describes each rank.
     *
     * @return for each rank, a heading (exit status, or killed) and its last captured lines
     */
    public String killAndReport() {
        List<Boolean> wasAlive = new ArrayList<>();
        for (Process p : processes) {
            wasAlive.add(p.isAlive());
        }
        killAll();
        StringBuilder report = new StringBuilder();
        for (int r = 0; r < processes.size(); r++) {
            Process p = processes.get(r);
            try {
                readers.get(r).join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            report.append("--- rank ").append(r).append(" (pid ").append(p.pid()).append("): ")
                    .append(wasAlive.get(r) ? "still running, killed" : "exited with status " + p.exitValue())
                    .append('\n');
            List<String> lines;
            Deque<String> kept = output.get(r);
            synchronized (kept) {
                lines = List.copyOf(kept);
            }
            if (lines.isEmpty()) {
                report.append("    (no output)\n");
            }
            for (String l : lines) {
                report.append("    ").append(l).append('\n');
            }
        }
        return report.toString();
    }

    private void killAll() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Kills every rank still running and forgets the shutdown hook. */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException e) {
            // This JVM is shutting down: the hook runs (or ran) anyway.
        }
    }
}
