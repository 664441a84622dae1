package io.jccl.metaroce.net;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.bootstrap.NetworkInterfaces;
import io.jccl.metaroce.fabric.ImpairmentProxy;
import io.jccl.metaroce.fabric.ProxyConfig;
import io.jccl.metaroce.fabric.RelayCounters;
import io.jccl.metaroce.impair.Impairments;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real JVMs running every collective over the {@code metaroce} transport with every datagram through one
 * {@link ImpairmentProxy} in the test's JVM ({@code JCCL_METAROCE_RELAY}): 1% loss, duplicates, reordering and
 * corruption, every element still exact, and the proxy's counters show the traffic crossed it and was impaired.
 */
@Tag("integration")
class MetaRoceRelayMultiProcessTest {
    /** Each flow, each way: 1% lost, 1% duplicated, 1% held back past 10 later datagrams, 0.5% with a bit flipped. */
    static final Impairments ROUGH = Impairments.NONE.withLossRate(0.01).withDuplicateRate(0.01)
            .withReorder(0.01, 10, 100_000).withCorruptRate(0.005);

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {2, 3, 4})
    void everyCollectiveIsExactThroughAnImpairingProxy(int processes) throws Exception {
        Map<String, String> env = ipv4();
        try (ImpairmentProxy proxy = new ImpairmentProxy(ProxyConfig.defaults(bindAddress(env))
                .withSeed(1000 + processes).withImpairments(ROUGH))) {
            proxy.start();
            env.put(MetaRoceOptions.RELAY, relayOption(proxy));
            List<Jvm> ranks = MetaRoceMultiProcessTest.start("metaroce-relay-np" + processes, processes, 300_007,
                    env, List.of(), JvmProcesses.inheritedJvmOptions());
            long retransmits = 0;
            int[] exits = new int[processes];
            StringBuilder outputs = new StringBuilder();
            for (int r = 0; r < processes; r++) {
                exits[r] = ranks.get(r).await(300);
                outputs.append(String.format("%n--- rank %d (exit %d):%n%s", r, exits[r], ranks.get(r).outputText()));
            }
            for (int r = 0; r < processes; r++) {
                // Every rank's output on any failure: a stall names the rank waited for, whose own output says why.
                assertThat(exits[r]).as("rank %d exit code; proxy %s; outputs:%s", r, proxy.counters(), outputs)
                        .isZero();
                String out = ranks.get(r).outputText();
                assertThat(out).contains("RESULT OK").contains("ALL_TO_ALLV FLOAT32").contains("P2P FLOAT32")
                        .contains("BARRIER ok").doesNotContain("wrong=1");
                retransmits += sum(out, "RETRANSMITS_SACK") + sum(out, "RETRANSMITS_RTO");
            }
            String counters = proxy.counters();
            assertThat(proxy.counter(RelayCounters.ENDPOINTS)).as(counters).isGreaterThanOrEqualTo(processes);
            // every pair's initiator opens a flow per path at its peer's fronts, each way round
            assertThat(proxy.counter(RelayCounters.FLOWS_OPENED)).as(counters)
                    .isGreaterThanOrEqualTo((long) processes * (processes - 1) * 8);
            assertThat(proxy.counter(RelayCounters.FORWARDED)).as(counters).isGreaterThan(1000);
            assertThat(proxy.counter(RelayCounters.DROPPED_LOSS)).as(counters).isPositive();
            assertThat(proxy.counter(RelayCounters.CORRUPTED)).as(counters).isPositive();
            assertThat(proxy.counter(RelayCounters.DUPLICATED)).as(counters).isPositive();
            assertThat(proxy.counter(RelayCounters.REORDERED)).as(counters).isPositive();
            assertThat(retransmits).as("the ranks' retransmissions; proxy %s", counters).isPositive();
        }
    }

    /** @return this JVM's environment with IPv4 asked for (the proxy carries IPv4 only) and 8 KiB payloads */
    static Map<String, String> ipv4() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putIfAbsent(NetworkInterfaces.FAMILY_VARIABLE, "AF_INET");
        // Ethernet-jumbo-sized packets, as across a real fabric (the relay on this host would give loopback's 65000):
        // more datagrams, so more of them are impaired, and the counts below are sized for them.
        env.put(MetaRoceOptions.PAYLOAD_BYTES, "8192");
        return env;
    }

    /** @return the address the ranks bind to with {@code env}: the proxy binds there too */
    static InetAddress bindAddress(Map<String, String> env) {
        return NetworkInterfaces.select(env);
    }

    /** @return the proxy's control address as {@code JCCL_METAROCE_RELAY} takes it */
    static String relayOption(ImpairmentProxy proxy) {
        return proxy.controlAddress().getAddress().getHostAddress() + ":" + proxy.controlAddress().getPort();
    }

    /** @return the sum of every {@code name=N} in a rank's output (its COUNTERS lines) */
    static long sum(String output, String name) {
        Matcher m = Pattern.compile("\\b" + name + "=(\\d+)").matcher(output);
        long total = 0;
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }
}
