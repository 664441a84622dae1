package io.jccl.cli.progress;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The bar that shares the terminal: other lines never land inside it, and a bar not shown draws nothing. */
class TerminalBarTest {
    @Test
    void aLineOfOtherOutputWipesTheBarFirstAndTheBarIsDrawnAgainAfterIt() throws InterruptedException {
        ByteArrayOutputStream screenBytes = new ByteArrayOutputStream();
        PrintStream screen = new PrintStream(screenBytes, true, StandardCharsets.UTF_8);
        try (TerminalBar bar = TerminalBar.open("jccl perf", 3, "rows", screen, true)) {
            awaitFirstDrawing(screenBytes);
            bar.println(screen, "row 1");
            bar.step();
            bar.println(screen, "row 2");
            bar.step();
        }
        String drawn = screenBytes.toString(StandardCharsets.UTF_8);
        // Each row comes after a wipe of the whole bar line, and the bar is drawn again right after it.
        for (String row : new String[] {"row 1", "row 2"}) {
            int at = drawn.indexOf(row + System.lineSeparator());
            assertThat(drawn.substring(0, at)).as(row).containsPattern("\\r {20,}\\r$");
            assertThat(drawn.substring(at + row.length() + System.lineSeparator().length())).as(row)
                    .startsWith("\rjccl perf");
        }
        assertThat(drawn).endsWith(System.lineSeparator());
        String lastLine = drawn.substring(drawn.lastIndexOf('\r') + 1);
        assertThat(lastLine).contains("jccl perf").contains("66%").contains("2/3 rows");
    }

    /** The bar's first drawing comes from its own thread; wiping is only needed once it is there. */
    private static void awaitFirstDrawing(ByteArrayOutputStream screen) throws InterruptedException {
        long deadlineNs = System.nanoTime() + 10_000_000_000L;
        while (!screen.toString(StandardCharsets.UTF_8).contains("0/3 rows") && System.nanoTime() < deadlineNs) {
            Thread.sleep(5);
        }
    }

    @Test
    void aBarNotShownOnlyPrintsTheOtherLines() {
        ByteArrayOutputStream screenBytes = new ByteArrayOutputStream();
        PrintStream screen = new PrintStream(screenBytes, true, StandardCharsets.UTF_8);
        try (TerminalBar bar = TerminalBar.open("jccl soak", 10, "operations", screen, false)) {
            bar.stepTo(4);
            bar.setExtraMessage("0 wrong");
            bar.println(screen, "[1] a rank's line");
            assertThat(bar.current()).isEqualTo(4);
        }
        assertThat(screenBytes.toString(StandardCharsets.UTF_8)).isEqualTo("[1] a rank's line" + System.lineSeparator());
    }
}
