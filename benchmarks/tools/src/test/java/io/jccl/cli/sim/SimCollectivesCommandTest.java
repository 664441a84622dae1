package io.jccl.cli.sim;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl sim collectives}: JSON, replay of a seed, a failing seed reported with its replay command, errors. */
class SimCollectivesCommandTest {
    private static long num(Map<String, Object> j, String key) {
        return ((Number) j.get(key)).longValue();
    }

    @Test
    void printsOneJsonObjectWithTheSeedsAndNoFailures() {
        Map<String, Object> j = SimReports.passing("sim", "collectives", "--ranks", "3", "--ops", "20", "--seeds", "3",
                "--faults", "loss,dup,reorder,corrupt,blackhole,flap,crash", "--max-bytes", "8192", "--json");
        assertThat(num(j, "ranks")).isEqualTo(3);
        assertThat(num(j, "ops")).isEqualTo(20);
        assertThat(num(j, "seeds")).isEqualTo(3);
        assertThat(num(j, "wrong")).isZero();
        assertThat(num(j, "hangs")).isZero();
        assertThat(num(j, "crashes")).isEqualTo(3);
        assertThat(j).containsEntry("faults", "loss,dup,reorder,corrupt,blackhole,flap,crash");
        assertThat((List<?>) j.get("failedSeeds")).isEmpty();
        assertThat(num(j, "completedOps")).isPositive();
    }

    @Test
    void oneSeedReplaysTheSameRun() {
        String[] args = {"sim", "collectives", "--ranks", "3", "--ops", "15", "--faults", "loss,flap", "--max-bytes",
            "4096", "--json", "--seed", "11"};
        Map<String, Object> a = SimReports.replayed(args, "events", "virtualSeconds");
        assertThat(num(a, "completedOps")).isEqualTo(45);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aWrongElementFailsTheSeedWithItsReplayCommand() {
        CliRun run = CliRun.of("sim", "collectives", "--ranks", "2", "--ops", "10", "--seeds", "2", "--faults",
                "none", "--max-bytes", "4096", "--test-spoil-op", "3", "--json");
        assertThat(run.code()).isEqualTo(1);
        Map<String, Object> j = run.json();
        List<Object> failed = (List<Object>) j.get("failedSeeds");
        assertThat(num(j, "wrong")).isPositive();
        assertThat(failed).isNotEmpty();
        Map<String, Object> first = (Map<String, Object>) failed.getFirst();
        assertThat((String) first.get("replay")).startsWith("./jccl sim collectives --ranks 2 --ops 10")
                .contains("--seed " + num(first, "seed"));
        assertThat((List<String>) first.get("errors")).anySatisfy(e -> assertThat(e).contains("wrong result")
                .contains("rank 0"));

        CliRun human = CliRun.of("sim", "collectives", "--ranks", "2", "--ops", "10", "--seed", "1", "--faults",
                "none", "--max-bytes", "4096", "--test-spoil-op", "3");
        assertThat(human.code()).isEqualTo(1);
        assertThat(human.out()).contains("FAILED seed 1").contains("replay with ./jccl sim collectives");
    }

    @Test
    void badArgumentsAreUsageErrorsNamingWhatIsWrong() {
        CliRun faults = CliRun.of("sim", "collectives", "--faults", "loss,meteor");
        assertThat(faults.code()).isEqualTo(2);
        assertThat(faults.err()).contains("unknown fault 'meteor'").contains("blackhole");
        CliRun ranks = CliRun.of("sim", "collectives", "--ranks", "1");
        assertThat(ranks.code()).isEqualTo(2);
        assertThat(ranks.err()).contains("ranks must be 2 to 256, got 1");
        CliRun seeds = CliRun.of("sim", "collectives", "--seeds", "0");
        assertThat(seeds.code()).isEqualTo(2);
        assertThat(seeds.err()).contains("--seeds must be at least 1");
        assertThat(CliRun.of("sim").code()).isEqualTo(2);
    }
}
