package io.jccl.net.shm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.UniqueId;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real JVMs on this host running every collective with exact checks over shm: 4 JVMs with buffers from
 * {@code Communicator.allocate} (registered memory: large messages copied out of the sender's mapped segment), 2 JVMs
 * with the pipelined copy through the ring ({@code JCCL_SHM_LARGE=ring}), and a mixed job of 4 JVMs posing as two
 * hosts ({@code JCCL_HOST_ID}), where pairs on the same "host" use shm (large messages by cross-memory attach where the
 * kernel allows it, {@code JCCL_SHM_LARGE=cma}) and the others tcp. Each rank logs its transport per peer and the shm startup line, which the
 * test checks.
 */
@Tag("integration")
class ShmMultiProcessTest {
    /** 1 MiB of floats per rank for the full-size collectives: large messages, and chunking. */
    private static final long COUNT = (1 << 18) + 3;

    @Test
    void fourJvmsRunEveryCollectiveExactlyWithRegisteredBuffers() throws Exception {
        List<Jvm> ranks = job(4, r -> "host", Map.of("JCCL_NET", "shm", "JCCL_TEST_ALLOCATE", "1"), "registered");
        assertThat(ranks.get(0).outputText()).contains("transport per peer [null, shm, shm, shm]");
        assertThat(ranks.get(3).outputText()).contains("transport per peer [shm, shm, shm, null]");
        for (Jvm rank : ranks) {
            assertThat(boxAllReduces(rank)).as("all-reduces of a few bytes through the box lines").isPositive();
        }
        for (Jvm rank : ranks) {
            assertThat(rank.outputText()).as("where the allocated buffers live").contains("ALLOCATED IN /memfd:jccl-shm");
        }
    }

    @Test
    void twoJvmsRunEveryCollectiveExactlyThroughTheRing() throws Exception {
        List<Jvm> ranks = job(2, r -> "host", Map.of("JCCL_NET", "shm", "JCCL_SHM_LARGE", "ring",
                "JCCL_SHM_RING_BYTES", String.valueOf(256 << 10)), "ring");
        for (int r = 0; r < 2; r++) {
            assertThat(ranks.get(r).outputText())
                    .contains("transport per peer [" + (r == 0 ? "null, shm" : "shm, null") + "]")
                    .contains("by pipelined copy through 256 KiB rings (JCCL_SHM_LARGE=ring)");
            assertThat(boxAllReduces(ranks.get(r))).as("all-reduces of a few bytes through the box lines").isPositive();
        }
    }

    /**
     * The default path with single copy raised to 2 MiB, so that the full-size all-reduces (1 MiB and a few bytes)
     * qualify: out of place they run by recursive doubling, each rank reading the peer's input by cross-memory
     * attach where the kernel allows it, and stay exact; in place, and every other collective, take their usual way.
     */
    @Test
    void twoJvmsReadLargeAllReducesInOneCopyByDefault() throws Exception {
        boolean cma = CrossMemory.check().usable();
        List<Jvm> ranks = job(2, r -> "host", Map.of("JCCL_NET", "shm", "JCCL_SHM_SINGLE_COPY_BYTES",
                String.valueOf(2 << 20), "JCCL_TEST_CHOICE_CALLS", "300"), "single-copy");
        List<String> choices = new ArrayList<>();
        for (Jvm rank : ranks) {
            assertThat(rank.outputText()).contains(cma
                    ? "by cross-memory attach where asked (out-of-place all-reduces of 2 ranks up to 2 MiB per rank,"
                    : "by pipelined copy");
            assertThat(rank.outputText()).as("the algorithm of the full-size out-of-place all-reduce").contains(
                    "LARGE ALL_REDUCE " + (cma ? "recursive_doubling" : "ring"));
            Matcher m = Pattern.compile("CHOICE wrong=0 algorithms=(\\S+)").matcher(rank.outputText());
            assertThat(m.find()).as("exact all-reduces through the probes; output:%n%s", rank.outputText()).isTrue();
            choices.add(m.group(1));
        }
        assertThat(choices.get(1)).as("rank 1 chose as rank 0 call by call").isEqualTo(choices.get(0));
        assertThat(choices.get(0)).hasSize(300);
        if (cma) {
            // The probes alternate, single copy first, from the size class's calls 0, 64 and 192; call 0 was the
            // full-size all-reduce before these (1 MiB and 12 bytes, the same class).
            String alternating = "dr".repeat(16);
            assertThat(choices.get(0)).matches("[dr]+");
            assertThat(choices.get(0).substring(0, 31)).as("the first probe").isEqualTo(alternating.substring(1));
            assertThat(choices.get(0).substring(63, 95)).as("the second probe").isEqualTo(alternating);
            assertThat(choices.get(0).substring(191, 223)).as("the third probe").isEqualTo(alternating);
        } else {
            assertThat(choices.get(0)).matches("r+");
        }
    }

    /** Large messages by cross-memory attach where the kernel allows it ({@code JCCL_SHM_LARGE=cma}). */
    @Test
    void mixedJobUsesShmWithinAHostAndTcpBetweenHosts() throws Exception {
        boolean cma = CrossMemory.check().usable();
        List<Jvm> ranks = job(4, r -> r < 2 ? "host-a" : "host-b", cma ? Map.of("JCCL_SHM_LARGE", "cma") : Map.of(),
                "mixed");
        assertThat(ranks.get(0).outputText()).contains("transport per peer [null, shm, tcp, tcp]");
        assertThat(ranks.get(1).outputText()).contains("transport per peer [shm, null, tcp, tcp]");
        assertThat(ranks.get(2).outputText()).contains("transport per peer [tcp, tcp, null, shm]");
        assertThat(ranks.get(3).outputText()).contains("transport per peer [tcp, tcp, shm, null]");
        String path = cma ? "by cross-memory attach (JCCL_SHM_LARGE=cma" : "by pipelined copy";
        assertThat(ranks.get(0).outputText()).contains("shm: messages over 16384 bytes " + path);
        for (Jvm rank : ranks) {
            assertThat(boxAllReduces(rank)).as("no box lines across hosts").isZero();
        }
    }

    /**
     * Calls that differ across JVMs on the box path fail on every rank, none waits: another count that still fits a
     * box line (the lines' tags differ), and one that does not (the odd rank runs another algorithm and announces it).
     */
    @Test
    void differentCallsOnTheBoxPathFailOnEveryRankNamingTheDifference() throws Exception {
        for (long oddCount : new long[] {2, 100}) {
            UniqueId id = UniqueId.create();
            List<Jvm> ranks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                ranks.add(JvmProcesses.start(ShmBoxMismatchMain.class, List.of(Integer.toString(r), "2",
                        Long.toString(oddCount)), Map.of("JCCL_TEST_UNIQUE_ID", id.encode(), "JCCL_NET", "shm"),
                        "shm-box-mismatch-" + oddCount + "-rank" + r, JvmProcesses.inheritedJvmOptions()));
            }
            boolean named = false;
            for (int r = 0; r < 2; r++) {
                Jvm jvm = ranks.get(r);
                assertThat(jvm.await(180)).as("rank %d exit code; output:%n%s", r, jvm.outputText()).isZero();
                assertThat(jvm.outputText()).as("odd count %d, rank %d", oddCount, r).contains("FAILED")
                        .doesNotContain("COMPLETED");
                named |= jvm.outputText().contains("FAILED INVALID_USAGE")
                        && jvm.outputText().contains("operations do not match across ranks")
                        && jvm.outputText().contains("allReduce(count=" + oddCount);
            }
            assertThat(named).as("a rank names the odd call (count %d)", oddCount).isTrue();
        }
    }

    /**
     * Out-of-place all-reduces of 512 KiB against 1 MiB across 2 JVMs (both on the single-copy path: recursive
     * doubling, each rank reading the other's input by cross-memory attach where allowed) fail on both ranks with
     * INVALID_USAGE naming both calls, none waits.
     */
    @Test
    void differentCallsOnTheSingleCopyPathFailOnEveryRank() throws Exception {
        UniqueId id = UniqueId.create();
        List<Jvm> ranks = new ArrayList<>();
        long oddCount = 2 * ShmBoxMismatchMain.OOP_COUNT;
        for (int r = 0; r < 2; r++) {
            ranks.add(JvmProcesses.start(ShmBoxMismatchMain.class, List.of(Integer.toString(r), "2",
                    Long.toString(oddCount), "oop"), Map.of("JCCL_TEST_UNIQUE_ID", id.encode(), "JCCL_NET", "shm"),
                    "shm-single-copy-mismatch-rank" + r, JvmProcesses.inheritedJvmOptions()));
        }
        for (int r = 0; r < 2; r++) {
            Jvm jvm = ranks.get(r);
            assertThat(jvm.await(180)).as("rank %d exit code; output:%n%s", r, jvm.outputText()).isZero();
            assertThat(jvm.outputText()).as("rank %d", r).contains("FAILED INVALID_USAGE")
                    .contains("operations do not match across ranks").contains("count=" + oddCount)
                    .doesNotContain("COMPLETED");
        }
    }

    /** A rank waiting in the box for a peer that is gone fails (the control plane notices), it does not wait. */
    @Test
    void aRankWaitingInTheBoxForAPeerThatDiedFails() throws Exception {
        UniqueId id = UniqueId.create();
        List<Jvm> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            ranks.add(JvmProcesses.start(ShmBoxMismatchMain.class, List.of(Integer.toString(r), "2", "0"),
                    Map.of("JCCL_TEST_UNIQUE_ID", id.encode(), "JCCL_NET", "shm"), "shm-box-death-rank" + r,
                    JvmProcesses.inheritedJvmOptions()));
        }
        Jvm waiting = ranks.get(0);
        assertThat(waiting.await(100)).as("the waiting rank's exit code; output:%n%s", waiting.outputText()).isZero();
        assertThat(waiting.outputText()).contains("FAILED REMOTE_ERROR").doesNotContain("COMPLETED");
        assertThat(ranks.get(1).await(60)).isZero();
    }

    /** @return the all-reduces the rank ran through the box lines ({@code SMALL wrong=<n> box=<m>}) */
    private static int boxAllReduces(Jvm rank) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("SMALL wrong=\\d+ box=(\\d+)")
                .matcher(rank.outputText());
        assertThat(m.find()).as("the small all-reduces' line in:%n%s", rank.outputText()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static List<Jvm> job(int size, IntFunction<String> hostOf, Map<String, String> extraEnv, String name)
            throws Exception {
        List<Jvm> ranks = ShmRankMain.startJob(size, COUNT, r -> {
            Map<String, String> env = new HashMap<>(extraEnv);
            env.put("JCCL_HOST_ID", hostOf.apply(r));
            return env;
        }, "shm-" + name + "-n" + size);
        for (int r = 0; r < size; r++) {
            assertThat(ShmRankMain.assertRankPassed(ranks.get(r), r, 180)).contains("SMALL wrong=0");
        }
        return ranks;
    }
}
