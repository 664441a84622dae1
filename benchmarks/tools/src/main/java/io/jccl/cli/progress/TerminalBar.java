package io.jccl.cli.progress;

import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarConsumer;

import java.io.PrintStream;

/**
 * A progress bar that shares the terminal with a command's other output (a table on standard output, rank lines on
 * standard error): {@link #println} wipes the bar's line, prints, and draws the bar again below, so a table row
 * never lands in the middle of a bar. The drawing is {@link Progress}'s; a bar that is not shown draws
 * nothing and {@link #println} only prints.
 */
public final class TerminalBar implements AutoCloseable {
    private final ProgressBar bar;
    /** Null when the bar is not shown. */
    private final WipingConsumer consumer;
    private boolean closed;

    private TerminalBar(String task, long total, String unit, PrintStream screen, boolean shown) {
        this.consumer = shown ? new WipingConsumer(screen) : null;
        this.bar = consumer == null ? Progress.bar(task, total, unit, false) : Progress.bar(task, total, unit, consumer);
    }

    /**
     * @param task   what runs, shown before the bar
     * @param total  steps that make it whole
     * @param unit   the steps' unit
     * @param screen where the bar is drawn (standard error)
     * @param shown  whether to draw it ({@link Progress#shown})
     * @return a new bar; close it when the work ends
     */
    public static TerminalBar open(String task, long total, String unit, PrintStream screen, boolean shown) {
        return new TerminalBar(task, total, unit, screen, shown);
    }

    /** Counts one more step done. */
    public void step() {
        bar.step();
    }

    /** @param steps steps done so far (never fewer than before) */
    public void stepTo(long steps) {
        bar.stepTo(steps);
    }

    /** @param message shown after the counts (e.g. {@code "3 wrong"}) */
    public void setExtraMessage(String message) {
        bar.setExtraMessage(message);
    }

    /** @return steps done so far */
    public long current() {
        return bar.getCurrent();
    }

    /**
     * Prints one line of other output: the bar's line is wiped first (when it shares the terminal with {@code out})
     * and the bar is drawn again after it.
     *
     * @param out  standard output or error
     * @param line the text, without its end
     */
    public void println(PrintStream out, String line) {
        if (consumer == null) {
            out.println(line);
            out.flush();
            return;
        }
        consumer.printAbove(out, line);
        bar.refresh();   // the new state at once, when a step came since the last drawing
    }

    /** Draws the last state and ends the bar's line; again, does nothing (a failure report closes it early). */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            bar.close();
        }
    }

    /** Draws the bar on {@code screen} and remembers its last rendering, to wipe it before other output and redraw. */
    private static final class WipingConsumer implements ProgressBarConsumer {
        private final PrintStream screen;
        private final ConsoleProgressBarConsumer console;
        private String lastRendered = "";
        private boolean drawn;

        WipingConsumer(PrintStream screen) {
            this.screen = screen;
            this.console = new ConsoleProgressBarConsumer(screen);
        }

        @Override
        public int getMaxRenderedLength() {
            return console.getMaxRenderedLength();
        }

        @Override
        public synchronized void accept(String rendered) {
            console.accept(rendered);
            lastRendered = rendered;
            drawn = true;
        }

        /** Synchronized with {@link #accept}: the bar's own thread cannot draw between the wipe and the line. */
        synchronized void printAbove(PrintStream out, String line) {
            if (drawn) {
                screen.print("\r" + " ".repeat(Math.min(lastRendered.length(), console.getMaxRenderedLength())) + "\r");
                screen.flush();
            }
            out.println(line);
            out.flush();
            if (drawn) {
                console.accept(lastRendered);   // at once, not at the bar's next tick
            }
        }

        @Override
        public synchronized void close() {
            console.close();
        }
    }
}
