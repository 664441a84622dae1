package io.jccl.cli.soak;

import io.jccl.CommConfig;
import io.jccl.UniqueId;
import io.jccl.bootstrap.NetworkInterfaces;
import io.jccl.check.Workload;
import io.jccl.check.WorkloadOp;
import io.jccl.cli.Main;
import io.jccl.cli.bench.Json;
import io.jccl.cli.bench.RankProcesses;
import io.jccl.cli.progress.TerminalBar;
import io.jccl.metaroce.fabric.ImpairmentProxy;
import io.jccl.metaroce.fabric.ProxyConfig;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The parent of {@code jccl soak}: starts the relay (with {@code --impair}) and the rank JVMs, follows every rank's
 * progress lines ({@link SoakRank}), and decides. Everything is decided on the calling thread from one queue of
 * events (a rank's line, the end of a rank's output), so the bookkeeping needs no locks.
 *
 * <p>A rank that reports a failed operation or exits before its end stops the job: the others get
 * {@value #STOP_GRACE_SECONDS} s to report their side, then every rank still running is killed. The watchdog: a
 * rank without progress (a line) for twice the operation timeout — the library's own timeout should have failed
 * the operation by then — is hung; so is one that finished but does not exit for that long. Then every rank's
 * last state is printed and all are killed.
 */
final class SoakLauncher {
    /** The relay's control address for the ranks (io.jccl.metaroce.net.MetaRoceOptions.RELAY). */
    static final String RELAY_VARIABLE = "JCCL_METAROCE_RELAY";
    /** Errors reported in full; the rest are only counted. */
    static final int MAX_ERRORS = 10;
    /** How long the other ranks get to report once one failed. */
    static final long STOP_GRACE_SECONDS = 3;
    /** Before a rank has joined, the watchdog allows at least this (JVM start and rendezvous on a loaded host). */
    private static final long STARTUP_ALLOWANCE_NS = TimeUnit.SECONDS.toNanos(120);
    private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final String P = "jccl soak: ";

    private sealed interface Event {
    }

    private record Line(int rank, String text) implements Event {
    }

    private record OutputEnded(int rank) implements Event {
    }

    /** One problem for the report. */
    private record Problem(int rank, int op, String description, String message) {
    }

    /** What the parent knows of one rank. */
    private static final class RankState {
        boolean ready;
        int lastDone = -1;
        long lastProgressNs;
        boolean ended;
        long endNs;
        int stalledBefore = -1;
        boolean outputEnded;
        Integer exitStatus;
        /** It reported a failed operation. */
        boolean failed;
    }

    private final SoakCommand.Settings s;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean showProgress;
    /** Operations done on every rank, drawn on {@link #err} while {@link #follow} runs; null otherwise. */
    private TerminalBar bar;
    private final int n;
    private final List<WorkloadOp> ops;
    private final RankState[] ranks;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<Problem> problems = new ArrayList<>();
    private final Set<Integer> timedOutOps = new LinkedHashSet<>();
    private final List<String> lastStates = new ArrayList<>();
    private int problemCount;
    private long wrong;
    private int watchdogHangs;
    private int rankFailures;
    private long stopAtNs;
    private boolean stopping;
    private String relayCounters;

    SoakLauncher(SoakCommand.Settings s, PrintStream out, PrintStream err, boolean showProgress) {
        this.s = s;
        this.out = out;
        this.err = err;
        this.showProgress = showProgress;
        this.n = s.np();
        this.ops = Workload.generate(s.seed(), n, s.ops(), s.spec());
        this.ranks = new RankState[n];
        for (int r = 0; r < n; r++) {
            ranks[r] = new RankState();
        }
    }

    /** @return the exit status: 0 when every operation completed on every rank with every element right */
    int run() throws InterruptedException {
        long startNs = System.nanoTime();
        if (!s.json()) {
            out.println(P + s.ops() + " operations on " + n + (n == 1 ? " rank" : " ranks") + ", transport "
                    + s.transport() + (s.impair() == null ? "" : " impaired " + s.impair()) + ", seed " + s.seed()
                    + ", buffers up to " + s.spec().maxBytesPerRank() + " bytes, op timeout " + s.opTimeoutSeconds()
                    + " s");
            out.flush();
        }
        Map<String, String> common = new HashMap<>();
        common.put(SoakCommand.RANK_ENV, "1");
        common.put("JCCL_COMM_ID", UniqueId.create().encode());
        common.put(CommConfig.OP_TIMEOUT_MS, Long.toString(TimeUnit.SECONDS.toMillis(s.opTimeoutSeconds())));
        if (!s.transport().equals("auto")) {
            common.put(CommConfig.NET, s.transport());
        }
        ImpairmentProxy relay = null;
        if (s.impair() != null) {
            common.put(NetworkInterfaces.FAMILY_VARIABLE, "AF_INET");   // the relay carries IPv4 only
            try {
                relay = startRelay(common);
            } catch (RuntimeException e) {
                problem(-1, -1, "cannot start the impairing relay: " + e.getMessage());
                rankFailures = n;
                return finish(startNs);
            }
            common.put(RELAY_VARIABLE, relay.controlAddress().getAddress().getHostAddress() + ":"
                    + relay.controlAddress().getPort());
            if (!s.json()) {
                out.println(P + "relay at " + common.get(RELAY_VARIABLE));
            }
        }
        try {
            List<String> args = SoakCommand.rankArgs(s);
            RankProcesses procs;
            try {
                procs = RankProcesses.startEach(Main.class, n, r -> args, r -> rankEnv(common, r), r -> List.of(),
                        new RankProcesses.LineListener() {
                            @Override
                            public void line(int rank, String text) {
                                events.add(new Line(rank, text));
                            }

                            @Override
                            public void ended(int rank) {
                                events.add(new OutputEnded(rank));
                            }
                        });
            } catch (UncheckedIOException e) {
                problem(-1, -1, e.getMessage());
                rankFailures = n;
                return finish(startNs);
            }
            try (procs) {
                follow(procs, startNs);
            }
        } finally {
            if (relay != null) {
                relayCounters = relay.counters();
                relay.close();
            }
        }
        return finish(startNs);
    }

    /** Starts the impairing relay on the address the ranks' sockets will use (seeded with the workload's seed). */
    private ImpairmentProxy startRelay(Map<String, String> common) {
        Map<String, String> rankView = new HashMap<>(System.getenv());
        rankView.putAll(common);
        InetAddress bind = NetworkInterfaces.select(rankView);
        ImpairmentProxy relay = new ImpairmentProxy(ProxyConfig.defaults(bind).withSeed(s.seed())
                .withImpairments(s.impair().impairments()));
        try {
            relay.start();
        } catch (RuntimeException e) {
            relay.close();
            throw e;
        }
        return relay;
    }

    private Map<String, String> rankEnv(Map<String, String> common, int rank) {
        Map<String, String> e = new HashMap<>(common);
        e.put("JCCL_RANK", Integer.toString(rank));
        e.put("JCCL_SIZE", Integer.toString(n));
        e.put("JCCL_LOCAL_RANK", Integer.toString(rank));
        e.put("JCCL_LOCAL_SIZE", Integer.toString(n));
        return e;
    }

    /** Follows the ranks until every one has exited or was killed. */
    private void follow(RankProcesses procs, long startNs) throws InterruptedException {
        for (RankState st : ranks) {
            st.lastProgressNs = startNs;
        }
        long boundNs = TimeUnit.SECONDS.toNanos(2 * s.opTimeoutSeconds());
        try (TerminalBar b = TerminalBar.open("jccl soak", s.ops(), "operations", err, showProgress)) {
            bar = b;
            followUntilExit(procs, boundNs);
        } finally {
            bar = null;
        }
    }

    private void followUntilExit(RankProcesses procs, long boundNs) throws InterruptedException {
        while (true) {
            Event e = events.poll(POLL_NS, TimeUnit.NANOSECONDS);
            while (e != null) {
                handle(e);
                e = events.poll();
            }
            long now = System.nanoTime();
            boolean allExited = true;
            for (int r = 0; r < n; r++) {
                RankState st = ranks[r];
                if (st.exitStatus == null && st.outputEnded && !procs.process(r).isAlive()) {
                    exited(r, procs.process(r).exitValue(), now);
                }
                allExited &= st.exitStatus != null;
            }
            if (allExited) {
                return;
            }
            if (stopping && now - stopAtNs >= 0) {
                killAll(procs, "after the failure above");
                return;
            }
            if (!stopping && watchdog(now, boundNs)) {
                killAll(procs, "the job is hung");
                return;
            }
            bar.stepTo(opsDone());
            bar.setExtraMessage(wrong + " wrong");
        }
    }

    private void handle(Event e) {
        switch (e) {
            case OutputEnded(int rank) -> ranks[rank].outputEnded = true;
            case Line(int rank, String text) -> {
                if (!text.startsWith(SoakRank.PREFIX) || !report(rank, text.substring(SoakRank.PREFIX.length()))) {
                    bar.println(err, "[" + rank + "] " + text);
                }
            }
        }
    }

    /** Takes one progress line of a rank; false when it is not one (then it is shown as the rank's output). */
    private boolean report(int rank, String line) {
        String[] f = line.split(" ", 4);
        RankState st = ranks[rank];
        long now = System.nanoTime();
        try {
            switch (f[0]) {
                case "ready" -> st.ready = true;
                case "done" -> st.lastDone = Integer.parseInt(f[1]);
                case "wrong" -> {
                    long count = Long.parseLong(f[2]);
                    wrong += count;
                    problem(rank, Integer.parseInt(f[1]), count + " wrong: " + (f.length > 3 ? f[3] : ""));
                }
                case "fail" -> {
                    int op = Integer.parseInt(f[1]);
                    String code = f[2];
                    if (code.equals("TIMEOUT") && op >= 0) {
                        timedOutOps.add(op);
                    }
                    problem(rank, op, code + ": " + (f.length > 3 ? f[3] : ""));
                    st.failed = true;
                    rankFailures++;
                    stop(now);
                }
                case "stall" -> st.stalledBefore = Integer.parseInt(f[1]);
                case "end" -> {
                    st.ended = true;
                    st.endNs = now;
                }
                default -> {
                    return false;
                }
            }
        } catch (RuntimeException malformed) {
            return false;
        }
        st.lastProgressNs = now;
        return true;
    }

    private void exited(int rank, int status, long now) {
        RankState st = ranks[rank];
        st.exitStatus = status;
        if (status == 0 && st.ended) {
            return;
        }
        if (!st.failed) {
            rankFailures++;
            problem(rank, st.lastDone + 1, "rank " + rank + " exited with status " + status
                    + (st.ended ? " after its last operation" : " before finishing"));
        }
        stop(now);
    }

    private void stop(long now) {
        if (!stopping) {
            stopping = true;
            stopAtNs = now + TimeUnit.SECONDS.toNanos(STOP_GRACE_SECONDS);
        }
    }

    /** @return true when a rank is hung (then its state was recorded) */
    private boolean watchdog(long now, long boundNs) {
        List<Integer> stuck = new ArrayList<>();
        List<Integer> notExiting = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            RankState st = ranks[r];
            if (st.exitStatus != null) {
                continue;
            }
            long limitNs = st.ready ? boundNs : Math.max(boundNs, STARTUP_ALLOWANCE_NS);
            if (!st.ended && now - st.lastProgressNs > limitNs) {
                stuck.add(r);
            } else if (st.ended && now - st.endNs > boundNs) {
                notExiting.add(r);
            }
        }
        if (stuck.isEmpty() && notExiting.isEmpty()) {
            return false;
        }
        watchdogHangs++;
        long seconds = TimeUnit.NANOSECONDS.toSeconds(boundNs);
        for (int r : stuck) {
            RankState st = ranks[r];
            problem(r, st.lastDone + 1, "hung: no progress for " + (now - st.lastProgressNs) / 1_000_000_000L
                    + " s (the bound is twice the op timeout, " + seconds + " s); " + state(r));
        }
        for (int r : notExiting) {
            problem(r, -1, "hung: finished every operation but did not exit within " + seconds
                    + " s (closing its communicator)");
        }
        for (int r = 0; r < n; r++) {
            lastStates.add("rank " + r + ": " + state(r));
        }
        bar.close();   // its last state above the report
        err.println(P + "hung; the ranks' last states:");
        lastStates.forEach(l -> err.println("  " + l));
        return true;
    }

    /** @return where rank {@code r} is, e.g. "done up to op 41; in op 42: allGather int8 count 7" */
    private String state(int r) {
        RankState st = ranks[r];
        if (st.exitStatus != null) {
            return "exited with status " + st.exitStatus;
        }
        if (!st.ready) {
            return "not joined yet";
        }
        if (st.ended) {
            return "finished every operation, closing";
        }
        int next = st.lastDone + 1;
        String done = st.lastDone < 0 ? "no operation done" : "done up to op " + st.lastDone;
        if (st.stalledBefore >= 0) {
            return done + "; stopped by --test-hang before " + ops.get(st.stalledBefore).describe();
        }
        return done + "; in " + (next < ops.size() ? ops.get(next).describe() : "the final barrier");
    }

    private void killAll(RankProcesses procs, String why) {
        bar.close();
        procs.stopAndReport(P + why, err);
    }

    private void problem(int rank, int op, String message) {
        problemCount++;
        if (problems.size() < MAX_ERRORS) {
            String description = op < 0 ? "" : op < ops.size() ? ops.get(op).describe() : "the final barrier";
            problems.add(new Problem(rank, op, description, message));
        }
    }

    /** @return operations every rank completed */
    private int opsDone() {
        int min = Integer.MAX_VALUE;
        for (RankState st : ranks) {
            min = Math.min(min, st.lastDone + 1);
        }
        return min;
    }

    private int hangs() {
        return timedOutOps.size() + watchdogHangs;
    }

    private int finish(long startNs) {
        double seconds = (System.nanoTime() - startNs) / 1e9;
        int done = opsDone();
        boolean ok = wrong == 0 && hangs() == 0 && rankFailures == 0 && problemCount == 0 && done == s.ops();
        String replay = SoakCommand.replayCommand(s);
        if (s.json()) {
            out.println(json(done, seconds, ok, replay));
        } else {
            out.printf(Locale.ROOT, "%s%d of %d operations done on every rank (%d %s, transport %s%s, seed %d): "
                            + "%d wrong, %d hangs, %d rank failures, %.1f s — %s%n", P, done, s.ops(), n,
                    n == 1 ? "rank" : "ranks", s.transport(), s.impair() == null ? "" : ", impaired " + s.impair(),
                    s.seed(), wrong, hangs(), rankFailures, seconds, ok ? "OK" : "FAILED");
            if (relayCounters != null) {
                out.println(P + "relay: " + relayCounters);
            }
            for (Problem p : problems) {
                out.println(P + (p.rank() < 0 ? "" : "rank " + p.rank() + ": ")
                        + (p.description().isEmpty() ? "" : p.description() + ": ") + p.message());
            }
            if (problemCount > problems.size()) {
                out.println(P + "... and " + (problemCount - problems.size()) + " more problems");
            }
            if (!ok) {
                out.println(P + "replay: " + replay + firstOpHint());
            }
        }
        out.flush();
        return ok ? 0 : 1;
    }

    /** @return the first operation with a problem (of those reported in full), or -1 */
    private int firstFailingOp() {
        return problems.stream().mapToInt(Problem::op).filter(op -> op >= 0 && op < s.ops()).min().orElse(-1);
    }

    /** @return how to replay only up to the first failing operation, or "" */
    private String firstOpHint() {
        int first = firstFailingOp();
        return first < 0 ? "" : " (the first problem is in op " + first + "; --ops " + (first + 1)
                + " replays up to it)";
    }

    private String json(int done, double seconds, boolean ok, String replay) {
        Json j = new Json().beginObject()
                .field("ok", ok)
                .field("ops", done)
                .field("opsPlanned", s.ops())
                .field("wrong", wrong)
                .field("hangs", hangs())
                .field("rankFailures", rankFailures)
                .field("seconds", seconds)
                .field("transport", s.transport())
                .field("ranks", n)
                .field("seed", s.seed())
                .field("maxBytesPerRank", s.spec().maxBytesPerRank())
                .field("opTimeoutSeconds", s.opTimeoutSeconds());
        if (s.impair() == null) {
            j.nullField("impair");
        } else {
            j.beginObject("impair").field("loss", s.impair().loss()).field("dup", s.impair().duplicate())
                    .field("reorder", s.impair().reorder()).field("corrupt", s.impair().corrupt()).endObject();
        }
        if (relayCounters != null) {
            j.beginObject("relay");
            for (String pair : relayCounters.trim().split("\\s+")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    try {
                        j.field(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
                    } catch (NumberFormatException e) {
                        j.field(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
            }
            j.endObject();
        }
        j.field("errorCount", problemCount).beginArray("errors");
        for (Problem p : problems) {
            j.beginObject().field("rank", p.rank()).field("op", p.op()).field("description", p.description())
                    .field("message", p.message()).endObject();
        }
        j.endArray().beginArray("lastStates");
        lastStates.forEach(j::element);
        j.endArray().field("replay", replay).field("firstFailingOp", firstFailingOp());
        return j.endObject().toString();
    }
}
