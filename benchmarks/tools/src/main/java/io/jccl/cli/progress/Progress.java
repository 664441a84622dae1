package io.jccl.cli.progress;

import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarStyle;

import java.util.function.Consumer;

/**
 * The progress bars of the long-running tools ({@code perf} sweeps, {@code bench}, {@code sim}, {@code soak}), drawn
 * by me.tongfei's progressbar on standard error. Shown only on a terminal and never with {@code --json} (the caller
 * decides, {@link #shown}); a bar that is not shown draws nothing, so callers step it without checks.
 */
public final class Progress {
    /** A redraw twice a second: enough to see it move, too rare to take a measurable share of a core. */
    private static final int UPDATE_INTERVAL_MS = 500;

    private Progress() {
    }

    /**
     * @param choice  what the user asked for ({@code --progress} / {@code --no-progress}), or null for the default
     * @param json    whether the command writes JSON
     * @return whether to draw: as asked, else when standard error is a terminal and the output is not JSON
     */
    public static boolean shown(Boolean choice, boolean json) {
        return choice != null ? choice : System.console() != null && !json;
    }

    /**
     * @param task    what runs, shown before the bar (e.g. {@code "metaroce, loss 1%"})
     * @param total   how many steps make it whole (flows, sizes, runs, operations)
     * @param unit    the steps' unit, shown after the counts (e.g. {@code "flows"})
     * @param shown   whether to draw it on standard error
     * @return a new bar; close it when the work ends (it then draws its last state and a line break)
     */
    public static ProgressBar bar(String task, long total, String unit, boolean shown) {
        return bar(task, total, unit, shown ? new ConsoleProgressBarConsumer(System.err)
                : new DelegatingProgressBarConsumer(line -> { }));
    }

    /**
     * A bar that hands each rendered line to {@code lines} (tests).
     *
     * @param task  what runs
     * @param total steps that make it whole
     * @param unit  the steps' unit
     * @param lines receives each rendering
     * @return a new bar
     */
    public static ProgressBar bar(String task, long total, String unit, Consumer<String> lines) {
        return bar(task, total, unit, new DelegatingProgressBarConsumer(lines, 120));
    }

    /**
     * A bar drawn by {@code consumer} ({@link TerminalBar}'s, which wipes it before other output).
     *
     * @param task     what runs
     * @param total    steps that make it whole
     * @param unit     the steps' unit
     * @param consumer draws each rendering
     * @return a new bar
     */
    static ProgressBar bar(String task, long total, String unit, ProgressBarConsumer consumer) {
        return new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(Math.max(1, total))
                .setUnit(" " + unit, 1)
                .setStyle(ProgressBarStyle.ASCII)   // no block characters: logs and non-UTF-8 terminals read it too
                .setUpdateIntervalMillis(UPDATE_INTERVAL_MS)
                .setConsumer(consumer)
                .build();
    }
}
