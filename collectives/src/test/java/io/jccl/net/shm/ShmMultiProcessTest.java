package io.jccl.net.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.UniqueId;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real JVMs on this host running every collective with exact checks: over shm alone (2 and 4 JVMs), and a mixed
 * job of 4 JVMs posing as two hosts ({@code JCCL_HOST_ID}), each "host" with a media driver directory of its own,
 * where pairs on the same "host" use shm and the others tcp. Each rank logs its transport per peer, which the test
 * checks.
 */
class ShmMultiProcessTest {
    /** 1 MiB of floats per rank for the full-size collectives: several 64 KiB frames per message, and chunking. */
    private static final long COUNT = (1 << 18) + 3;

    @TempDir
    Path temp;

    @Test
    void twoJvmsRunEveryCollectiveExactlyOverShm() throws Exception {
        List<Jvm> ranks = job(2, r -> "host", r -> temp.resolve("aeron"), true);
        for (int r = 0; r < 2; r++) {
            assertThat(output(ranks.get(r))).contains("transport per peer [" + (r == 0 ? "null, shm" : "shm, null") + "]");
        }
    }

    @Test
    void fourJvmsRunEveryCollectiveExactlyOverShm() throws Exception {
        List<Jvm> ranks = job(4, r -> "host", r -> temp.resolve("aeron"), true);
        assertThat(output(ranks.get(0))).contains("transport per peer [null, shm, shm, shm]");
        assertThat(output(ranks.get(3))).contains("transport per peer [shm, shm, shm, null]");
    }

    @Test
    void mixedJobUsesShmWithinAHostAndTcpBetweenHosts() throws Exception {
        List<Jvm> ranks = job(4, r -> r < 2 ? "host-a" : "host-b", r -> temp.resolve(r < 2 ? "aeron-a" : "aeron-b"),
                false);
        assertThat(output(ranks.get(0))).contains("transport per peer [null, shm, tcp, tcp]");
        assertThat(output(ranks.get(1))).contains("transport per peer [shm, null, tcp, tcp]");
        assertThat(output(ranks.get(2))).contains("transport per peer [tcp, tcp, null, shm]");
        assertThat(output(ranks.get(3))).contains("transport per peer [tcp, tcp, shm, null]");
        assertThat(Files.exists(temp.resolve("aeron-a.lock"))).as("host a's driver lock").isTrue();
        assertThat(Files.exists(temp.resolve("aeron-b.lock"))).as("host b's driver lock").isTrue();
    }

    private List<Jvm> job(int size, java.util.function.IntFunction<String> hostOf,
                          java.util.function.IntFunction<Path> dirOf, boolean forceShm) throws Exception {
        UniqueId id = UniqueId.create();
        List<String> jvmOptions = new ArrayList<>(JvmProcesses.inheritedJvmOptions());
        jvmOptions.add("-Dorg.slf4j.simpleLogger.log.io.jccl.core.CommInit=debug");
        List<Jvm> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            Map<String, String> env = new HashMap<>();
            env.put("JCCL_TEST_UNIQUE_ID", id.encode());
            env.put("JCCL_DEBUG", "DEBUG");
            env.put("JCCL_HOST_ID", hostOf.apply(r));
            env.put("JCCL_SHM_DIR", dirOf.apply(r).toString());
            env.put("JCCL_SHM_TERM_BYTES", String.valueOf(4 << 20));
            if (forceShm) {
                env.put("JCCL_NET", "shm");
            }
            ranks.add(JvmProcesses.start(ShmRankMain.class, List.of(Integer.toString(r), Integer.toString(size),
                    Long.toString(COUNT)), env, "shm-n" + size + "-" + (forceShm ? "shm" : "mixed") + "-rank" + r,
                    jvmOptions));
        }
        for (int r = 0; r < size; r++) {
            Jvm jvm = ranks.get(r);
            int code = jvm.await(120);
            assertThat(code).as("rank %d exit code; output:%n%s", r, jvm.outputText()).isZero();
            String out = jvm.outputText();
            assertThat(out).contains("RESULT OK");
            for (String kind : List.of("ALL_REDUCE", "BROADCAST", "REDUCE", "ALL_GATHER", "REDUCE_SCATTER",
                    "ALL_TO_ALL", "ALL_TO_ALLV", "GATHER", "SCATTER", "P2P")) {
                assertThat(out).contains(kind + " wrong=0");
            }
        }
        return ranks;
    }

    private static String output(Jvm jvm) {
        return jvm.outputText();
    }
}
