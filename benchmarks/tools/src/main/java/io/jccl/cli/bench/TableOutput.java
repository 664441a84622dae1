package io.jccl.cli.bench;

import io.jccl.cli.progress.ProgressOption;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --json} and {@code --[no-]progress} of the bench commands that print a table ({@code collective},
 * {@code transport}, {@code tcp}): the same two options, meaning the same, on each ({@code @Mixin}).
 */
public final class TableOutput {
    @Option(names = "--json", description = "print exactly one JSON object instead of the table")
    boolean json;

    @Mixin
    ProgressOption progress;

    /** Created by picocli. */
    public TableOutput() {
    }

    /** @return whether to print one JSON object instead of the table */
    public boolean json() {
        return json;
    }

    /** @return whether to draw the progress bar ({@link ProgressOption#shown}) */
    public boolean progressShown() {
        return progress.shown(json);
    }
}
