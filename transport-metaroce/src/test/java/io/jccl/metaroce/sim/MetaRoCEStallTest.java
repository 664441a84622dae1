package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Timers that tell a stalled host from a lost packet, on the simulated fabric: a node stalled for many round trips
 * (a descheduled process, a long GC pause) fails no path, re-routes nothing and breaks no connection, whether it is
 * the sender or the receiver; only silence on every path for the silence limit ({@code connectionDeadNs}) kills a
 * connection, whatever the number of timeouts. Every scenario checks every byte ({@link TransferScenario}); a failure
 * names its seed.
 */
class MetaRoCEStallTest {
    private static final int PATHS = 8;
    private static final long SENDER = TransferScenario.nodeId(0);
    private static final long RECEIVER = TransferScenario.nodeId(1);
    private static final long MS = 1_000_000;

    private static TransferScenario.Builder scenario(long seed) {
        return TransferScenario.builder(seed).protocol(Protocols.metaRoCE()).paths(PATHS);
    }

    /** The defaults with another silence limit. */
    private static EndpointConfig deadAfter(long deadNs) {
        byte[] key = new byte[32];
        EndpointConfig d = EndpointConfig.defaults(key);
        return new EndpointConfig(PATHS, d.payloadBytes(), d.initialWindowPackets(), d.rtoFloorNs(), d.rtoMaxNs(),
                d.ackEveryPackets(), d.delayedAckNs(), d.inboundBytesPerSecond(), d.failAfterRtos(),
                d.probeIntervalNs(), d.probesToReadmit(), deadNs, d.maxPendingWork(), d.rnrRetryNs(), key);
    }

    private static void assertNoPathTrouble(ScenarioResult r, int node) {
        assertThat(r.endpoint(node, Counter.PATHS_FAILED)).as(r.endpointSummaries()[node]).isZero();
        assertThat(r.endpoint(node, Counter.PATHS_REROUTED)).as(r.endpointSummaries()[node]).isZero();
        assertThat(r.endpoint(node, Counter.CONNECTIONS_CLOSED)).as(r.endpointSummaries()[node]).isZero();
    }

    @ParameterizedTest(name = "stalled {0} ms")
    @ValueSource(longs = {50, 100, 200})
    void aStalledSenderFailsNoPathAndItsTimeoutsWaitForTheAnswers(long stallMs) {
        // The sender is descheduled mid-transfer for 1000-4000 RTO floors; the ACKs it did not read are waiting.
        ScenarioResult r = scenario(300 + stallMs).setup(sim -> sim.stall(SENDER, 500_000, stallMs * MS))
                .write(0, 1, 16 << 20).write(1, 0, 1 << 20).build().run();
        assertNoPathTrouble(r, 0);
        assertNoPathTrouble(r, 1);
        assertThat(r.simulatedNs()).isGreaterThan(stallMs * MS);
        assertThat(r.endpoint(0, Counter.STALLS_DETECTED)).as(r.endpointSummaries()[0]).isEqualTo(1);
        assertThat(r.endpoint(0, Counter.RTO_DEFERRED_BY_STALL)).as(r.endpointSummaries()[0]).isPositive();
        assertThat(r.endpoint(0, Counter.RTO_FIRINGS)).as("timers that expired in the stall are not held against "
                + "the paths: %s", r.endpointSummaries()[0]).isZero();
    }

    @ParameterizedTest(name = "stalled {0} ms")
    @ValueSource(longs = {50, 100, 200})
    void aStalledReceiverLooksLikeSilenceOnEveryPathAndFailsNone(long stallMs) {
        // Every path of the sender times out together, again and again, with no ACK anywhere: not evidence against
        // any one path. They retransmit with backoff and carry on when the receiver runs again.
        ScenarioResult r = scenario(400 + stallMs).setup(sim -> sim.stall(RECEIVER, 500_000, stallMs * MS))
                .write(0, 1, 16 << 20).send(1, 0, 2, 100_000).build().run();
        assertNoPathTrouble(r, 0);
        assertNoPathTrouble(r, 1);
        assertThat(r.endpoint(0, Counter.RTO_FIRINGS)).as(r.endpointSummaries()[0])
                .isGreaterThan(EndpointConfig.defaults(new byte[32]).failAfterRtos() * PATHS);
        assertThat(r.endpoint(0, Counter.PATH_FAILURES_WITHHELD)).as(r.endpointSummaries()[0]).isEqualTo(PATHS);
    }

