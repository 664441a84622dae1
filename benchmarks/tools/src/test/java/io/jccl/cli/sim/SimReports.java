package io.jccl.cli.sim;

import io.jccl.cli.CliRun;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The JSON reports of {@code jccl sim ...} runs, for the tests of its commands. */
final class SimReports {
    private SimReports() {
    }

    /** @return the JSON report of {@code jccl args...}, which must exit 0 (else its output is the failure's text) */
    static Map<String, Object> passing(String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.code()).as(run.out() + run.err()).isZero();
        return run.json();
    }

    /**
     * Runs {@code jccl args...} twice: a seed must replay the same run.
     *
     * @param sameKeys the report's fields that must be equal in both runs
     * @return the first run's report
     */
    static Map<String, Object> replayed(String[] args, String... sameKeys) {
        Map<String, Object> a = CliRun.of(args).json();
        Map<String, Object> b = CliRun.of(args).json();
        for (String key : sameKeys) {
            assertThat(a.get(key)).as(key).isEqualTo(b.get(key));
        }
        return a;
    }
}
