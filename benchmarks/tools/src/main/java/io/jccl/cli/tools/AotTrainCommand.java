package io.jccl.cli.tools;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.cli.LauncherWatch;
import io.jccl.cli.Main;
import io.jccl.cli.bench.RankProcesses;
import io.jccl.cli.perf.PerfCommand;
import io.jccl.env.EnvCommunicator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code jccl aot-train} (hidden): the training run of {@code ./jccl}'s AOT cache. {@code scripts/aot-cache.sh} starts
 * it in a JVM with {@code -XX:AOTCacheOutput=...}; the classes that JVM loads and the profiles it collects (JEP 483,
 * 515) are what every JVM {@code ./jccl} starts later finds ready.
 *
 * <p>It runs what a rank of {@code jccl perf} runs, as rank 0 of a two-rank job over each of {@code --transports} in
 * turn (shm, tcp and MetaRoCE by default): for each, it starts the rendezvous and a peer JVM (rank 1, running this
 * command with the transport; it does not train), joins as a launched rank does ({@link EnvCommunicator}), and runs
 * {@code jccl perf}'s rank code ({@link PerfCommand#runAsRank}) through phases on that communicator
 * ({@link #phaseArgs}): over shm many small all-reduces (per-call code, to the top JIT tier), every collective from
 * 128 KiB to {@code --max-bytes} (the large-message paths, among them all_reduce at 8 MiB) and all-reduce of every
 * type and reduction (the kernels); over the others every collective a few times. Every element is checked, as
 * {@code jccl perf} does: a wrong one fails the training. A transport whose job fails with a {@link JcclException}
 * (one this host cannot run) is left out, unless every one is. {@code --quick} runs one tiny phase (tests).
 */
@Command(name = "aot-train", hidden = true, mixinStandardHelpOptions = true,
        description = {"The training run of ./jccl's AOT cache (scripts/aot-cache.sh runs it under",
            "-XX:AOTCacheOutput): jccl perf's rank code as rank 0 of a two-rank job over each transport."})
public final class AotTrainCommand implements Callable<Integer> {
    /** Ranks of each training job. */
    static final int RANKS = 2;
    /** The collectives of jccl perf that every training job runs. */
    private static final String EVERY_COLLECTIVE = "all_reduce,all_gather,reduce_scatter,broadcast,reduce,alltoall,"
            + "sendrecv";

    /** Created by picocli. */
    public AotTrainCommand() {
    }

    @Option(names = "--transports", split = ",", defaultValue = "shm,tcp,metaroce",
            description = "transports to train, in order (default ${DEFAULT-VALUE})")
    List<String> transports;

    @Option(names = "--max-bytes", defaultValue = "8M", paramLabel = "SIZE",
            description = "largest size of the shm sweep (default ${DEFAULT-VALUE})")
    String maxBytes;

    @Option(names = "--quick", description = "one tiny phase per transport (tests)")
    boolean quick;

    @Option(names = "--time-limit", defaultValue = "300", paramLabel = "SECONDS",
            description = "give up (exit status 1) after this long (default ${DEFAULT-VALUE})")
    long timeLimitSeconds;

    @Option(names = "--timeout", defaultValue = "60", paramLabel = "SECONDS",
            description = "init and per-call timeout of every rank (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Override
    public Integer call() throws InterruptedException {
        for (String t : transports) {
            if (!List.of("shm", "tcp", "metaroce", "aeron-ipc", "aeron-udp").contains(t)) {
                throw new IllegalArgumentException("--transports: '" + t + "' is not one of shm, tcp, metaroce, "
                        + "aeron-ipc, aeron-udp (transports between processes)");
            }
        }
        if (System.getenv("JCCL_RANK") != null) {
            return peer();
        }
        startWatchdog();
        long start = System.nanoTime();
        List<String> trained = new ArrayList<>();
        for (String t : transports) {
            int status;
            try {
                status = job(t);
            } catch (JcclException e) {
                // A transport this host cannot run (no /dev/shm, no UDP) leaves its classes out of the cache, no more.
                System.err.println("jccl aot-train: " + t + " left out: " + e.getMessage());
                continue;
            }
            if (status != 0) {
                return status;
            }
            trained.add(t);
        }
        if (trained.isEmpty()) {
            System.err.println("jccl aot-train: no transport could be trained");
            return 1;
        }
        System.err.printf(Locale.ROOT, "jccl aot-train: trained over %s in %.1f s%n", String.join(", ", trained),
                (System.nanoTime() - start) / 1e9);
        return 0;
    }

    /** Rank 1 of one job: joins through the environment {@link #job} gave it and runs the phases. */
    private int peer() {
        LauncherWatch.start("jccl aot-train: peer rank", System.getenv());
        if (transports.size() != 1) {
            throw new IllegalArgumentException("a peer rank (JCCL_RANK set) trains one transport, not " + transports);
        }
        try (Communicator comm = EnvCommunicator.create(System.getenv(), config(transports.getFirst()))) {
            return phases(comm, transports.getFirst());
        }
    }

    /** One job over {@code transport}: this JVM is rank 0 and trains; a peer JVM is rank 1. */
    private int job(String transport) throws InterruptedException {
        System.err.println("jccl aot-train: " + transport);
        String id = UniqueId.create(InetAddress.getLoopbackAddress()).encode();
        List<String> peerArgs = new ArrayList<>(List.of("aot-train", "--transports", transport, "--max-bytes",
                maxBytes, "--timeout", Long.toString(timeoutSeconds)));
        if (quick) {
            peerArgs.add("--quick");
        }
        RankProcesses peer;
        try {
            peer = RankProcesses.startEach(Main.class, 1, r -> peerArgs, r -> rankEnv(1, id, transport), r -> List.of(),
                    new RankProcesses.LineListener() {
                        @Override
                        public void line(int rank, String text) {
                            System.err.println("[peer " + transport + "] " + text);
                        }
                    });
        } catch (UncheckedIOException e) {
            System.err.println("jccl aot-train: " + e.getMessage());
            return 1;
        }
        try (peer) {
            Map<String, String> env = new HashMap<>(System.getenv());
            env.putAll(rankEnv(0, id, transport));
            int status;
            try (Communicator comm = EnvCommunicator.create(env, config(transport))) {
                status = phases(comm, transport);
            }
            long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (true) {
                switch (peer.next(deadlineNs)) {
                    case RankProcesses.Line l -> {
                        // The listener printed it.
                    }
                    case RankProcesses.AllDone d -> {
                        return status;
                    }
                    case RankProcesses.Failed f -> {
                        System.err.println("jccl aot-train: the " + transport + " peer exited with status "
                                + f.status());
                        return 1;
                    }
                    case RankProcesses.TimedOut t -> {
                        System.err.println("jccl aot-train: the " + transport + " peer did not exit");
                        return 1;
                    }
                }
            }
        }
    }

    private static Map<String, String> rankEnv(int rank, String id, String transport) {
        return Map.of("JCCL_RANK", Integer.toString(rank), "JCCL_SIZE", Integer.toString(RANKS),
                "JCCL_LOCAL_RANK", Integer.toString(rank), "JCCL_LOCAL_SIZE", Integer.toString(RANKS),
                "JCCL_COMM_ID", id, "JCCL_NET", transport);
    }

    private CommConfig config(String transport) {
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        return CommConfig.builder().transport(transport).initTimeout(timeout).opTimeout(timeout).build();
    }

    /** The perf runs of one job, the same on both ranks; a run with wrong elements stops the training. */
    private int phases(Communicator comm, String transport) {
        for (List<String> args : phaseArgs(transport, quick, maxBytes)) {
            List<String> all = new ArrayList<>(args);
            all.addAll(List.of("-np", Integer.toString(RANKS), "--transport", transport));
            long start = System.nanoTime();
            int status = PerfCommand.runAsRank(comm, all);
            if (status != 0) {
                System.err.println("jccl aot-train: wrong results in jccl perf " + String.join(" ", all));
                return status;
            }
            if (comm.rank() == 0) {
                System.err.printf(Locale.ROOT, "jccl aot-train: %.1f s: jccl perf %s%n",
                        (System.nanoTime() - start) / 1e9, String.join(" ", all));
            }
        }
        return 0;
    }

    /**
     * The shm job trains hard: it is the transport between ranks of one host ({@code jccl perf -np N}, {@code jccl run}
     * on one host) and the one whose profiles should lead. The others run each collective a few times: their classes
     * are loaded and linked, and the profiles of the code all transports share stay dominated by shm's (a call site
     * that saw one transport 90% of the time is compiled for it, with a guard, instead of as a virtual call).
     *
     * @param transport the job's transport
     * @param quick     one tiny phase
     * @param maxBytes  the largest size of the shm sweep
     * @return {@code jccl perf}'s arguments of each phase, in order
     */
    static List<List<String>> phaseArgs(String transport, boolean quick, String maxBytes) {
        if (quick) {
            return List.of(List.of("all_reduce,all_gather", "-b", "1K", "-e", "64K", "-f", "64", "-w", "1", "-n", "2"));
        }
        if (!transport.equals("shm")) {
            return List.of(List.of(EVERY_COLLECTIVE, "-b", "4K", "-e", "512K", "-f", "128", "-w", "1", "-n", "3"));
        }
        return List.of(
                // Per-call code (plans, futures, the small-message protocol): thousands of calls.
                List.of("all_reduce", "-b", "8", "-e", "32K", "-f", "8", "-w", "20", "-n", "200"),
                // Every collective's large-message path, up to all_reduce at 8 MiB.
                List.of(EVERY_COLLECTIVE, "-b", "128K", "-e", maxBytes, "-f", "4", "-w", "5", "-n", "20"),
                // The reduction kernels of every type and reduction.
                List.of("all_reduce", "-d", "all", "-o", "all", "-b", "16K", "-e", "16K", "-w", "1", "-n", "3"));
    }

    /** Halts this JVM with status 1 once {@code --time-limit} passed: a hung training must not hang {@code ./jccl}. */
    private void startWatchdog() {
        long limit = timeLimitSeconds;
        Thread.ofPlatform().daemon().name("jccl-aot-train-watchdog").start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(limit));
            } catch (InterruptedException e) {
                return;
            }
            System.out.flush();
            System.err.println("jccl aot-train: the training took longer than --time-limit " + limit
                    + " s; giving up");
            System.err.flush();
            Runtime.getRuntime().halt(1);
        });
    }
}
