package io.jccl.cli.bench.loss;

import io.jccl.cli.bench.RankProcesses;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One transfer of {@code jccl bench loss}: a receiving and a sending JVM ({@link LossBenchRank}, same {@code java},
 * class path and flags as this one) started through a {@link LossLink}, watched until the receiver reports, a side
 * fails, or the timeout passes (then both are killed: a transport that cannot finish is a result, not a hang).
 */
public final class LossTransfer {
    /** Extra time the sides give themselves past the run's timeout, so that this JVM's deadline comes first. */
    private static final long SIDE_GRACE_SECONDS = 5;
    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(\"[^\"]*\"|[-+0-9.eE]+|null)");

    private LossTransfer() {
    }

    /**
     * What to transfer.
     *
     * @param transport      the transport's name
     * @param bytes          bytes in all
     * @param messageBytes   bytes per message (the last may be shorter)
     * @param inflight       messages posted at once on each side
     * @param paths          MetaRoCE paths per connection ({@code JCCL_METAROCE_PATHS}; other transports ignore it)
     * @param seed           the pattern's seed
     * @param warmupBytes    bytes moved, unmeasured, before the transfer (at most {@code bytes} are)
     * @param timeoutSeconds the most a run may take, JVM starts and warm-up included
     */
    public record Spec(String transport, long bytes, long messageBytes, int inflight, int paths, long seed,
                       long warmupBytes, long timeoutSeconds) {
    }

    /** How a run ended. */
    public enum Status {
        /** Every byte arrived, right. */
        OK,
        /** Every byte arrived, some wrong: the benchmark fails. */
        CORRUPT,
        /** Not every byte arrived before the timeout. */
        TIMEOUT,
        /** A side failed (the transport gave up, say). */
        ERROR,
        /** Not run: no link here carries the transport. */
        SKIPPED;

        /** @return the name used in reports */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What a run gave.
     *
     * @param status             how it ended
     * @param goodputBytesPerSec bytes per second from the first receive posted to the last byte; for a timeout, the
     *                           bytes that had arrived over the time they took; NaN when nothing was measured
     * @param seconds            the measured time (see above), NaN when none
     * @param deliveredBytes     bytes the receiver had when the run ended
     * @param counters           what the link counted during the run
     * @param wallSeconds        the run's wall time, JVM starts included
     * @param reason             why the run did not end {@link Status#OK}, null when it did
     */
    public record Outcome(Status status, double goodputBytesPerSec, double seconds, long deliveredBytes,
                          LinkCounters counters, double wallSeconds, String reason) {
        /**
         * @param reason why the transport did not run
         * @return the outcome of a skipped run
         */
        public static Outcome skipped(String reason) {
            return new Outcome(Status.SKIPPED, Double.NaN, Double.NaN, 0, LinkCounters.UNKNOWN, 0, reason);
        }
    }

    /**
     * Runs one transfer through {@code link}.
     *
     * @param spec      what to transfer
     * @param link      the link, set up for this run's loss rate
     * @param delivered told the bytes delivered so far, as the receiver reports them (about twice a second)
     * @return the outcome
     * @throws InterruptedException when interrupted (both sides are killed)
     */
    public static Outcome run(Spec spec, LossLink link, LongConsumer delivered) throws InterruptedException {
        Path dir;
        try {
            dir = Files.createTempDirectory("jccl-bench-loss-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the run: " + e.getMessage(), e);
        }
        long startNs = System.nanoTime();
        long deadlineNs = startNs + TimeUnit.SECONDS.toNanos(spec.timeoutSeconds());
        LinkCounters before = link.counters();
        try (RankProcesses sides = RankProcesses.startEach(LossBenchRank.class, 2,
                side -> args(spec, link, side, dir), side -> environment(spec, link, side), link::commandPrefix)) {
            long deliveredBytes = 0;
            double progressSeconds = Double.NaN;
            Map<String, String> result = null;
            while (true) {
                RankProcesses.Event e = sides.next(deadlineNs);
                switch (e) {
                    case RankProcesses.Line(String text) -> {
                        Map<String, String> f = fields(text);
                        if ("\"progress\"".equals(f.get("event"))) {
                            deliveredBytes = Long.parseLong(f.get("deliveredBytes"));
                            progressSeconds = Long.parseLong(f.get("elapsedNs")) / 1e9;
                            delivered.accept(deliveredBytes);
                        } else if ("\"result\"".equals(f.get("event"))) {
                            result = f;
                            delivered.accept(spec.bytes());
                        }
                    }
                    case RankProcesses.Failed(int side, int status) -> {
                        // Kill both and wait for their output: the receiver's result may still be on its way.
                        String report = sides.killAndReport();
                        for (RankProcesses.Event rest = sides.next(System.nanoTime());
                             rest instanceof RankProcesses.Line(String text); rest = sides.next(System.nanoTime())) {
                            Map<String, String> f = fields(text);
                            if ("\"result\"".equals(f.get("event"))) {
                                result = f;
                            }
                        }
                        if (result != null) {
                            // Every byte arrived and was checked: what failed after that is not this run's result.
                            return measured(spec, result, link, before, startNs);
                        }
                        return new Outcome(Status.ERROR, Double.NaN, Double.NaN, deliveredBytes,
                                link.counters().since(before), seconds(startNs),
                                failure(report, side, status) + linkFailure(link));
                    }
                    case RankProcesses.TimedOut t -> {
                        sides.close();
                        return new Outcome(Status.TIMEOUT, deliveredBytes > 0 ? deliveredBytes / progressSeconds
                                : Double.NaN, deliveredBytes > 0 ? progressSeconds : Double.NaN, deliveredBytes,
                                link.counters().since(before), seconds(startNs), String.format(Locale.ROOT,
                                "timeout: %.1f of %.1f MiB arrived in %d s", deliveredBytes / 1048576.0,
                                spec.bytes() / 1048576.0, spec.timeoutSeconds()) + linkFailure(link));
                    }
                    case RankProcesses.AllDone d -> {
                        if (result == null) {
                            return new Outcome(Status.ERROR, Double.NaN, Double.NaN, deliveredBytes,
                                    link.counters().since(before), seconds(startNs),
                                    "the receiver exited without a result");
                        }
                        return measured(spec, result, link, before, startNs);
                    }
                }
            }
        } finally {
            deleteQuietly(dir);
        }
    }

    /**
     * The run that stands for several of the same transport and loss: the one with the median goodput (the lower of
     * the two middle ones for an even count) when all were ok, else the first that was not (a failure is never
     * averaged away).
     *
     * @param runs outcomes of the same transport and loss, at least one
     * @return the one that stands for them
     */
    public static Outcome representative(List<Outcome> runs) {
        for (Outcome o : runs) {
            if (o.status() != Status.OK) {
                return o;
            }
        }
        List<Outcome> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(Outcome::goodputBytesPerSec));
        return sorted.get((sorted.size() - 1) / 2);
    }

