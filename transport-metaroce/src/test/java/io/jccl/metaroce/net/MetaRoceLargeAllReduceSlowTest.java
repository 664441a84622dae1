package io.jccl.metaroce.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.metaroce.fabric.ImpairmentProxy;
import io.jccl.metaroce.fabric.ProxyConfig;
import io.jccl.metaroce.fabric.RelayCounters;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Slow-ish (tens of seconds each): large fp32 all-reduces between two real JVMs over the {@code metaroce} transport,
 * every element checked. One loses a path for good in the middle of 256 MiB and must re-route around it; the other
 * moves 1 GiB with a heap of 256 MiB, so neither the collectives nor the transport may stage the message, or a
 * rank's half of it, on the heap.
 */
@Tag("integration")
class MetaRoceLargeAllReduceSlowTest {
    /** 64 Mi floats: 256 MiB. */
    private static final long ELEMENTS_256_MIB = 64L << 20;
    /** 256 Mi floats: 1 GiB. */
    private static final long ELEMENTS_1_GIB = 256L << 20;
    /** The black hole opens once the proxy has forwarded this many datagrams: well into the all-reduce. */
    private static final long HOLE_AFTER_DATAGRAMS = 8_000;
    private static final int BLACK_HOLED_PATH = 3;

    /**
     * Two ranks with 8 paths each, every datagram through a proxy that does nothing but forward, until path 3 is
     * black-holed for good (both ways of every flow on it) while the all-reduce runs: the senders must see the path
     * fail and re-route it (a new source port, so a new flow the hole does not cover), and the result stays exact.
     */
    @Test
    void onePathOfEightBlackHoledDuringA256MiBAllReduceIsReroutedAroundAndTheResultIsExact() throws Exception {
        Map<String, String> env = MetaRoceRelayMultiProcessTest.ipv4();
        env.put(MetaRoceOptions.PATHS, "8");
        try (ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(
                MetaRoceRelayMultiProcessTest.bindAddress(env)).withSeed(7))) {
            proxy.start();
            env.put(MetaRoceOptions.RELAY, MetaRoceRelayMultiProcessTest.relayOption(proxy));
            List<Jvm> ranks = MetaRoceMultiProcessTest.start("metaroce-blackhole", 2, ELEMENTS_256_MIB, env,
                    List.of("allreduce-only"), JvmProcesses.inheritedJvmOptions());
            long deadline = System.nanoTime() + 240_000_000_000L;
            while (proxy.counter(RelayCounters.FORWARDED) < HOLE_AFTER_DATAGRAMS && ranks.stream()
                    .allMatch(j -> j.process().isAlive()) && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            long forwardedAtHole = proxy.counter(RelayCounters.FORWARDED);
            long now = System.nanoTime();
            proxy.blackHolePath(BLACK_HOLED_PATH, now, now + 3_600_000_000_000L);   // for good
            List<String> outputs = awaitAll(ranks, proxy);
            String counters = proxy.counters();
            assertThat(forwardedAtHole).as("the hole opened while the all-reduce ran; proxy %s", counters)
                    .isGreaterThanOrEqualTo(HOLE_AFTER_DATAGRAMS);
            assertThat(proxy.counter(RelayCounters.FORWARDED)).as("traffic after the hole opened; proxy %s", counters)
                    .isGreaterThan(forwardedAtHole + 10_000);
            assertThat(proxy.counter(RelayCounters.DROPPED_BLACK_HOLE)).as(counters).isPositive();
            long rerouted = 0;
            long rebound = 0;
            for (String out : outputs) {
                rerouted += MetaRoceRelayMultiProcessTest.sum(out, "PATHS_REROUTED");
                rebound += MetaRoceRelayMultiProcessTest.sum(out, "socketsRebound");
            }
            assertThat(rerouted).as("paths re-routed; proxy %s; outputs %s", counters, outputs).isPositive();
            assertThat(rebound).as("sockets rebound; proxy %s; outputs %s", counters, outputs).isPositive();
        }
    }

    /** 1 GiB each way between two ranks whose heaps are 256 MiB: the data lives off-heap only. */
    @Test
    void aOneGiBAllReduceRunsWithA256MiBHeap() throws Exception {
        List<String> jvmOptions = new ArrayList<>(JvmProcesses.inheritedJvmOptions());
        jvmOptions.add("-Xmx256m");
        List<Jvm> ranks = MetaRoceMultiProcessTest.start("metaroce-1gib-xmx256m", 2, ELEMENTS_1_GIB, Map.of(),
                List.of("allreduce-only"), jvmOptions);
        awaitAll(ranks, null);
    }

    /**
     * Waits for every rank, checks it exited 0 with an exact result, and returns their outputs; on a failure the
     * ranks still running are killed.
     */
    private static List<String> awaitAll(List<Jvm> ranks, ImpairmentProxy proxy) throws InterruptedException {
        List<String> outputs = new ArrayList<>();
        try {
            for (int r = 0; r < ranks.size(); r++) {
                Jvm jvm = ranks.get(r);
                int code = jvm.await(240);
                String out = jvm.outputText();
                assertThat(code).as("rank %d exit code; proxy %s; output:%n%s", r,
                        proxy == null ? "-" : proxy.counters(), out).isZero();
                assertThat(out).contains("ALL_REDUCE FLOAT32 count=").contains("wrong=0").contains("RESULT OK");
                outputs.add(out);
            }
        } finally {
            for (Jvm jvm : ranks) {
                jvm.process().destroyForcibly();
            }
        }
        return outputs;
    }
}
