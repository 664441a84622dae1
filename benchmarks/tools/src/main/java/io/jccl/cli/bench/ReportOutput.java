package io.jccl.cli.bench;

import io.jccl.cli.progress.ProgressOption;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --json} and {@code --[no-]progress} of the commands that print a report, a table or a summary
 * ({@code bench collective}, {@code transport}, {@code tcp}, {@code loss}, {@code soak}, {@code sim}): the same two
 * options, meaning the same, on each ({@code @Mixin}).
 */
public final class ReportOutput {
    @Option(names = "--json", description = "print exactly one JSON object on standard output instead of the report")
    boolean json;

    @Mixin
    ProgressOption progress;

    /** Created by picocli. */
    public ReportOutput() {
    }

    /** @return whether to print one JSON object instead of the report */
    public boolean json() {
        return json;
    }

    /** @return whether to draw the progress bar ({@link ProgressOption#shown}) */
    public boolean progressShown() {
        return progress.shown(json);
    }
}