    private static Outcome measured(Spec spec, Map<String, String> result, LossLink link, LinkCounters before,
                                    long startNs) {
        long elapsedNs = Long.parseLong(result.get("elapsedNs"));
        long wrong = Long.parseLong(result.get("wrongBytes"));
        return new Outcome(wrong == 0 ? Status.OK : Status.CORRUPT, spec.bytes() * 1e9 / elapsedNs, elapsedNs / 1e9, spec.bytes(),
                link.counters().since(before), seconds(startNs), wrong == 0 ? null : wrong
                + " wrong bytes, the first at offset " + result.get("firstWrong"));
    }

    /** @return the link's own failure, if it had one, to add to a run's reason */
    private static String linkFailure(LossLink link) {
        return link.failure().map(f -> "; " + f).orElse("");
    }

    private static List<String> args(Spec spec, LossLink link, int side, Path dir) {
        return List.of(side == LossLink.RECEIVER ? "receive" : "send", spec.transport(),
                link.address(side).getHostAddress(), Long.toString(spec.bytes()), Long.toString(spec.messageBytes()),
                Integer.toString(spec.inflight()), Long.toString(spec.seed()), Long.toString(spec.warmupBytes()),
                dir.toString(),
                Long.toString(spec.timeoutSeconds() + SIDE_GRACE_SECONDS));
    }

    private static Map<String, String> environment(Spec spec, LossLink link, int side) {
        Map<String, String> env = new HashMap<>(link.environment(side));
        env.put("JCCL_METAROCE_PATHS", Integer.toString(spec.paths()));
        return env;
    }

    /** @return the fields of one flat JSON object line (values as written: strings keep their quotes) */
    static Map<String, String> fields(String line) {
        Map<String, String> out = new HashMap<>();
        if (line.startsWith("{")) {
            Matcher m = FIELD.matcher(line);
            while (m.find()) {
                out.put(m.group(1), m.group(2));
            }
        }
        return out;
    }

    /** @return the failing side's own words ({@link LossBenchRank#FAILED_PREFIX}), else its exit status */
    private static String failure(String report, int side, int status) {
        String who = side == LossLink.RECEIVER ? "receiver" : "sender";
        String any = null;
        String current = null;
        for (String line : report.split("\n")) {
            if (line.startsWith("--- rank ")) {
                current = line.startsWith("--- rank " + LossLink.RECEIVER + " ") ? "receiver" : "sender";
                continue;
            }
            int at = line.indexOf(LossBenchRank.FAILED_PREFIX);
            if (at >= 0) {
                String text = current + ": " + line.substring(at + LossBenchRank.FAILED_PREFIX.length()).strip();
                if (who.equals(current)) {
                    return text;
                }
                any = any == null ? text : any;
            }
        }
        return any != null ? any : who + " exited with status " + status;
    }

    private static double seconds(long startNs) {
        return (System.nanoTime() - startNs) / 1e9;
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
