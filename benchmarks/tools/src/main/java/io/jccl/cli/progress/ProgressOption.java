package io.jccl.cli.progress;

import picocli.CommandLine.Option;

/** {@code --progress} / {@code --no-progress}, the same on every long-running command ({@code @Mixin}). */
public final class ProgressOption {
    @Option(names = "--progress", negatable = true, description = "A progress line on the terminal (default: when "
            + "stderr is a terminal and not --json).")
    Boolean choice;

    /** Created by picocli. */
    public ProgressOption() {
    }

    /**
     * @param json whether the command writes JSON
     * @return whether to draw the bar ({@link Progress#shown})
     */
    public boolean shown(boolean json) {
        return Progress.shown(choice, json);
    }
}
