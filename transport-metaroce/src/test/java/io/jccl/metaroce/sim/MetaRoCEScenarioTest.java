package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.wire.Crc32c;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MetaRoCE, 8 paths per connection, on the simulated fabric under the impairments the protocol exists for. Every
 * scenario checks every byte, completion order and the memory around every target ({@link TransferScenario}); a
 * failure names its seed, and the same seed replays it.
 */
class MetaRoCEScenarioTest {
    private static final int PATHS = 8;
    private static final long SENDER = TransferScenario.nodeId(0);
    private static final long RECEIVER = TransferScenario.nodeId(1);

    private static TransferScenario.Builder scenario(long seed) {
        return TransferScenario.builder(seed).protocol(Protocols.metaRoCE()).paths(PATHS);
    }

    /** @return a run of a 4 MiB WRITE among random work, under {@code impairments} */
    private static ScenarioResult impaired(long seed, Impairments impairments) {
        return scenario(seed).impairments(impairments).write(0, 1, 4 << 20).randomWork(20, 60_000, 3).build().run();
    }

    @ParameterizedTest(name = "loss {0}")
    @ValueSource(doubles = {0, 0.001, 0.01, 0.05, 0.10, 0.30})
    void randomLoss(double loss) {
        ScenarioResult r = scenario(Math.round(loss * 1000) + 100).nodes(3)
                .impairments(Impairments.NONE.withLossRate(loss))
                .write(0, 1, 2 << 20).write(1, 0, 1 << 20).randomWork(20, 60_000, 3).build().run();
        if (loss == 0) {
            assertThat(r.retransmits()).as(r.summary()).isZero();
        } else {
            assertThat(r.fabric(FabricCounter.DROPPED_RANDOM_LOSS)).as(r.summary()).isPositive();
            if (loss >= 0.01) {   // at 0.1% the one or two drops may be ACKs, or packets a not-ready receiver discarded
                assertThat(r.retransmits()).as(r.summary()).isPositive();
            }
        }
    }

    @Test
    void burstyLoss() {
        ScenarioResult r = impaired(201, Impairments.NONE.withBurstLoss(0.01, 0.2, 0.9));
        assertThat(r.fabric(FabricCounter.DROPPED_BURST_LOSS)).as(r.summary()).isPositive();
    }

    @Test
    void reorderingByTenAndMorePacketsIsNotLoss() {
        ScenarioResult r = impaired(202, Impairments.NONE.withReorder(0.05, 16, 200_000));
        assertThat(r.fabric(FabricCounter.REORDERED)).as(r.summary()).isPositive();
    }

    @Test
    void duplicatesArePlacedOnce() {
        ScenarioResult r = impaired(203, Impairments.NONE.withDuplicateRate(0.05));
        assertThat(r.fabric(FabricCounter.DUPLICATED)).as(r.summary()).isPositive();
        assertThat(r.endpoint(1, Counter.DUPLICATE_PACKETS_RECEIVED)).as(r.summary()).isPositive();
    }

    @Test
    void corruptedPacketsAreDroppedByTheCrcAndResent() {
        ScenarioResult r = impaired(204, Impairments.NONE.withCorruptRate(0.01));
        assertThat(r.fabric(FabricCounter.CORRUPTED)).as(r.summary()).isPositive();
        assertThat(r.endpointDrops(1, DropReason.BAD_CRC)).as(r.summary()).isPositive();
    }

