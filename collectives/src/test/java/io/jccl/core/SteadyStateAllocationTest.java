package io.jccl.core;

import org.junit.jupiter.api.Tag;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The data path — executor threads running cached plans over the transports — allocates nothing per operation
 * once warm. Measured with the JVM's per-thread allocation counters (bytes, not time) in a fresh JVM, as an
 * application runs: inside this test JVM, thousands of other tests have fed the same kernels every kind of
 * segment, and the JIT's code for such polluted profiles is not what an application gets.
 */
@Tag("integration")
class SteadyStateAllocationTest {
    @ParameterizedTest
    @ValueSource(strings = {"local", "tcp"})
    void executorThreadsAllocateNothingPerAllReduce(String transport) throws Exception {
        measure(transport, List.of(transport), Map.of(), "allocation-" + transport);
    }

    /**
     * Over TCP connections of four sockets, nothing is allocated either: recursive doubling exchanges the whole
     * 16 KiB buffer, which 4 KiB stripes split across all four.
     */
    @org.junit.jupiter.api.Test
    void executorThreadsAllocateNothingPerAllReduceOverFourSocketTcp() throws Exception {
        measure("tcp with 4 sockets", List.of("tcp"), Map.of("JCCL_SOCKET_NSOCKS", "4",
                "JCCL_SOCKET_MIN_STRIPE_BYTES", "4096", "JCCL_ALGO", "rd"), "allocation-tcp-4-sockets");
    }

    /** With JcclMetrics bound, the timer and counter updates on the executor thread allocate nothing either. */
    @org.junit.jupiter.api.Test
    void executorThreadsAllocateNothingPerAllReduceWithMetricsBound() throws Exception {
        measure("local", List.of("local", "metrics"), Map.of(), "allocation-local-metrics");
    }

    /**
     * Over shm, each rank a JVM of its own: the communicator's progress (its executor thread and the steps the waiting
     * caller drives) allocates nothing per iteration of an all-gather of 8 floats and one of 64 KiB a rank, with
     * ordinary buffers (single copy as {@code JCCL_SHM_LARGE=auto} chooses) and with buffers from
     * {@code Communicator.allocate} (single copy out of the sender's registered memory).
     */
    @ParameterizedTest
    @ValueSource(strings = {"ordinary", "registered"})
    void progressAllocatesNothingPerAllGatherOverShm(String buffers) throws Exception {
        io.jccl.UniqueId id = io.jccl.UniqueId.create();
        List<String> options = new java.util.ArrayList<>(JvmProcesses.inheritedJvmOptions());
        options.add("-Djccl.test.countCallerAllocation=true");   // callers drive: count their steps too
        List<Jvm> ranks = new java.util.ArrayList<>();
        for (int r = 0; r < 2; r++) {
            ranks.add(JvmProcesses.start(ShmSteadyStateAllocationMain.class, List.of(Integer.toString(r), "2", buffers),
                    Map.of("JCCL_TEST_UNIQUE_ID", id.encode(), "JCCL_NET", "shm"),
                    "allocation-shm-" + buffers + "-rank" + r, options));
        }
        for (Jvm jvm : ranks) {
            assertThat(jvm.await(600)).as("exit code; output:%n%s", jvm.outputText()).isZero();
            Matcher m = Pattern.compile("BYTES_PER_OP (\\d+)").matcher(jvm.outputText());
            if (!m.find()) {
                fail("no measurement in the output:%n%s", jvm.outputText());
            }
            assertThat(Long.parseLong(m.group(1)))
                    .as("bytes allocated per iteration by the communicator's progress over shm (%s buffers)", buffers)
                    .isLessThan(8);
        }
    }

    /**
     * The calling thread of a blocking small all-reduce, each rank a JVM of its own: the call, its future and the
     * steps it drives allocate nothing — the operation runs at once on the thread that issues it and returns the
     * shared completed future — but for the calls it hands over unfinished (a peer descheduled for longer than the
     * inline spin), each of which gets a future of its own (at most {@value #HAND_OVER_BYTES} bytes with what a
     * blocking wait for it allocates). A loaded machine hands more over; the allowance follows the count.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void callerAllocatesNothingPerBlockingSmallAllReduce(String transport) throws Exception {
        io.jccl.UniqueId id = io.jccl.UniqueId.create();
        List<Jvm> ranks = new java.util.ArrayList<>();
        for (int r = 0; r < 2; r++) {
            ranks.add(JvmProcesses.start(CallerAllocationMain.class, List.of(Integer.toString(r), "2"),
                    Map.of("JCCL_TEST_UNIQUE_ID", id.encode(), "JCCL_NET", transport),
                    "caller-allocation-" + transport + "-rank" + r, JvmProcesses.inheritedJvmOptions()));
        }
        for (Jvm jvm : ranks) {
            assertThat(jvm.await(600)).as("exit code; output:%n%s", jvm.outputText()).isZero();
            Matcher m = Pattern.compile("CALLER_BYTES (\\d+) CALLS (\\d+) HAND_OVERS (\\d+)")
                    .matcher(jvm.outputText());
            if (!m.find()) {
                fail("no measurement in the output:%n%s", jvm.outputText());
            }
            long bytes = Long.parseLong(m.group(1));
            long calls = Long.parseLong(m.group(2));
            long handOvers = Long.parseLong(m.group(3));
            assertThat(handOvers).as("calls handed over unfinished, of %d (%s)", calls, jvm.outputText())
                    .isLessThan(calls / 2);
            assertThat((bytes - handOvers * HAND_OVER_BYTES) / calls)
                    .as("bytes the calling thread allocated per blocking 8-byte all-reduce over %s, beyond its %d "
                            + "hand-overs: %d bytes in %d calls", transport, handOvers, bytes, calls)
                    .isLessThan(8);
        }
    }

    /** The most a call handed over unfinished allocates: its future, and what blocking for it may add. */
    static final long HAND_OVER_BYTES = 512;

    private static void measure(String transport, List<String> args, Map<String, String> env, String name)
            throws Exception {
        List<String> options = new java.util.ArrayList<>(JvmProcesses.inheritedJvmOptions());
        options.add("-Djccl.test.countCallerAllocation=true");   // callers drive: count their steps too
        Jvm jvm = JvmProcesses.start(SteadyStateAllocationMain.class, args, env, name, options);
        assertThat(jvm.await(240)).as("exit code; output:%n%s", jvm.outputText()).isZero();
        Matcher m = Pattern.compile("BYTES_PER_OP (\\d+)").matcher(jvm.outputText());
        if (!m.find()) {
            fail("no measurement in the output:%n%s", jvm.outputText());
        }
        assertThat(Long.parseLong(m.group(1)))
                .as("bytes allocated per all-reduce by the communicators' progress (executor threads and the steps callers "
                        + "drove) over %s", transport).isLessThan(8);
    }
}