    @Test
    void aStarvedHostStallingBothEndsOverAndOverUnderLossLosesNoConnectionAndReroutesNothingInBulk() {
        long seed = 501;
        SplittableRandom random = new SplittableRandom(seed);
        long[][] stalls = new long[2][];
        for (int node = 0; node < 2; node++) {
            stalls[node] = new long[2 * 25];
            long t = 200_000;
            for (int i = 0; i < 25; i++) {
                t += random.nextLong(100_000, 5 * MS);
                long duration = random.nextLong(MS, 30 * MS);
                stalls[node][2 * i] = t;
                stalls[node][2 * i + 1] = duration;
                t += duration;
            }
        }
        ScenarioResult r = scenario(seed).impairments(Impairments.NONE.withLossRate(0.01)).setup(sim -> {
            for (int node = 0; node < 2; node++) {
                for (int i = 0; i < stalls[node].length; i += 2) {
                    sim.stall(TransferScenario.nodeId(node), stalls[node][i], stalls[node][i + 1]);
                }
            }
        }).write(0, 1, 64 << 20).write(1, 0, 32 << 20).randomWork(20, 200_000, 3).build().run();
        for (int node = 0; node < 2; node++) {
            String counters = r.endpointSummaries()[node];
            assertThat(r.endpoint(node, Counter.CONNECTIONS_CLOSED)).as(counters).isZero();
            assertThat(r.endpoint(node, Counter.PATHS_REROUTED_SILENT)).as(counters).isZero();
            assertThat(r.endpoint(node, Counter.STALLS_DETECTED)).as(counters).isPositive();
            assertThat(r.endpoint(node, Counter.PATH_FAILURES_WITHHELD)).as(counters).isPositive();
            // Loss may still fail a path now and then (both test packets of a suspect path lost while its siblings
            // answer), but never the paths of a connection together.
            assertThat(r.endpoint(node, Counter.PATHS_FAILED)).as(counters).isLessThan(PATHS / 2);
        }
    }

    @Test
    void aDriverThatIsAlwaysLateStillRetransmitsOnTimeout() {
        // The sender runs 10 us in every 200 us for 200 ms (a caller that polls rarely): nearly every timer is late.
        // A stall restarts a path's timer once; the next expiry fires however late, so losses are still repaired
        // while the sender keeps being late, not only once it runs normally again.
        long fromNs = 300_000;
        long untilNs = 200 * MS;
        TransferScenario.Builder b = scenario(1001).impairments(Impairments.NONE.withLossRate(0.05)).setup(sim -> {
            for (long t = fromNs; t < untilNs; t += 200_000) {
                sim.stall(SENDER, t, 190_000);
            }
        });
        for (int i = 0; i < 40; i++) {
            b.write(0, 1, 64 << 10, MS + i * 2 * MS);   // 16 packets each, one every 2 ms: tail losses need timeouts
        }
        ScenarioResult r = b.build().run();
        String counters = r.endpointSummaries()[0];
        assertThat(r.endpoint(0, Counter.RTO_DEFERRED_BY_STALL)).as(counters).isPositive();
        assertThat(r.endpoint(0, Counter.RTO_FIRINGS)).as(counters).isPositive();
        assertThat(r.simulatedNs()).as(counters).isLessThan(untilNs);
    }

    @Test
    void everyPathDownForLessThanTheSilenceLimitManyTimeoutsLongTheConnectionLives() {
        long deadNs = 100 * MS;
        long downFromNs = 300_000;
        long downNs = 80 * MS;
        ScenarioResult r = scenario(601).endpointConfig(deadAfter(deadNs))
                .setup(sim -> sim.fabric().allPathsDown(SENDER, RECEIVER, downFromNs, downFromNs + downNs))
                .write(0, 1, 16 << 20).send(1, 0, 3, 50_000).build().run();
        String counters = r.endpointSummaries()[0];
        assertThat(r.endpoint(0, Counter.CONNECTIONS_CLOSED)).as(counters).isZero();
        assertThat(r.endpoint(0, Counter.RTO_FIRINGS)).as(counters).isGreaterThan(5L * PATHS);
        // A quarter of the silence limit without answers: one path at a time moves to a new route (every rtoMaxNs),
        // looking for one that works; never all of them at once.
        long scouts = r.endpoint(0, Counter.PATHS_REROUTED_SILENT);
        assertThat(scouts).as(counters).isBetween(1L, (downNs - deadNs / 4) / EndpointConfig.defaults(new byte[32])
                .rtoMaxNs() + 1);
        assertThat(r.endpoint(0, Counter.PATHS_REROUTED)).as(counters).isEqualTo(scouts);
        assertThat(r.simulatedNs()).isGreaterThan(downFromNs + downNs);
    }

