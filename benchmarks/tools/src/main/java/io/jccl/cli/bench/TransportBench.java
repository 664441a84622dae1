package io.jccl.cli.bench;

import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.wire.Crc32c;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import io.jccl.metaroce.sim.FabricConfig;
import io.jccl.metaroce.sim.GoBackNConfig;
import io.jccl.metaroce.sim.GoBackNEndpoint;
import io.jccl.metaroce.impair.Impairments;
import io.jccl.metaroce.sim.IncastAnalysis;
import io.jccl.metaroce.sim.Protocols;
import io.jccl.metaroce.sim.RateMonitor;
import io.jccl.metaroce.sim.ScenarioResult;
import io.jccl.metaroce.sim.TransferScenario;
import io.jccl.metaroce.sim.VerbsFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The transport benchmark itself, apart from its command line: for each protocol and loss rate, one node WRITEs
 * {@code bytes} to another through the simulated fabric (in {@code messageBytes} WRITEs, all posted at once), every
 * byte checked; random loss applies to every route, both directions. The goodput ratio is relative to the same
 * protocol at loss 0 (run even when not asked for). With {@code incastSenders}, each loss rate also runs an incast:
 * that many senders each WRITE {@code bytes / senders} to one receiver at once, and the receiver's inbound rate per
 * sender gives convergence to the fair share and Jain's index ({@link IncastAnalysis}). Before measuring a protocol,
 * an unmeasured transfer warms the JIT up, so the events-per-second figures are steady-state speeds (they count the
 * simulation loop: fabric, event queue and both endpoints, not the harness's setup and data checks).
 */
public final class TransportBench {
    private TransportBench() {
    }

    /**
     * What to run.
     *
     * @param protocols    protocol names ({@link Protocols#NAMES})
     * @param losses       random loss rates per route
     * @param paths        paths per connection (MetaRoCE; go-back-N always uses one)
     * @param bytes        bytes per transfer
     * @param messageBytes bytes per WRITE
     * @param payloadBytes payload per packet
     * @param seed         seed of every run
     * @param incastSenders senders of the incast runs, 0 for none
     * @param fabric       the fabric
     * @param gbn          the baseline's settings
     * @param timeLimitNs  virtual-time limit per run
     * @param wallClock    times the runs (System::nanoTime; only for the events/s figure)
     */
    public record Settings(List<String> protocols, List<Double> losses, int paths, long bytes, long messageBytes,
                           int payloadBytes, long seed, int incastSenders, FabricConfig fabric, GoBackNConfig gbn,
                           long timeLimitNs, LongSupplier wallClock) {
        /** Copies the lists. */
        public Settings {
            protocols = List.copyOf(protocols);
            losses = List.copyOf(losses);
            Objects.requireNonNull(fabric, "fabric");
            Objects.requireNonNull(gbn, "gbn");
            Objects.requireNonNull(wallClock, "wallClock");
        }
    }

    /**
     * One transfer.
     *
     * @param protocol           protocol name
     * @param loss               random loss per route
     * @param paths              paths the protocol used
     * @param bytes              payload bytes
     * @param goodputBytesPerSec payload bytes per simulated second
     * @param goodputRatio       goodput over the same protocol's at loss 0
     * @param retransmits        retransmitted packets
     * @param simulatedNs        simulated time to the last completion
     * @param events             simulator events
     * @param eventsPerSecond    simulator events per wall-clock second
     * @param wallNs             wall-clock time of the simulation
     */
    public record Result(String protocol, double loss, int paths, long bytes, double goodputBytesPerSec,
                         double goodputRatio, long retransmits, long simulatedNs, long events, double eventsPerSecond,
                         long wallNs) {
    }

    /**
     * One incast.
     *
     * @param protocol           protocol name
     * @param loss               random loss per route
     * @param senders            senders
     * @param bytesPerSender     bytes each sender wrote
     * @param rttNs              base round trip (the bin width)
     * @param windowRtts         round trips per rate measurement
     * @param convergenceRtts    round trips until every sender was within 10% of the fair share, -1 if never
     * @param jainIndex          Jain's index over the steady state
     * @param inboundBytesPerSec bytes per second into the receiver over the steady state (what its port carried:
     *                           retransmissions and discarded packets included)
     * @param goodputBytesPerSec payload bytes of all senders per simulated second, to the last completion
     * @param simulatedNs        simulated time to the last completion
     * @param events             simulator events
     * @param eventsPerSecond    events per wall-clock second
     * @param wallNs             wall-clock time
     */
    public record IncastResult(String protocol, double loss, int senders, long bytesPerSender, long rttNs,
                               int windowRtts, long convergenceRtts, double jainIndex, double inboundBytesPerSec,
                               double goodputBytesPerSec, long simulatedNs, long events, double eventsPerSecond,
                               long wallNs) {
    }

    /**
     * @param results transfers, by protocol then loss as asked
     * @param incast  incasts (empty unless asked)
     */
    public record Report(List<Result> results, List<IncastResult> incast) {
    }

    /**
     * @param s what to run
     * @return the runs {@link #run} reports to its {@code progress}: per protocol, each loss rate and 0, then each
     *         loss rate again with {@code --incast}
     */
    public static long runCount(Settings s) {
        long perProtocol = s.losses().size() + (s.losses().contains(0.0) ? 0 : 1)
                + (s.incastSenders() > 0 ? s.losses().size() : 0);
        return perProtocol * s.protocols().stream().distinct().count();
    }

    /**
     * Runs everything.
     *
     * @param s        what to run
     * @param progress told about each finished run (e.g. for a progress line), may ignore it
     * @return the report
     * @throws io.jccl.metaroce.sim.ScenarioFailure when a run fails its checks
     */
    public static Report run(Settings s, Consumer<String> progress) {
        Map<String, VerbsFactory> factories = new LinkedHashMap<>();
        for (String p : s.protocols()) {
            factories.put(p, Protocols.byName(p, s.gbn())); // an unknown name fails before anything runs
        }
        List<Result> results = new ArrayList<>();
        List<IncastResult> incast = new ArrayList<>();
        for (Map.Entry<String, VerbsFactory> e : factories.entrySet()) {
            String protocol = e.getKey();
            int paths = protocol.equalsIgnoreCase("gbn") ? 1 : s.paths();
            Map<Double, Result> byLoss = new LinkedHashMap<>();
            List<Double> order = new ArrayList<>(s.losses());
            if (!order.contains(0.0)) {
                order.addFirst(0.0);
            }
            List<Double> runOrder = new ArrayList<>(order);
            runOrder.remove(0.0);
            runOrder.addFirst(0.0);
            // Warm the JIT up on this protocol first (unmeasured), so events/s reflect steady-state speed.
            for (int w = 0; w < 3; w++) {
                transfer(withBytes(s, Math.min(s.bytes(), 16L << 20)), e.getValue(), 0.01);
            }
            double baseline = 0;
            for (double loss : runOrder) {
                ScenarioResult r = transfer(s, e.getValue(), loss);
                if (loss == 0) {
                    baseline = r.goodputBytesPerSecond();
                }
                Result res = new Result(protocol, loss, paths, s.bytes(), r.goodputBytesPerSecond(),
                        baseline > 0 ? r.goodputBytesPerSecond() / baseline : Double.NaN, r.retransmits(),
                        r.simulatedNs(), r.events(), r.eventsPerSecond(), r.runWallNs());
                byLoss.put(loss, res);
                progress.accept(protocol + " loss " + loss + ": " + r.summary());
            }
            for (double loss : order) {
                results.add(byLoss.get(loss));
            }
            if (s.incastSenders() > 0) {
                for (double loss : s.losses()) {
                    IncastResult ir = incast(s, protocol, e.getValue(), loss);
                    incast.add(ir);
                    progress.accept(protocol + " incast loss " + loss + ": convergence " + ir.convergenceRtts()
                            + " RTTs, Jain " + ir.jainIndex());
                }
            }
        }
        return new Report(results, incast);
    }

    private static Settings withBytes(Settings s, long bytes) {
        return new Settings(s.protocols(), s.losses(), s.paths(), bytes, s.messageBytes(), s.payloadBytes(), s.seed(),
                s.incastSenders(), s.fabric(), s.gbn(), s.timeLimitNs(), s.wallClock());
    }

    private static EndpointConfig endpointConfig(Settings s) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (s.seed() * 31 + i);
        }
        return EndpointConfig.defaults(key).withPaths(s.paths()).withPayloadBytes(s.payloadBytes())
                .withInboundBytesPerSecond(payloadBytesPerSecond(s));
    }

    /**
     * What the receiver's port can carry in payload: its line rate less each packet's MetaRoCE header, CRC and the
     * fabric's per-datagram overhead. The receiver shares this out among its senders.
     */
    static double payloadBytesPerSecond(Settings s) {
        int datagram = s.payloadBytes() + DataFlyweight.DATA_HEADER_LENGTH + Crc32c.LENGTH;
        return s.fabric().destinationGoodputBytesPerSecond(datagram) * s.payloadBytes() / datagram;
    }

    private static ScenarioResult transfer(Settings s, VerbsFactory factory, double loss) {
        TransferScenario.Builder b = TransferScenario.builder(s.seed()).protocol(factory).nodes(2)
                .endpointConfig(endpointConfig(s)).fabric(s.fabric().withImpairments(Impairments.NONE
                        .withLossRate(loss))).gapBytes(0).drainNs(50_000).timeLimitNs(s.timeLimitNs())
                .wallClock(s.wallClock());
        for (long done = 0; done < s.bytes() || done == 0; done += s.messageBytes()) {
            b.write(0, 1, Math.min(s.messageBytes(), s.bytes() - done));
            if (s.bytes() == 0) {
                break;
            }
        }
        return b.build().run();
    }

    private static IncastResult incast(Settings s, String protocol, VerbsFactory factory, double loss) {
        int n = s.incastSenders();
        long perSender = Math.max(1, s.bytes() / n);
        FabricConfig fabric = s.fabric().withImpairments(Impairments.NONE.withLossRate(loss));
        int datagram = s.payloadBytes() + 64;
        long rtt = fabric.baseRttNs(datagram, GoBackNEndpoint.CONTROL_BYTES + 64);
        long packetNs = fabric.destinationPort().serializationNs(datagram + (long) fabric.wireOverheadBytes());
        int window = (int) Math.max(1, (20L * n * packetNs + rtt - 1) / rtt);
        long[] senders = new long[n];
        for (int i = 0; i < n; i++) {
            senders[i] = TransferScenario.nodeId(i + 1);
        }
        RateMonitor monitor = new RateMonitor(TransferScenario.nodeId(0), senders, rtt);
        TransferScenario.Builder b = TransferScenario.builder(s.seed()).protocol(factory).nodes(n + 1)
                .endpointConfig(endpointConfig(s)).fabric(fabric).gapBytes(0).drainNs(50_000)
                .timeLimitNs(s.timeLimitNs()).observeDeliveries(monitor).wallClock(s.wallClock());
        List<int[]> opsOfSender = new ArrayList<>();
        int op = 0;
        for (int i = 1; i <= n; i++) {
            List<Integer> mine = new ArrayList<>();
            for (long done = 0; done < perSender; done += s.messageBytes()) {
                b.write(i, 0, Math.min(s.messageBytes(), perSender - done));
                mine.add(op++);
            }
            opsOfSender.add(mine.stream().mapToInt(Integer::intValue).toArray());
        }
        ScenarioResult r = b.build().run();
        long firstFinish = Long.MAX_VALUE;
        for (int[] mine : opsOfSender) {
            long last = 0;
            for (int k : mine) {
                last = Math.max(last, r.completionNs()[k]);
            }
            firstFinish = Math.min(firstFinish, last);
        }
        IncastAnalysis.Stats st = IncastAnalysis.analyze(monitor, window, firstFinish, 0.10, 3);
        return new IncastResult(protocol, loss, n, perSender, rtt, window, st.convergenceRtts(), st.jainIndex(),
                st.aggregateBytesPerSecond(), r.goodputBytesPerSecond(), r.simulatedNs(), r.events(),
                r.eventsPerSecond(), r.runWallNs());
    }
}
