package io.jccl.cli.run;

import org.junit.jupiter.api.Tag;
import io.jccl.cli.Main;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An invalid transport setting under {@code jccl run}: each Java rank says so in one line, naming the variable,
 * the value and what is allowed, as {@code INVALID_ARGUMENT}; no stack trace, and the job's status is
 * {@link Main#EXIT_CONFIG}. One for a TCP option, one for a MetaRoCE option (which used to be a SYSTEM_ERROR).
 */
@Tag("integration")
class RankSettingsErrorTest {
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "JCCL_SOCKET_NSOCKS|17|tcp|it must be a whole number of sockets per connection from 1 to 16",
        "JCCL_METAROCE_PATHS|0|metaroce|it must be a whole number from 1 to 64"})
    void eachRankPrintsOneLineAndNoStackTrace(String key, String value, String transport, String allowed)
            throws Exception {
        RunCommandTest.Result r = new RunCommandTest.Launcher(Map.of(), List.of("-np", "2", "--transport", transport,
                "-x", key + "=" + value, "--", "io.jccl.cli.run.RunSmokeMain")).await(120);

        assertThat(r.code()).as(r.toString()).isEqualTo(Main.EXIT_CONFIG);
        String line = ": INVALID_ARGUMENT: " + key + "='" + value + "' is invalid: " + allowed
                + " (from the environment)";
        // The first rank to fail stops the other, which may not have got as far.
        assertThat(r.err()).as(r.toString()).anyMatch(l -> l.matches("\\[([01])] jccl run: rank \\1"
                + java.util.regex.Pattern.quote(line)));
        assertThat(r.err()).as(r.toString()).noneMatch(l -> l.contains("Exception") || l.contains("\tat ")
                || l.matches("\\[\\d] +at .*"));
        assertThat(r.out()).as(r.toString()).isEmpty();
    }
}
