package io.jccl.cli.progress;

import me.tongfei.progressbar.ProgressBar;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The tools' progress bar: what it draws, and that one not shown draws nothing. */
class ProgressTest {
    @Test
    void theBarShowsTheTaskTheShareDoneTheCountsAndTheMessage() {
        List<String> lines = new CopyOnWriteArrayList<>();
        try (ProgressBar bar = Progress.bar("metaroce, loss 1%", 4, "flows", lines::add)) {
            bar.stepTo(1);
            bar.setExtraMessage("3 M events");
        }
        assertThat(lines).isNotEmpty();
        assertThat(lines.getLast()).contains("metaroce, loss 1%").contains("25%").contains("1/4 flows")
                .contains("3 M events");
    }

    @Test
    void theUsersChoiceWinsAndJsonOutputHasNoBarByDefault() {
        assertThat(Progress.shown(Boolean.TRUE, true)).isTrue();
        assertThat(Progress.shown(Boolean.FALSE, false)).isFalse();
        assertThat(Progress.shown(null, true)).isFalse();
    }
}
