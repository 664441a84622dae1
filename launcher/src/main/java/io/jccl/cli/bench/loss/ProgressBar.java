package io.jccl.cli.bench.loss;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress bar for long sweeps, redrawn in place with {@code \r} on standard error: runs done of all,
 * the current run, its share of bytes delivered, and the time since the sweep began. Drawn only where asked (the
 * caller decides: a terminal, not {@code --json}, not {@code --no-progress}); a disabled bar prints nothing.
 */
public final class ProgressBar {
    private static final int WIDTH_CHARS = 24;

    private final PrintStream out;
    private final boolean enabled;
    private final int totalRuns;
    private final long startNs = System.nanoTime();
    private int lastLength;

    /**
     * @param out       where to draw (standard error)
     * @param enabled   whether to draw at all
     * @param totalRuns runs in the sweep
     */
    public ProgressBar(PrintStream out, boolean enabled, int totalRuns) {
        this.out = out;
        this.enabled = enabled;
        this.totalRuns = Math.max(1, totalRuns);
    }

    /**
     * Redraws the bar.
     *
     * @param runsDone     runs finished
     * @param current      what runs now, e.g. {@code tcp loss 1%}
     * @param runFraction  how much of the current run is done, 0-1
     */
    public synchronized void update(int runsDone, String current, double runFraction) {
        if (!enabled) {
            return;
        }
        double overall = Math.clamp((runsDone + Math.clamp(runFraction, 0, 1)) / totalRuns, 0, 1);
        int filled = (int) Math.round(overall * WIDTH_CHARS);
        long elapsedS = (System.nanoTime() - startNs) / 1_000_000_000L;
        String line = String.format(Locale.ROOT, "[%s%s] %d/%d %s %3.0f%% %d:%02d", "#".repeat(filled),
                ".".repeat(WIDTH_CHARS - filled), runsDone, totalRuns, current, 100 * runFraction, elapsedS / 60,
                elapsedS % 60);
        // Pad over the rest of a longer previous line.
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
    }

    /** Erases the bar, so that what follows starts on a clean line. */
    public synchronized void clear() {
        if (enabled && lastLength > 0) {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            out.flush();
            lastLength = 0;
        }
    }
}
