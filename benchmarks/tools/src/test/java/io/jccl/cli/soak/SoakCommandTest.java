package io.jccl.cli.soak;

import io.jccl.cli.CliRun;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jccl soak} with real rank JVMs: short workloads (small buffers) over tcp, shm and MetaRoCE through the
 * impairing relay are exact; a spoiled element, a rank stuck in an operation and ranks that stop making progress
 * fail the run with the right counts; every option error names the option. The op timeouts here only detect hangs.
 */
@Tag("integration")
class SoakCommandTest {
    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(CliRun r) {
        assertThat(r.out().strip()).as(r.err()).startsWith("{").endsWith("}").doesNotContain("\n");
        return (Map<String, Object>) CliRun.parseJson(r.out().strip());
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> errors(Map<String, Object> j) {
        return (List<Map<String, Object>>) j.get("errors");
    }

    private static void assertClean(CliRun r, Map<String, Object> j, int ops) {
        assertThat(r.code()).as("%s%n%s", r.out(), r.err()).isZero();
        assertThat(j).containsEntry("ok", true).containsEntry("ops", (double) ops)
                .containsEntry("opsPlanned", (double) ops).containsEntry("wrong", 0.0).containsEntry("hangs", 0.0)
                .containsEntry("rankFailures", 0.0).containsEntry("errorCount", 0.0);
        assertThat(errors(j)).isEmpty();
        assertThat((Double) j.get("seconds")).isPositive();
    }

    @Test
    void shortSoakOverTcpIsExact() {
        CliRun r = CliRun.of("soak", "-np", "2", "--transport", "tcp", "--ops", "80", "--max-bytes", "16K",
                "--seed", "7", "--json");
        Map<String, Object> j = json(r);
        assertClean(r, j, 80);
        assertThat(j).containsEntry("transport", "tcp").containsEntry("ranks", 2.0).containsEntry("seed", 7.0)
                .containsEntry("maxBytesPerRank", 16384.0).containsEntry("opTimeoutSeconds", 60.0)
                .containsEntry("impair", null).doesNotContainKey("relay");
        assertThat((String) j.get("replay")).isEqualTo("./jccl soak -np 2 --transport tcp --ops 80 --seed 7 "
                + "--max-bytes 16384 --op-timeout 60");
        assertThat(j).containsEntry("firstFailingOp", -1.0);
    }

    @Test
    void progressShowsTheOperationsDoneAndTheWrongCountOnStandardError() {
        CliRun r = CliRun.of("soak", "-np", "2", "--transport", "shm", "--ops", "30", "--max-bytes", "4K",
                "--seed", "5", "--progress");
        assertThat(r.code()).as("%s%n%s", r.out(), r.err()).isZero();
        assertThat(r.err()).contains("jccl soak 100%").contains("30/30 operations").contains("0 wrong");
        assertThat(r.out()).doesNotContain("\r").contains(" — OK");
    }

    @Test
    void shortSoakOverShmOnThreeRanksPrintsASummary() {
        CliRun r = CliRun.of("soak", "-np", "3", "--transport", "shm", "--ops", "60", "--max-bytes", "8K",
                "--seed", "11");
        assertThat(r.code()).as("%s%n%s", r.out(), r.err()).isZero();
        assertThat(r.out()).startsWith("jccl soak: 60 operations on 3 ranks, transport shm, seed 11, buffers up to "
                + "8192 bytes, op timeout 60 s").contains("jccl soak: 60 of 60 operations done on every rank (3 ranks, "
                + "transport shm, seed 11): 0 wrong, 0 hangs, 0 rank failures, ").contains(" — OK");
    }

    @Test
    @SuppressWarnings("unchecked")
    void shortSoakOverMetaRoceThroughTheImpairingRelayIsExact() {
        CliRun r = CliRun.of("soak", "-np", "3", "--transport", "metaroce", "--ops", "60", "--max-bytes", "64K",
                "--impair", "loss=0.02,dup=0.01,reorder=0.05,corrupt=0.005", "--seed", "5", "--json");
        Map<String, Object> j = json(r);
        assertClean(r, j, 60);
        assertThat(j).containsEntry("transport", "metaroce").containsEntry("ranks", 3.0);
        assertThat((Map<String, Object>) j.get("impair")).containsEntry("loss", 0.02).containsEntry("dup", 0.01)
                .containsEntry("reorder", 0.05).containsEntry("corrupt", 0.005);
        Map<String, Object> relay = (Map<String, Object>) j.get("relay");
        assertThat(relay).containsKeys("received", "forwarded", "dropped_loss", "duplicated", "reordered",
                "corrupted", "endpoints", "flows_opened");
        assertThat((Double) relay.get("endpoints")).isGreaterThanOrEqualTo(3);
        assertThat((Double) relay.get("forwarded")).isPositive();
        assertThat((String) j.get("replay")).endsWith("--impair loss=0.02,dup=0.01,reorder=0.05,corrupt=0.005");
    }

    @Test
    void aSpoiledElementFailsTheSoakWithWrongCounted() {
        CliRun r = CliRun.of("soak", "-np", "2", "--transport", "tcp", "--ops", "30", "--max-bytes", "4K",
                "--seed", "3", "--json", "--test-wrong", "1:10");
        Map<String, Object> j = json(r);
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(j).containsEntry("ok", false).containsEntry("wrong", 1.0).containsEntry("hangs", 0.0)
                .containsEntry("rankFailures", 0.0).containsEntry("ops", 30.0);
        Map<String, Object> e = errors(j).getFirst();
        assertThat(e).containsEntry("rank", 1.0);
        assertThat((Double) e.get("op")).isGreaterThanOrEqualTo(10);
        int op = ((Double) e.get("op")).intValue();
        assertThat((String) e.get("description")).startsWith("op " + op + ": ");
        assertThat((String) e.get("message")).startsWith("1 wrong: op " + op + ": ").contains("rank 1 element");
        assertThat((String) j.get("replay")).isEqualTo("./jccl soak -np 2 --transport tcp --ops 30 --seed 3 "
                + "--max-bytes 4096 --op-timeout 60");
        assertThat(j).containsEntry("firstFailingOp", (double) op);
    }

    @Test
    @SuppressWarnings("unchecked")
    void ranksThatStopMakingProgressAreHungAndKilled() {
        // Both ranks stop before op 4, so no operation is pending and only the watchdog (2 x 2 s) can see it. The
        // ranks reach their stall at slightly different times: the one that stalled first is caught first.
        CliRun r = CliRun.of("soak", "-np", "2", "--transport", "tcp", "--ops", "20", "--max-bytes", "4K",
                "--seed", "3", "--json", "--op-timeout", "2", "--test-hang", "4");
        Map<String, Object> j = json(r);
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(j).containsEntry("ok", false).containsEntry("hangs", 1.0).containsEntry("rankFailures", 0.0);
        assertThat(errors(j)).isNotEmpty().allSatisfy(e -> assertThat((String) e.get("message"))
                .startsWith("hung: no progress for ").contains("(the bound is twice the op timeout, 4 s)"));
        assertThat((String) errors(j).getFirst().get("message"))
                .contains("done up to op 3; stopped by --test-hang before op 4: ");
        List<String> states = (List<String>) j.get("lastStates");
        assertThat(states).hasSize(2).anySatisfy(s -> assertThat(s).contains("stopped by --test-hang before op 4"));
        assertThat(r.err()).contains("jccl soak: hung; the ranks' last states:", "--- rank 0 (pid ",
                "still running, killed");
    }

    @Test
    void anOperationThatTimesOutIsAHang() {
        // Rank 1 stops before op 2; rank 0's op 2 fails after the 2 s op timeout, before the watchdog (4 s) sees rank 1.
        CliRun r = CliRun.of("soak", "-np", "2", "--transport", "tcp", "--ops", "20", "--max-bytes", "4K",
                "--seed", "3", "--json", "--op-timeout", "2", "--test-hang", "1:2", "--kinds", "allreduce");
        Map<String, Object> j = json(r);
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(j).containsEntry("ok", false).containsEntry("hangs", 1.0).containsEntry("rankFailures", 1.0)
                .containsEntry("ops", 2.0);
        Map<String, Object> e = errors(j).getFirst();
        assertThat(e).containsEntry("rank", 0.0).containsEntry("op", 2.0);
        assertThat((String) e.get("message")).startsWith("TIMEOUT: ");
        assertThat((String) e.get("description")).startsWith("op 2: allReduce ");
    }

    @Test
    void badOptionsAreRefusedNamingThem() {
        String[][] cases = {
            {"-np 0", "-np must be between 1 and 64, got 0"},
            {"--transport ib", "--transport 'ib' is not one of auto, aeron-ipc, aeron-udp, metaroce, shm, tcp"},
            {"--ops 0", "--ops must be between 1 and"},
            {"--max-bytes 12Q", "--max-bytes: '12Q' is not a size"},
            {"--max-bytes 0", "--max-bytes must be between 1 and 1G, got 0"},
            {"--max-bytes 2G", "--max-bytes must be between 1 and 1G, got 2G"},
            {"--kinds allreduce,allxor", "--kinds: unknown collective 'allxor'; expected some of allreduce,"},
            {"--op-timeout 0", "--op-timeout must be between 1 and 3600 seconds, got 0"},
            {"--impair loss=0.1", "--impair needs --transport metaroce"},
            {"--transport metaroce --impair loss=0.1,jitter=2", "--impair: unknown key 'jitter'; the keys are loss, "
                + "dup, reorder, corrupt"},
            {"--transport metaroce --impair loss=0.1,loss=0.2", "--impair: 'loss' is given twice"},
            {"--transport metaroce --impair loss=1", "--impair: loss=1 must be a probability from 0 up to (not "
                + "including) 1"},
            {"--transport metaroce --impair dup=-0.1", "--impair: dup=-0.1 must be a probability"},
            {"--transport metaroce --impair corrupt=abc", "--impair: corrupt=abc must be a probability"},
            {"--transport metaroce --impair reorder", "--impair: 'reorder' is not KEY=VALUE"},
            {"--transport metaroce --impair loss=0.1,", "--impair: '' is not KEY=VALUE"},
            {"--test-wrong 2:1", "--test-wrong '2:1' must be RANK:OP with RANK 0-1"},
            {"--test-hang x", "--test-hang 'x' must be [RANK:]OP"},
        };
        for (String[] c : cases) {
            CliRun r = CliRun.of(("soak " + c[0]).split(" "));
            assertThat(r.code()).as(c[0]).isEqualTo(2);
            assertThat(r.err()).as(c[0]).contains(c[1]);
        }
        assertThat(CliRun.of("soak", "--transport", "metaroce", "--impair", " ").err()).contains("--impair is empty");
    }
}
