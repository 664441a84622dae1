package io.jccl.cli.sim;

import io.jccl.check.WorkloadSpec;
import io.jccl.cli.bench.Json;
import io.jccl.cli.bench.ReportOutput;
import io.jccl.cli.progress.Progress;
import io.jccl.metaroce.simnet.CollectivesSimulation;
import io.jccl.metaroce.simnet.Fault;
import io.jccl.metaroce.simnet.SeedOutcome;
import io.jccl.metaroce.simnet.SimSettings;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code jccl sim collectives}: the whole stack in deterministic simulation, many seeds. Each seed runs N ranks of the
 * real collectives engine over the real {@code metaroce} transport over the simulated fabric, in one thread on
 * virtual time, with a random workload (every collective, type, reduction, root and count, in place and out of place,
 * each element checked against the independent reference) and random faults; one seed replays a run exactly.
 */
@Command(name = "collectives", mixinStandardHelpOptions = true,
        description = {"Runs random collective workloads on simulated ranks over MetaRoCE on a simulated lossy fabric,"
                + " one thread, virtual time, every element checked; one seed replays a run exactly.",
                "Exit status: 0 when every seed passed, 1 when one failed (each failure is listed with its replay "
                        + "command), 2 for a usage error."})
public final class SimCollectivesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--ranks", defaultValue = "16", description = "Ranks (2-256). Default: ${DEFAULT-VALUE}.")
    int ranks;

    @Option(names = "--ops", defaultValue = "300", description = "Operations per seed. Default: ${DEFAULT-VALUE}.")
    int ops;

    @Option(names = "--seeds", defaultValue = "100", description = "How many seeds, from --first-seed. "
            + "Default: ${DEFAULT-VALUE}.")
    int seeds;

    @Option(names = "--first-seed", defaultValue = "1", description = "The first seed. Default: ${DEFAULT-VALUE}.")
    long firstSeed;

    @Option(names = "--seed", description = "Run this one seed only (replays a run).")
    Long seed;

    @Option(names = "--faults", defaultValue = "loss,blackhole,flap,crash", description = "Faults to inject, "
            + "comma-separated: loss, dup, reorder, corrupt, blackhole, flap, crash, or none. "
            + "Default: ${DEFAULT-VALUE}.")
    String faults;

    @Option(names = "--max-bytes", defaultValue = "65536", description = "Largest buffer an operation uses per rank, "
            + "in bytes. Default: ${DEFAULT-VALUE}.")
    long maxBytes;

    @Option(names = "--test-spoil-op", hidden = true, defaultValue = "-1",
            description = "Tests: rank 0 spoils one element of this operation's result before the check.")
    int spoilAtOp;

    @Mixin
    ReportOutput output;

    /** Created by picocli. */
    public SimCollectivesCommand() {
    }

    @Override
    public Integer call() {
        Set<Fault> faultSet;
        SimSettings settings;
        try {
            faultSet = Fault.parse(faults);
            if (seeds < 1) {
                throw new IllegalArgumentException("--seeds must be at least 1, got " + seeds);
            }
            settings = SimSettings.of(ranks, ops, faultSet).withWorkload(
                    WorkloadSpec.defaults().withMaxBytesPerRank(maxBytes)).withSpoiledResultAt(spoilAtOp);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (System.getenv(io.jccl.log.LogSettings.DEBUG_VARIABLE) == null
                && System.getProperty(io.jccl.cli.LogBackend.PROPERTY) == null) {
            // The simulated ranks' expected complaints (a crashed peer, its messages undelivered) are not news;
            // JCCL_DEBUG brings them back.
            System.setProperty(io.jccl.cli.LogBackend.PROPERTY, "error");
        }
        CollectivesSimulation sim = new CollectivesSimulation(settings);
        long first = seed != null ? seed : firstSeed;
        int count = seed != null ? 1 : seeds;
        long wallStartNs = System.nanoTime();
        List<SeedOutcome> failed = new ArrayList<>();
        long completedOps = 0;
        long wrong = 0;
        long hangs = 0;
        long events = 0;
        long virtualNs = 0;
        int crashes = 0;
        try (ProgressBar bar = Progress.bar("jccl sim collectives", count, "seeds", output.progressShown())) {
            for (int i = 0; i < count; i++) {
                SeedOutcome o = sim.run(first + i);
                completedOps += o.completedOps();
                wrong += o.wrong();
                hangs += o.hangs();
                events += o.events();
                virtualNs += o.virtualNs();
                crashes += o.crashedRank() >= 0 ? 1 : 0;
                if (o.failed()) {
                    failed.add(o);
                    if (!output.json()) {
                        report(System.out, o);
                    }
                }
                bar.stepTo(i + 1);
                bar.setExtraMessage(failed.size() + " failed");
            }
        }
        double wallSeconds = (System.nanoTime() - wallStartNs) / 1e9;
        if (output.json()) {
            Json j = new Json().beginObject()
                    .field("simulation", "collectives")
                    .field("ranks", ranks)
                    .field("ops", ops)
                    .field("maxBytesPerRank", maxBytes)
                    .field("faults", Fault.format(faultSet))
                    .field("firstSeed", first)
                    .field("seeds", count)
                    .field("completedOps", completedOps)
                    .field("wrong", wrong)
                    .field("hangs", hangs)
                    .field("crashes", crashes)
                    .field("events", events)
                    .field("virtualSeconds", virtualNs / 1e9)
                    .field("wallSeconds", wallSeconds)
                    .beginArray("failedSeeds");
            for (SeedOutcome o : failed) {
                j.beginObject().field("seed", o.seed()).field("wrong", o.wrong()).field("hangs", o.hangs())
                        .field("replay", replay(o.seed())).beginArray("errors");
                for (String e : o.errors()) {
                    j.element(e);
                }
                j.endArray().endObject();
            }
            j.endArray().endObject();
            System.out.println(j);
        } else {
            System.out.printf(Locale.ROOT, "# %d seed(s) of %d ranks x %d operations, faults %s: %d failed; %d "
                            + "operations completed, %d wrong elements, %d hangs, %d crashes injected; %.1f s of "
                            + "virtual time in %.1f s (%d events)%n", count, ranks, ops, Fault.format(faultSet),
                    failed.size(), completedOps, wrong, hangs, crashes, virtualNs / 1e9, wallSeconds, events);
        }
        return failed.isEmpty() ? 0 : 1;
    }

    private void report(PrintStream out, SeedOutcome o) {
        out.println("FAILED seed " + o.seed() + " (" + o.wrong() + " wrong, " + o.hangs() + " hangs"
                + (o.crashedRank() >= 0 ? ", rank " + o.crashedRank() + " crashed at op " + o.crashedAtOp() : "")
                + "): replay with " + replay(o.seed()));
        for (String e : o.errors()) {
            out.println("  " + e);
        }
    }

    private String replay(long s) {
        return "./jccl sim collectives --ranks " + ranks + " --ops " + ops + " --max-bytes " + maxBytes
                + " --faults " + Fault.format(Fault.parse(faults)) + " --seed " + s
                + (spoilAtOp >= 0 ? " --test-spoil-op " + spoilAtOp : "");
    }
}