    @Test
    void oneOfEightPathsBlackHoledMidTransferFailsIsReroutedAndReadmitted() {
        long[] deliveredOnPath3AfterRestore = new long[1];
        long restoredNs = 2_000_000;
        ScenarioResult r = scenario(205).setup(sim -> {
            sim.fabric().blackHolePath(SENDER, RECEIVER, 3, 300_000, restoredNs);
            sim.fabric().blackHolePath(RECEIVER, SENDER, 3, 300_000, restoredNs);
        }).observeDeliveries((nowNs, source, destination, path, length) -> {
            if (source == SENDER && path == 3 && nowNs > restoredNs) {
                deliveredOnPath3AfterRestore[0]++;
            }
        }).write(0, 1, 64 << 20).build().run();
        assertThat(r.fabric(FabricCounter.DROPPED_BLACK_HOLE)).as(r.summary()).isPositive();
        assertThat(r.endpoint(0, Counter.PATHS_FAILED)).as(r.endpointSummaries()[0]).isGreaterThanOrEqualTo(1);
        assertThat(r.endpoint(0, Counter.PATHS_REROUTED)).as(r.endpointSummaries()[0]).isGreaterThanOrEqualTo(1);
        assertThat(r.endpoint(0, Counter.PATHS_READMITTED)).as(r.endpointSummaries()[0]).isGreaterThanOrEqualTo(1);
        assertThat(deliveredOnPath3AfterRestore[0]).as("path 3 carries data again").isPositive();
    }

    @Test
    void everyPathDownForFiveTimeoutsThenRestoredTheTransferCompletesAndNoPathFails() {
        // The timeout is 50-200 us here (floor 50 us, SRTT + 4 RTTVAR under queueing): 1.5 ms is at least 5 of them.
        long downNs = 1_500_000;
        ScenarioResult r = scenario(206).setup(sim -> sim.fabric().allPathsDown(SENDER, RECEIVER, 200_000,
                200_000 + downNs)).write(0, 1, 8 << 20).send(1, 0, 2, 100_000).build().run();
        assertThat(r.fabric(FabricCounter.DROPPED_ALL_PATHS_DOWN)).as(r.summary()).isPositive();
        assertThat(r.endpoint(0, Counter.RTO_FIRINGS)).as(r.endpointSummaries()[0]).isGreaterThanOrEqualTo(5);
        // Every path silent at once is no evidence against any one of them: they retransmit with backoff, none fails.
        assertThat(r.endpoint(0, Counter.PATHS_FAILED)).as(r.endpointSummaries()[0]).isZero();
        assertThat(r.endpoint(0, Counter.PATH_FAILURES_WITHHELD)).as(r.endpointSummaries()[0]).isEqualTo(PATHS);
        assertThat(r.simulatedNs()).isGreaterThan(200_000 + downNs);
    }

    @Test
    void sixteenToOneIncastConvergesToFairSharesWithoutStarvation() {
        int senders = 16;
        FabricConfig fabric = FabricConfig.datacenter();
        int payload = EndpointConfig.defaults(new byte[32]).payloadBytes();
        int datagram = payload + DataFlyweight.DATA_HEADER_LENGTH + Crc32c.LENGTH;
        long rttNs = fabric.baseRttNs(datagram, 128);
        long[] ids = new long[senders];
        for (int i = 0; i < senders; i++) {
            ids[i] = TransferScenario.nodeId(i + 1);
        }
        RateMonitor monitor = new RateMonitor(TransferScenario.nodeId(0), ids, rttNs);
        EndpointConfig config = EndpointConfig.defaults(new byte[32]).withInboundBytesPerSecond(
                fabric.destinationGoodputBytesPerSecond(datagram) * payload / datagram);
        TransferScenario.Builder b = scenario(207).nodes(senders + 1).endpointConfig(config).fabric(fabric)
                .gapBytes(0).observeDeliveries(monitor);
        for (int i = 1; i <= senders; i++) {
            b.write(i, 0, 2 << 20);
        }
        ScenarioResult r = b.build().run();
        long firstDone = Long.MAX_VALUE;
        for (long doneNs : r.completionNs()) {
            firstDone = Math.min(firstDone, doneNs);
        }
        // No starvation: every sender is delivering from early on, and none finishes much later than the others.
        for (int s = 0; s < senders; s++) {
            assertThat(monitor.firstDeliveryNs(s)).as("sender %d first delivery", s).isLessThan(20 * rttNs);
        }
        assertThat(r.simulatedNs()).as("last vs first completion").isLessThan(firstDone + firstDone / 5);
        IncastAnalysis.Stats st = IncastAnalysis.analyze(monitor, 12, firstDone, 0.10, 3);
        assertThat(st.convergenceRtts()).as("%s", st).isBetween(0L, 150L);
        assertThat(st.jainIndex()).as("%s", st).isGreaterThan(0.99);
    }

