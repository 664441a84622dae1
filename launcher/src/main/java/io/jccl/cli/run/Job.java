package io.jccl.cli.run;

import io.jccl.cli.LauncherWatch;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code jccl run} job: starts every rank, copies their output with rank prefixes, and waits. A rank that
 * fails stops the others (SIGTERM, then SIGKILL after the grace period), unless {@code --keep-going}; the same
 * happens at the timeout and when the launcher gets SIGINT or SIGTERM (a second one kills at once). Everything is
 * decided on the calling thread from one queue of events (a rank exited, a signal arrived), so the bookkeeping needs
 * no locks.
 */
final class Job {
    /** Exit status when the timeout ended the job (as coreutils' timeout). */
    static final int EXIT_TIMEOUT = 124;
    /** Exit status when a rank could not be started at all. */
    static final int EXIT_CANNOT_START = 127;
    /** How long the launcher waits for a rank's output to end after the rank exited (a child may keep it open). */
    private static final long OUTPUT_DRAIN_NS = TimeUnit.SECONDS.toNanos(2);
    private static final String P = "jccl run: ";

    private sealed interface Event {
    }

    private record Exited(int rank) implements Event {
    }

    private record Signalled(String name) implements Event {
    }

    /** Why the launcher stops ranks. */
    private enum StopReason { RANK_FAILED, TIMEOUT, SIGNAL, START_FAILED }

    private final JobSpec spec;
    private final LineSink out;
    private final LineSink err;
    private final int n;
    private final Process[] procs;
    private final Integer[] status;
    private final boolean[] stopped;
    private final boolean[] killed;
    private final List<ProcessHandle> strays = new ArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<Integer> failed = new ArrayList<>();
    private StopReason stopReason;
    private String signalName;
    private long killAtNs;
    private boolean escalated;

    Job(JobSpec spec, OutputStream stdout, OutputStream stderr) {
        this.spec = spec;
        // One lock for both: with >job.log 2>&1 they are one file, and a line of either must not split the other.
        Object outputLock = new Object();
        this.out = new LineSink(stdout, outputLock);
        this.err = new LineSink(stderr, outputLock);
        this.n = spec.slots().size();
        this.procs = new Process[n];
        this.status = new Integer[n];
        this.stopped = new boolean[n];
        this.killed = new boolean[n];
    }

