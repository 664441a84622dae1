package io.jccl.metaroce.net;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.UniqueId;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real JVMs, joined through the rendezvous, running every collective over the {@code metaroce} transport (forced
 * with {@code JCCL_NET}, though it is also the default between processes): every element exact.
 */
@Tag("integration")
class MetaRoceMultiProcessTest {
    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {2, 3, 4})
    void everyCollectiveIsExactBetweenProcesses(int processes) throws Exception {
        List<Jvm> ranks = start(processes, 300_007, Map.of(), List.of());
        assertEveryCollectiveExact(ranks);
    }

    /**
     * The same over invoker threading (no driver thread: only the ranks' own polls move the protocol), which also
     * creates the communicator that way: a rank done connecting keeps polling while it waits for the others
     * (PollingGather), or a peer still waiting for its answer timed out.
     */
    @ParameterizedTest(name = "{0} processes, invoker threading")
    @ValueSource(ints = {2, 3})
    void everyCollectiveIsExactInInvokerThreading(int processes) throws Exception {
        List<Jvm> ranks = start("metaroce-invoker-np" + processes, processes, 300_007,
                Map.of("JCCL_METAROCE_THREADING", "invoker"), List.of(), JvmProcesses.inheritedJvmOptions());
        assertEveryCollectiveExact(ranks);
    }

    /** Every rank exited 0 having run every collective, every element exact. */
    private static void assertEveryCollectiveExact(List<Jvm> ranks) throws Exception {
        for (int r = 0; r < ranks.size(); r++) {
            Jvm jvm = ranks.get(r);
            assertThat(jvm.await(300)).as("rank %d exit code; output:%n%s", r, jvm.outputText()).isZero();
            assertThat(jvm.outputText()).contains("RESULT OK").contains("ALL_TO_ALLV FLOAT32")
                    .contains("P2P FLOAT32").contains("BARRIER ok").doesNotContain("wrong=1");
        }
    }

    /** Starts one JVM per rank; {@code extraArgs} follow rank, size and element count. */
    static List<Jvm> start(int processes, long elements, Map<String, String> env, List<String> extraArgs)
            throws Exception {
        return start("metaroce-np" + processes, processes, elements, env, extraArgs,
                JvmProcesses.inheritedJvmOptions());
    }

    /**
     * Starts one JVM per rank, its output in {@code target/process-output/<name>-rank<r>.log}; {@code extraArgs}
     * follow rank, size and element count.
     */
    static List<Jvm> start(String name, int processes, long elements, Map<String, String> env, List<String> extraArgs,
                           List<String> jvmOptions) throws Exception {
        UniqueId id = UniqueId.create();
        Map<String, String> all = new HashMap<>(env);
        all.put("JCCL_TEST_UNIQUE_ID", id.encode());
        all.put("JCCL_NET", "metaroce");
        List<Jvm> ranks = new ArrayList<>();
        for (int r = 0; r < processes; r++) {
            List<String> args = new ArrayList<>(List.of(Integer.toString(r), Integer.toString(processes),
                    Long.toString(elements)));
            args.addAll(extraArgs);
            ranks.add(JvmProcesses.start(CollectivesRankMain.class, args, all, name + "-rank" + r, jvmOptions));
        }
        return ranks;
    }
}