    @Test
    void aSendWaitingForItsReceiveDoesNotFailHealthyPaths() {
        // The receive comes 2 ms late (40 RTO floors): the receiver discards the SEND's packets and answers RNR; the
        // sender takes them off its paths' books instead of timing the paths out.
        ScenarioResult r = scenario(208).send(0, 1, 3, 1 << 20, 0, 2_000_000).write(0, 1, 1 << 20).build().run();
        assertThat(r.endpoint(0, Counter.RNR_RECEIVED)).as(r.endpointSummaries()[0]).isPositive();
        assertThat(r.endpoint(0, Counter.PATHS_FAILED)).as(r.endpointSummaries()[0]).isZero();
        assertThat(r.simulatedNs()).isGreaterThan(2_000_000);
    }

    @Test
    void aConnectionThatDiesTellsItsPeerSoPendingReceivesComplete() {
        byte[] key = new byte[32];
        EndpointConfig d = EndpointConfig.defaults(key);
        EndpointConfig config = new EndpointConfig(d.paths(), d.payloadBytes(), d.initialWindowPackets(),
                d.rtoFloorNs(), d.rtoMaxNs(), d.ackEveryPackets(), d.delayedAckNs(), d.inboundBytesPerSecond(),
                d.failAfterRtos(), d.probeIntervalNs(), d.probesToReadmit(), 5_000_000, d.maxPendingWork(),
                d.rnrRetryNs(), key);   // dead after 5 ms without a usable path
        Simulator sim = new Simulator(FabricConfig.datacenter(), 9);
        io.jccl.metaroce.protocol.Endpoint a = new io.jccl.metaroce.protocol.Endpoint(config,
                new java.util.SplittableRandom(1));
        io.jccl.metaroce.protocol.Endpoint b = new io.jccl.metaroce.protocol.Endpoint(config,
                new java.util.SplittableRandom(2));
        sim.addNode(SENDER, a);
        sim.addNode(RECEIVER, b);
        int conn = a.connect(0, RECEIVER);
        sim.wake(SENDER);
        sim.run(() -> b.connectionTo(SENDER) >= 0 && a.isEstablished(conn), Long.MAX_VALUE, Long.MAX_VALUE);
        // From now on nothing comes back from the receiver: the sender hears no ACK on any path, ever.
        for (int route = 0; route < FabricConfig.datacenter().routesPerPair(); route++) {
            sim.fabric().blackHole(RECEIVER, SENDER, route, sim.nowNs(), Long.MAX_VALUE);
        }
        MemorySegment data = MemorySegment.ofArray(new byte[64 << 10]);
        int key0 = b.registerRegion(MemorySegment.ofArray(new byte[64 << 10]), true);
        long recv = b.postRecv(b.connectionTo(SENDER), 1, MemorySegment.ofArray(new byte[100]), 0, 100);
        long write = a.postWrite(conn, key0, 0, data, 0, data.byteSize());
        sim.wake(SENDER);
        java.util.Map<Long, io.jccl.metaroce.protocol.CompletionStatus> doneA = new java.util.HashMap<>();
        java.util.Map<Long, io.jccl.metaroce.protocol.CompletionStatus> doneB = new java.util.HashMap<>();
        sim.run(() -> {
            a.pollCompletions((c, id, kind, status, bytes) -> doneA.put(id, status));
            b.pollCompletions((c, id, kind, status, bytes) -> doneB.put(id, status));
            return doneA.size() + doneB.size() == 2;
        }, Long.MAX_VALUE, 1_000_000_000L);
        assertThat(doneA).containsExactly(java.util.Map.entry(write,
                io.jccl.metaroce.protocol.CompletionStatus.CONNECTION_CLOSED));
        assertThat(doneB).as("the receiver heard the CLOSE").containsExactly(java.util.Map.entry(recv,
                io.jccl.metaroce.protocol.CompletionStatus.CONNECTION_CLOSED));
        assertThat(sim.nowNs()).isGreaterThan(5_000_000);
    }
}