    @Test
    void everyPathDownForLongerThanTheSilenceLimitKillsTheConnectionThen() {
        long deadNs = 100 * MS;
        long downFromNs = 500_000;   // mid-transfer
        Outcome o = transferThroughOutage(deadNs, downFromNs, Long.MAX_VALUE);
        assertThat(o.status).containsValue(CompletionStatus.CONNECTION_CLOSED);
        assertThat(o.closeCause).contains("nothing received from the peer on any path for 100 ms")
                .contains("JCCL_METAROCE_DEAD_MS");
        assertThat(o.sender.counters().get(Counter.CONNECTIONS_DEAD)).isEqualTo(1);
        // By time, not by a count of timeouts: dozens of them passed first.
        assertThat(o.sender.counters().get(Counter.RTO_FIRINGS)).isGreaterThan(5L * PATHS);
        // From the first packet left unanswered, which went out just before the outage began.
        assertThat(o.closedAtNs).isBetween(downFromNs + deadNs - MS, downFromNs + deadNs + MS);
    }

    @Test
    void theSilenceLimitDoesNotCountTimeTheHostItselfWasStalled() {
        // The sender is stalled for two and a half silence limits: it heard nothing, but it listened to nothing
        // either (only the first rtoMaxNs of a stall counts, so that a driver that is merely slow cannot put the limit
        // off for ever).
        ScenarioResult r = scenario(701).endpointConfig(deadAfter(400 * MS))
                .setup(sim -> sim.stall(SENDER, 500_000, 1000 * MS)).write(0, 1, 16 << 20).build().run();
        assertNoPathTrouble(r, 0);
        assertThat(r.endpoint(0, Counter.STALLS_DETECTED)).as(r.endpointSummaries()[0]).isEqualTo(1);
    }

    @Test
    void whenEveryRouteInUseBreaksScoutsFindNewOnesBeforeTheSilenceLimit() {
        // Each path's current route from the sender black-holed for good: no sibling can ever give evidence, so only
        // the scouts (one re-route per rtoMaxNs after a quarter of the silence limit) get the transfer through. (In
        // the simulator a re-route moves the re-routing side's direction only: the receiver's are left alone.)
        long deadNs = 400 * MS;
        ScenarioResult r = scenario(801).endpointConfig(deadAfter(deadNs)).setup(sim -> {
            for (int p = 0; p < PATHS; p++) {
                sim.fabric().blackHolePath(SENDER, RECEIVER, p, 300_000, Long.MAX_VALUE);
            }
        }).write(0, 1, 16 << 20).build().run();
        String counters = r.endpointSummaries()[0];
        assertThat(r.endpoint(0, Counter.PATHS_REROUTED_SILENT)).as(counters).isPositive();
        assertThat(r.endpoint(0, Counter.PATHS_READMITTED)).as(counters).isPositive();
        assertThat(r.endpoint(0, Counter.CONNECTIONS_CLOSED)).as(counters).isZero();
        assertThat(r.simulatedNs()).isBetween(deadNs / 4, deadNs);
    }

    private record Outcome(Endpoint sender, Map<Long, CompletionStatus> status, String closeCause, long closedAtNs) {
    }

    /** A WRITE from SENDER to RECEIVER with every route between them down during [from, until). */
    private static Outcome transferThroughOutage(long deadNs, long downFromNs, long downUntilNs) {
        EndpointConfig config = deadAfter(deadNs);
        Simulator sim = new Simulator(FabricConfig.datacenter(), 901);
        Endpoint a = new Endpoint(config, new SplittableRandom(1));
        Endpoint b = new Endpoint(config, new SplittableRandom(2));
        sim.addNode(SENDER, a);
        sim.addNode(RECEIVER, b);
        sim.fabric().allPathsDown(SENDER, RECEIVER, downFromNs, downUntilNs);
        int conn = a.connect(0, RECEIVER);
        sim.wake(SENDER);
        sim.run(() -> a.isEstablished(conn) && b.connectionTo(SENDER) >= 0, Long.MAX_VALUE, Long.MAX_VALUE);
        MemorySegment data = MemorySegment.ofArray(new byte[16 << 20]);
        int key = b.registerRegion(MemorySegment.ofArray(new byte[(int) data.byteSize()]), true);
        long write = a.postWrite(conn, key, 0, data, 0, data.byteSize());
        sim.wake(SENDER);
        Map<Long, CompletionStatus> done = new HashMap<>();
        sim.run(() -> {
            a.pollCompletions((c, id, kind, status, bytes) -> done.put(id, status));
            return done.containsKey(write);
        }, Long.MAX_VALUE, 10_000 * MS);
        return new Outcome(a, done, a.connection(conn).closeCause(), sim.nowNs());
    }
}