    /** @return the exit status for the launcher (see docs/launching.md) */
    int run() throws InterruptedException {
        Thread hook = Thread.ofPlatform().unstarted(this::killEverything);
        Runtime.getRuntime().addShutdownHook(hook);
        try (SignalTrap trap = SignalTrap.install(List.of("INT", "TERM"), name -> events.add(new Signalled(name)))) {
            int code = runWithSignals();
            return code;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Shutting down: the hook runs anyway.
            }
        }
    }

    private int runWithSignals() throws InterruptedException {
        int started = 0;
        String startError = null;
        for (Placement.Slot slot : spec.slots()) {
            try {
                start(slot);
                started++;
            } catch (IOException e) {
                startError = "cannot start rank " + slot.rank() + " on " + slot.host() + ": " + e.getMessage();
                break;
            }
        }
        if (startError != null) {
            err.println(P + startError);
            stop(StopReason.START_FAILED);
        }
        long deadlineNs = spec.timeout() == null ? Long.MAX_VALUE : System.nanoTime() + spec.timeout().toNanos();
        int alive = started;
        while (alive > 0) {
            long now = System.nanoTime();
            long until = Math.min(deadlineNs, stopReason != null && !escalated ? killAtNs : Long.MAX_VALUE);
            Event e = until == Long.MAX_VALUE ? events.take()
                    : events.poll(Math.max(0, until - now), TimeUnit.NANOSECONDS);
            if (e == null) {
                if (stopReason == null && System.nanoTime() - deadlineNs >= 0) {
                    err.println(P + "the job ran past --timeout " + seconds(spec.timeout()) + "; stopping every rank");
                    stop(StopReason.TIMEOUT);
                } else if (stopReason != null && !escalated && System.nanoTime() - killAtNs >= 0) {
                    escalate();
                }
                continue;
            }
            switch (e) {
                case Exited(int rank) -> {
                    alive--;
                    int s = procs[rank].exitValue();
                    status[rank] = s;
                    if (s != 0 && !stopped[rank]) {
                        failed.add(rank);
                        if (stopReason == null && !spec.keepGoing()) {
                            err.println(P + describe(rank) + "; stopping the other ranks");
                            stop(StopReason.RANK_FAILED);
                        } else if (stopReason == null) {
                            err.println(P + describe(rank) + "; the others keep going (--keep-going)");
                        }
                    }
                }
                case Signalled(String name) -> {
                    if (stopReason == null) {
                        signalName = "SIG" + name;
                        err.println(P + "got " + signalName + "; stopping every rank (again to kill them at once)");
                        stop(StopReason.SIGNAL);
                    } else if (!escalated) {
                        err.println(P + "got SIG" + name + " again; killing every rank");
                        escalate();
                    }
                }
            }
        }
        killStrays();
        drainOutput();
        summary(started);
        return exitCode(startError != null);
    }

    /** Starts one rank and the threads that copy its output. */
    private void start(Placement.Slot slot) throws IOException {
        int rank = slot.rank();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("JCCL_RANK", Integer.toString(rank));
        env.put("JCCL_SIZE", Integer.toString(n));
        env.put("JCCL_LOCAL_RANK", Integer.toString(slot.localRank()));
        env.put("JCCL_LOCAL_SIZE", Integer.toString(slot.localSize()));
        env.putAll(spec.rankEnv());
        ProcessBuilder pb;
        boolean remote = !spec.localHost().isLocal(slot.host());
        if (remote) {
            pb = new ProcessBuilder(remoteCommand(slot.host(), env));
        } else {
            pb = new ProcessBuilder(spec.argv());
            Map<String, String> pe = pb.environment();
            for (String v : JobSpec.INHERITED_CONFLICTS) {
                if (!spec.rankEnv().containsKey(v)) {
                    pe.remove(v);
                }
            }
            pe.putAll(env);
            pe.put("JCCL_COMM_ID", spec.commId());
            // This JVM is the rank's parent: a rank that finds another parent knows the launcher is gone.
            pe.put(LauncherWatch.PID_VARIABLE, Long.toString(ProcessHandle.current().pid()));
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        }
        pb.directory(spec.workDir().toFile());
        Process p = pb.start();
        procs[rank] = p;
        if (remote) {
            // The id (with its secret) goes through the agent's standard input, not onto a remote command line
            // where any user of that host could read it.
            try (OutputStream in = p.getOutputStream()) {
                in.write((spec.commId() + "\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                // The agent already exited: its status tells why.
            }
        }
        byte[] prefix = ("[" + rank + "] ").getBytes(StandardCharsets.US_ASCII);
        pumps.add(Thread.ofVirtual().name("jccl-run-" + rank + "-out").start(() -> out.pump(p.getInputStream(),
                prefix)));
        pumps.add(Thread.ofVirtual().name("jccl-run-" + rank + "-err").start(() -> err.pump(p.getErrorStream(),
                prefix)));
        p.onExit().thenRun(() -> events.add(new Exited(rank)));
    }

    /**
     * The launch agent's command for a remote rank: the agent's words, the host, and one shell command line that
     * enters the working directory, reads {@code JCCL_COMM_ID} from standard input and runs the rank with its
     * variables through {@code env}.
     */
    List<String> remoteCommand(String host, Map<String, String> env) {
        List<String> envWords = new ArrayList<>();
        env.forEach((k, v) -> envWords.add(k + "=" + v));
        String dir = ShellWords.quote(spec.workDir().toString());
        String script = "cd " + dir + " 2>/dev/null || echo \"jccl run: no directory \"" + dir
                + "\" on $(hostname); starting in $PWD\" >&2; IFS= read -r JCCL_COMM_ID && export JCCL_COMM_ID && exec"
                + " env " + ShellWords.join(envWords) + " " + ShellWords.join(spec.argv());
        List<String> cmd = new ArrayList<>(spec.agent());
        cmd.add(host);
        cmd.add(script);
        return cmd;
    }

    /** SIGTERM to every rank still running; SIGKILL follows after the grace period. */
    private void stop(StopReason reason) {
        stopReason = reason;
        for (int r = 0; r < n; r++) {
            Process p = procs[r];
            if (p != null && p.isAlive()) {
                stopped[r] = true;
                // Remember what the rank started: orphans of a stopped rank must not outlive the job.
                p.descendants().forEach(strays::add);
                // Through the handle: Process.destroy() would also close our ends of the rank's pipes, losing
                // what it prints while it stops.
                p.toHandle().destroy();
            }
        }
        killAtNs = System.nanoTime() + spec.grace().toNanos();
        if (spec.grace().isZero()) {
            escalate();
        }
    }

    /** SIGKILL to every rank still running. */
    private void escalate() {
        escalated = true;
        for (int r = 0; r < n; r++) {
            Process p = procs[r];
            if (p != null && p.isAlive()) {
                stopped[r] = true;
                killed[r] = true;
                p.descendants().forEach(strays::add);
                p.toHandle().destroyForcibly();
            }
        }
    }

    /** Waits a little for output still in the pipes (a rank's child may hold them open, so not for long). */
    private void drainOutput() throws InterruptedException {
        long endNs = System.nanoTime() + OUTPUT_DRAIN_NS;
        for (Thread t : pumps) {
            long leftNs = endNs - System.nanoTime();
            if (leftNs > 0) {
                t.join(Duration.ofNanos(leftNs));
            }
        }
    }

    private void killStrays() {
        for (ProcessHandle h : strays) {
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
    }

    /** The shutdown hook: the launcher is dying (e.g. SIGHUP, or signals not catchable here); take the ranks along. */
    private void killEverything() {
        for (Process p : procs) {
            if (p != null && p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
    }

    private void summary(int started) {
        if (failed.isEmpty() && stopReason == null) {
            return;
        }
        for (int rank : failed) {
            err.println(P + describe(rank));
        }
        List<Integer> stoppedRanks = new ArrayList<>();
        List<Integer> killedRanks = new ArrayList<>();
        for (int r = 0; r < started; r++) {
            if (stopped[r]) {
                stoppedRanks.add(r);
            }
            if (killed[r]) {
                killedRanks.add(r);
            }
        }
        if (!stoppedRanks.isEmpty()) {
            String why = switch (stopReason) {
                case RANK_FAILED -> "after rank " + failed.getFirst() + " failed";
                case TIMEOUT -> "at the --timeout of " + seconds(spec.timeout());
                case SIGNAL -> "on " + signalName;
                case START_FAILED -> "because a rank could not be started";
            };
            err.println(P + plural(stoppedRanks) + " stopped by the launcher " + why + " (SIGTERM"
                    + (killedRanks.isEmpty() ? ")" : "; " + plural(killedRanks) + " killed with SIGKILL after the "
                    + seconds(spec.grace()) + " grace)"));
        }
        int failedCount = failed.size();
        if (failedCount > 0) {
            err.println(P + failedCount + " of " + n + (n == 1 ? " rank" : " ranks") + " failed");
        }
    }

    private int exitCode(boolean startFailed) {
        if (startFailed) {
            return EXIT_CANNOT_START;
        }
        if (stopReason == StopReason.SIGNAL) {
            return 128 + ("SIGINT".equals(signalName) ? 2 : 15);
        }
        if (!failed.isEmpty()) {
            int s = status[failed.getFirst()];
            return s == 0 ? 1 : s;
        }
        if (stopReason == StopReason.TIMEOUT) {
            return EXIT_TIMEOUT;
        }
        return 0;
    }

    /** @return e.g. "rank 2 (pid 4711 on localhost) exited with status 3" */
    private String describe(int rank) {
        Placement.Slot slot = spec.slots().get(rank);
        int s = status[rank];
        boolean remote = !spec.localHost().isLocal(slot.host());
        String where = remote ? "on " + slot.host() + ", launch agent pid " + procs[rank].pid()
                : "pid " + procs[rank].pid() + " on " + slot.host();
        String what;
        if (remote && s == 255) {
            what = "exited with status 255 (the launch agent failed, e.g. could not connect, or the remote rank was"
                    + " killed by a signal)";
        } else if (remote && ExitStatus.signal(s) != 0) {
            what = "exited with status " + s + " (the remote rank or its launch agent "
                    + ExitStatus.describe(s) + ")";
        } else {
            what = ExitStatus.describe(s);
        }
        return "rank " + rank + " (" + where + ") " + what;
    }

    private static String plural(List<Integer> ranks) {
        StringBuilder sb = new StringBuilder(ranks.size() == 1 ? "rank " : "ranks ");
        for (int i = 0; i < ranks.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(ranks.get(i));
        }
        return sb.append(ranks.size() == 1 ? " was" : " were").toString();
    }

    private static String seconds(Duration d) {
        double s = d.toMillis() / 1000.0;
        return (s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s)) + " s";
    }
}
