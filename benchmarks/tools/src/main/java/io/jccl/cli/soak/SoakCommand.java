package io.jccl.cli.soak;

import io.jccl.cli.bench.OptionChecks;
import io.jccl.CommConfig;
import io.jccl.check.Workload;
import io.jccl.check.WorkloadSpec;
import io.jccl.plan.OpKind;
import io.jccl.cli.bench.RankTransportOption;
import io.jccl.cli.bench.ReportOutput;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code jccl soak}: a long seeded random workload of every collective on {@code -np} rank JVMs of this host, every
 * element of every operation checked against the independent reference ({@link io.jccl.check.WorkloadRank}), every
 * operation bounded by the operation timeout and the whole job by a watchdog; over MetaRoCE optionally through an
 * impairing relay. The ranks are this same command started by {@link SoakLauncher} (they see
 * {@value #RANK_ENV}).
 */
@Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run a seeded random sequence of collectives (every kind, all 12 types, every reduction, "
                + "random roots and counts, in place and out of place) on -np rank JVMs of this host and check every "
                + "element of every result. Each operation must complete within --op-timeout; a rank that makes no "
                + "progress for twice that is declared hung and the job stopped. With --transport metaroce, --impair "
                + "sends every datagram through an impairing relay. The same --seed replays the same operations. "
                + "Exit status 0 only when every operation completed on every rank with no wrong element. See "
                + "docs/testing.md.",
            "",
            "Example: jccl soak -np 4 --transport metaroce --ops 2000 --impair loss=0.02,dup=0.01,reorder=0.05,"
                + "corrupt=0.005 --seed 7 --json", ""})
public final class SoakCommand implements Callable<Integer> {
    /** Set in the ranks the command starts: then it runs as one of them. */
    static final String RANK_ENV = "JCCL_SOAK_RANK";
    /** Most ranks it starts. */
    static final int MAX_RANKS = 64;
    /** Most operations. */
    static final int MAX_OPS = 100_000_000;
    /** Longest --op-timeout, seconds. */
    static final long MAX_OP_TIMEOUT_SECONDS = 3600;

    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public SoakCommand() {
    }

    @Option(names = {"-np", "--np"}, defaultValue = "2", paramLabel = "N",
            description = "rank JVMs to start on this host, 1-" + MAX_RANKS + " (default ${DEFAULT-VALUE})")
    int np;

    @Mixin
    RankTransportOption transport;

    @Option(names = "--ops", defaultValue = "1000", paramLabel = "N",
            description = "operations in the workload (default ${DEFAULT-VALUE})")
    long ops;

    @Option(names = "--seed", paramLabel = "S", description = "the workload's seed (default: a random one, printed)")
    Long seed;

    @Option(names = "--max-bytes", defaultValue = "1M", paramLabel = "SIZE", description = "largest buffer a rank "
            + "passes to one operation, bytes with an optional K, M or G (default ${DEFAULT-VALUE})")
    String maxBytesText;

    @Option(names = "--kinds", split = ",", paramLabel = "KIND", description = "collectives to draw from (default: "
            + "all): allreduce, broadcast, reduce, allgather, reducescatter, alltoall, alltoallv, gather, scatter, "
            + "sendrecv, barrier")
    List<String> kindNames;

    @Option(names = "--impair", paramLabel = "SPEC", description = "with --transport metaroce: impair every datagram "
            + "through a relay, e.g. loss=0.02,dup=0.01,reorder=0.05,corrupt=0.005 (keys loss, dup, reorder, corrupt; "
            + "probabilities below 1, or percentages)")
    String impairText;

    @Option(names = "--op-timeout", defaultValue = "60", paramLabel = "SECONDS", description = "longest an operation "
            + "may take (JCCL_OP_TIMEOUT_MS for the ranks); a rank without progress for twice this is hung, 1-"
            + MAX_OP_TIMEOUT_SECONDS + " (default ${DEFAULT-VALUE})")
    long opTimeoutSeconds;

    @Mixin
    ReportOutput output;

    @Option(names = "--test-wrong", hidden = true, paramLabel = "RANK:OP",
            description = "test hook: RANK spoils one element of its first non-empty output from operation OP on")
    String testWrong;

    @Option(names = "--test-hang", hidden = true, paramLabel = "[RANK:]OP",
            description = "test hook: RANK (every rank if not given) stops for ever before operation OP")
    String testHang;

    /**
     * Everything the parent and the ranks need, checked.
     *
     * @param np               ranks
     * @param transport        transport name
     * @param ops              operations
     * @param seed             the workload's seed
     * @param spec             what the workload may contain
     * @param impair           the relay's impairments, or null for none (no relay)
     * @param opTimeoutSeconds bound on one operation
     * @param json             --json
     * @param wrongRank        test hook: the rank that spoils an output, or -1
     * @param wrongOp          test hook: from which operation
     * @param hangRank         test hook: the rank that stalls, -1 for none, -2 for every rank
     * @param hangOp           test hook: before which operation
     */
    record Settings(int np, String transport, int ops, long seed, WorkloadSpec spec, ImpairSpec impair,
                    long opTimeoutSeconds, boolean json, int wrongRank, int wrongOp, int hangRank, int hangOp) {
        /** @return whether {@code rank} spoils its output at operation {@code index} (test hook) */
        boolean spoilsFrom(int rank, int index) {
            return rank == wrongRank && index >= wrongOp;
        }

        /** @return whether {@code rank} stalls before operation {@code index} (test hook) */
        boolean stallsBefore(int rank, int index) {
            return (hangRank == -2 || rank == hangRank) && index == hangOp;
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        Settings s = settings();
        if (System.getenv(RANK_ENV) != null) {
            return SoakRank.run(s);
        }
        return new SoakLauncher(s, System.out, System.err, output.progressShown()).run();
    }

    /** Parses and checks every option; the errors name the option and the value. */
    Settings settings() {
        OptionChecks.between(spec, "-np", np, 1, MAX_RANKS);
        String t = transport.checked();
        OptionChecks.between(spec, "--ops", ops, 1, MAX_OPS);
        long maxBytes = size("--max-bytes", maxBytesText);
        if (maxBytes < 1 || maxBytes > WorkloadSpec.MAX_BYTES_PER_RANK_LIMIT) {
            throw usage("--max-bytes must be between 1 and 1G, got " + maxBytesText);
        }
        Set<OpKind> kinds = kindNames == null ? Workload.KINDS : kinds(kindNames);
        if (opTimeoutSeconds < 1 || opTimeoutSeconds > MAX_OP_TIMEOUT_SECONDS) {
            throw usage("--op-timeout must be between 1 and " + MAX_OP_TIMEOUT_SECONDS + " seconds, got "
                    + opTimeoutSeconds);
        }
        ImpairSpec impair = null;
        if (impairText != null) {
            if (!t.equals("metaroce")) {
                throw usage("--impair needs --transport metaroce (the impairing relay carries MetaRoCE's datagrams), "
                        + "not " + t);
            }
            try {
                impair = ImpairSpec.parse(impairText);
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
        }
        int[] wrong = testWrong == null ? new int[] {-1, 0} : rankAndOp("--test-wrong", testWrong, false);
        int[] hang = testHang == null ? new int[] {-1, 0} : rankAndOp("--test-hang", testHang, true);
        long s = seed != null ? seed : ThreadLocalRandom.current().nextLong();
        return new Settings(np, t, (int) ops, s, new WorkloadSpec(maxBytes, kinds), impair, opTimeoutSeconds,
                output.json(), wrong[0], wrong[1], hang[0], hang[1]);
    }

    /** @return {rank, op}; rank -2 (every rank) when {@code rankOptional} and only OP is given */
    private int[] rankAndOp(String option, String value, boolean rankOptional) {
        String[] parts = value.split(":", -1);
        try {
            if (parts.length == 1 && rankOptional) {
                int op = Integer.parseInt(parts[0].trim());
                if (op >= 0) {
                    return new int[] {-2, op};
                }
            } else if (parts.length == 2) {
                int rank = Integer.parseInt(parts[0].trim());
                int op = Integer.parseInt(parts[1].trim());
                if (rank >= 0 && rank < np && op >= 0) {
                    return new int[] {rank, op};
                }
            }
        } catch (NumberFormatException e) {
            // the usage error below
        }
        throw usage(option + " '" + value + "' must be " + (rankOptional ? "[RANK:]OP" : "RANK:OP")
                + " with RANK 0-" + (np - 1) + " and OP 0 or more");
    }

    /** The kind names --kinds takes: the API's names, any case, with or without underscores. */
    private Set<OpKind> kinds(List<String> names) {
        Set<OpKind> out = EnumSet.noneOf(OpKind.class);
        for (String name : names) {
            out.add(kind(name));
        }
        return out;
    }

    private OpKind kind(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT).replace("_", "");
        for (OpKind k : Workload.KINDS) {
            String api = k.apiName().toLowerCase(Locale.ROOT);
            if (n.equals(api) || (k == OpKind.P2P && (n.equals("sendrecv") || n.equals("send/recv")))) {
                return k;
            }
        }
        List<String> valid = new ArrayList<>();
        for (OpKind k : Workload.KINDS) {
            valid.add(k == OpKind.P2P ? "sendrecv" : k.apiName().toLowerCase(Locale.ROOT));
        }
        throw usage("--kinds: unknown collective '" + name + "'; expected some of " + String.join(", ", valid));
    }

    /**
     * @param option for the error
     * @param text   bytes with an optional K, M or G (powers of 1024), read as JCCL's own size settings are
     * @return bytes
     */
    private long size(String option, String text) {
        try {
            return CommConfig.parseBytes(text);
        } catch (IllegalArgumentException e) {
            throw usage(option + ": '" + text + "' is not a size; give bytes with an optional K, M or G, e.g. 4096, "
                    + "64K, 1M");
        }
    }

    /** @return the arguments that make a rank run {@code s} (the seed explicit, so every rank draws the same) */
    static List<String> rankArgs(Settings s) {
        List<String> a = new ArrayList<>(List.of("soak", "-np", Integer.toString(s.np()), "--transport",
                s.transport(), "--ops", Integer.toString(s.ops()), "--seed", Long.toString(s.seed()), "--max-bytes",
                Long.toString(s.spec().maxBytesPerRank()), "--op-timeout", Long.toString(s.opTimeoutSeconds())));
        if (!s.spec().kinds().equals(Workload.KINDS)) {
            a.add("--kinds");
            a.add(kindList(s.spec().kinds()));
        }
        if (s.wrongRank() >= 0) {
            a.add("--test-wrong");
            a.add(s.wrongRank() + ":" + s.wrongOp());
        }
        if (s.hangRank() != -1) {
            a.add("--test-hang");
            a.add(s.hangRank() == -2 ? Integer.toString(s.hangOp()) : s.hangRank() + ":" + s.hangOp());
        }
        return a;
    }

    /** @return the command that replays {@code s} (test hooks left out) */
    static String replayCommand(Settings s) {
        StringBuilder b = new StringBuilder("./jccl soak -np ").append(s.np()).append(" --transport ")
                .append(s.transport()).append(" --ops ").append(s.ops()).append(" --seed ").append(s.seed())
                .append(" --max-bytes ").append(s.spec().maxBytesPerRank()).append(" --op-timeout ")
                .append(s.opTimeoutSeconds());
        if (!s.spec().kinds().equals(Workload.KINDS)) {
            b.append(" --kinds ").append(kindList(s.spec().kinds()));
        }
        if (s.impair() != null) {
            b.append(" --impair ").append(s.impair());
        }
        return b.toString();
    }

    private static String kindList(Set<OpKind> kinds) {
        List<String> names = new ArrayList<>();
        for (OpKind k : kinds) {
            names.add(k == OpKind.P2P ? "sendrecv" : k.apiName().toLowerCase(Locale.ROOT));
        }
        return String.join(",", names);
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
