package io.jccl.metaroce.sim.dc;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * One simulation run: a fabric, a workload and a transport on every host, run until every flow finished or a
 * virtual-time limit; what it measured as a {@link Report}.
 */
public final class ClosRun {
    /** Transports a run can put on the hosts. */
    public enum Protocol {
        /** {@link IdealSprayHost}: line rate, per-packet spraying, oracle loss recovery (a bound). */
        IDEAL,
        /** {@link EngineHosts}: the production MetaRoCE engine on every host. */
        METAROCE,
        /** {@link EngineHosts#attachRoce}: the RoCEv2 baseline (go-back-N, one path per connection, DCQCN). */
        ROCE,
        /** The RoCEv2 baseline without congestion control (go-back-N at line rate). */
        ROCE_NO_CC
    }

    /** How a MetaRoCE run carries payload ({@link EngineHosts}). */
    public enum Payload {
        /** Every flow's own bytes, each placed byte compared with them. */
        CHECKED,
        /** One shared buffer, placement discarded (the engines' CRCs still check each packet). */
        SHARED
    }

    /**
     * What a run measured.
     *
     * @param hosts            hosts in the fabric
     * @param flows            flows in the workload
     * @param wallSeconds      wall-clock time of the event loop, by the clock the caller passed in (0 without one)
     * @param events           events processed
     * @param simulatedUs      virtual time reached, in µs
     * @param meanFctUs        mean flow completion time of the finished flows, in µs
     * @param p99FctUs         99th percentile of it
     * @param maxFctUs         the longest
     * @param unfinishedFlows  flows not finished when the run stopped
     * @param retransmissions  packets sent again
     * @param tailDrops        packets dropped at full queues
     * @param randomLosses     data packets lost at random
     * @param failureDrops     packets dropped by failed links
     * @param ecnMarks         packets marked
     * @param maxQueueBytes    the deepest queue
     * @param peakPackets      packets alive at once, at most
     * @param peakHeapBytes    the peak heap use of the JVM over the run (every heap pool's peak, summed)
     * @param wrongBytes       bytes placed that differ from what was sent (checked MetaRoCE runs; else 0)
     * @param jobUs            from the first flow's start to the last one's finish, in µs (-1 with flows unfinished)
     * @param timelineGbps     data delivered to hosts per timeline bucket, in Gbit/s (empty unless asked for)
     * @param meanQueueBytes   switch ports' queues averaged over time, then over the ports that carried traffic
     * @param busiestMeanQueueBytes the highest of those time averages
     * @param rateCuts         congestion reactions: MetaRoCE's ECN window cuts, DCQCN's rate cuts (0 for ideal)
     * @param fctUs            every finished flow's completion time, ascending, in µs
     * @param goodputGbps      every finished flow's bytes over its completion time, ascending, in Gbit/s
     * @param failedCompletions work completed with an error (a connection failed for silence; its flow unfinished)
     */
    public record Report(int hosts, int flows, double wallSeconds, long events, double simulatedUs, double meanFctUs,
                         double p99FctUs, double maxFctUs, int unfinishedFlows, long retransmissions, long tailDrops,
                         long randomLosses, long failureDrops, long ecnMarks, long maxQueueBytes, int peakPackets,
                         long peakHeapBytes, long wrongBytes, double jobUs,
                         double[] timelineGbps, double meanQueueBytes, double busiestMeanQueueBytes, long rateCuts,
                         double[] fctUs, double[] goodputGbps, long failedCompletions) {
        /** @return the slowest flow's goodput, Gbit/s (0 with none finished) */
        public double minGoodputGbps() {
            return goodputGbps.length == 0 ? 0 : goodputGbps[0];
        }

        /** @return the median flow's goodput, Gbit/s (0 with none finished) */
        public double medianGoodputGbps() {
            return goodputGbps.length == 0 ? 0 : goodputGbps[goodputGbps.length / 2];
        }

        /** @return events per wall-clock second of the event loop (0 without a clock) */
        public double eventsPerSecond() {
            return wallSeconds > 0 ? events / wallSeconds : 0;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d hosts, %d flows: %.2f s wall, %d events (%.2f M/s), job %.2f us,"
                    + " mean FCT %.2f us, p99 %.2f us, max %.2f us, %d unfinished, %d drops, %d lost, %d resent, %d wrong"
                    + " bytes, peak heap %d MiB", hosts, flows, wallSeconds, events, eventsPerSecond() / 1e6, jobUs,
                    meanFctUs, p99FctUs, maxFctUs, unfinishedFlows, tailDrops + failureDrops, randomLosses,
                    retransmissions, wrongBytes, peakHeapBytes >> 20);
        }
    }

    private ClosRun() {
    }

    private static double[] timelineGbps(ClosFabric fabric, long bucketPs) {
        if (bucketPs <= 0) {
            return new double[0];
        }
        long[] bytes = fabric.timelineBytes();
        double[] gbps = new double[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            gbps[i] = bytes[i] * 8.0 * 1000 / bucketPs;   // bits per ps x 1000 = Gbit/s
        }
        return gbps;
    }

    /**
     * Runs {@code flows} over a fabric of {@code config} (a MetaRoCE run's payload checked).
     *
     * @param protocol  the transport on every host
     * @param mtuBytes  the wire size of a full packet
     * @param untilPs   the virtual-time limit
     * @param seed      the seed of the fabric's random choices
     * @param progress  called with the event count now and then (null: never)
     */
    public static Report run(ClosConfig config, Flows flows, Protocol protocol, int mtuBytes, long untilPs, long seed,
                             LongConsumer progress) {
        return run(config, flows, protocol, Payload.CHECKED, EngineHosts.Tuning.DATACENTER, mtuBytes, untilPs, seed,
                java.util.List.of(), progress);
    }

    /**
     * As {@link #run(ClosConfig, Flows, Protocol, int, long, long, LongConsumer)}, with a payload mode and tuning for
     * MetaRoCE, and parts of the fabric failing and recovering.
     */
    public static Report run(ClosConfig config, Flows flows, Protocol protocol, Payload payload,
                             EngineHosts.Tuning tuning, int mtuBytes, long untilPs, long seed,
                             java.util.List<FailureEvent> failures, LongConsumer progress) {
        return run(config, flows, protocol, payload, tuning, mtuBytes, untilPs, seed, failures, 0, progress, null);
    }

    /**
     * As above, and with {@code timelineBucketPs > 0} the data delivered per bucket of virtual time
     * ({@link Report#timelineGbps}): throughput over time, across a plane failure for instance.
     *
     * @param wallClockNs a wall clock in ns that times the event loop for {@link Report#wallSeconds} (the caller's:
     *                    the simulator reads no clock of its own, see PurityTest); null: not timed
     */
    public static Report run(ClosConfig config, Flows flows, Protocol protocol, Payload payload,
                             EngineHosts.Tuning tuning, int mtuBytes, long untilPs, long seed,
                             java.util.List<FailureEvent> failures, long timelineBucketPs, LongConsumer progress,
                             LongSupplier wallClockNs) {
        Objects.requireNonNull(protocol, "protocol");
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
        ClosTopology topology = new ClosTopology(config);
        ClosFabric fabric = new ClosFabric(topology, seed);
        for (int f = 0; f < flows.count(); f++) {
            if (flows.src(f) >= topology.hosts() || flows.dst(f) >= topology.hosts()) {
                throw new IllegalArgumentException("flow " + f + " names a host beyond the fabric's "
                        + topology.hosts());
            }
        }
        EngineHosts engines = null;
        if (protocol == Protocol.IDEAL) {
            IdealSprayHost.attachAll(fabric, flows, mtuBytes);
        } else if (protocol == Protocol.ROCE || protocol == Protocol.ROCE_NO_CC) {
            engines = EngineHosts.attachRoce(fabric, flows, mtuBytes, payload == Payload.CHECKED, seed,
                    protocol == Protocol.ROCE);
        } else {
            engines = EngineHosts.attach(fabric, flows, mtuBytes, payload == Payload.CHECKED, seed, tuning);
        }
        if (timelineBucketPs > 0) {
            fabric.recordTimeline(timelineBucketPs);
        }
        // A flow whose wait is over (a collective's next step) starts now: its source is woken to send it.
        flows.onReady(f -> fabric.setTimer(flows.src(f), fabric.nowPs()));
        for (FailureEvent e : failures) {
            fabric.schedulePorts(e.ports(topology), e.atPs(), e.down());
        }
        if (progress != null) {
            fabric.onProgress(1 << 20, progress);
        }
        long loopStartNs = wallClockNs != null ? wallClockNs.getAsLong() : 0;
        long end = fabric.run(untilPs, flows);
        double wall = wallClockNs != null ? (wallClockNs.getAsLong() - loopStartNs) / 1e9 : 0;
        long[] fct = flows.sortedFctPs();
        double[] fctUs = new double[fct.length];
        for (int i = 0; i < fct.length; i++) {
            fctUs[i] = fct[i] / 1e6;
        }
        double[] goodput = new double[fct.length];
        int finished = 0;
        for (int f = 0; f < flows.count(); f++) {
            long t = flows.finishPs(f) - flows.startPs(f);
            if (flows.finishPs(f) >= 0 && t > 0) {
                goodput[finished++] = flows.bytes(f) * 8.0 * 1000 / t;   // bits per ps x 1000 = Gbit/s
            }
        }
        goodput = java.util.Arrays.copyOf(goodput, finished);
        java.util.Arrays.sort(goodput);
        double mean = 0;
        for (long v : fct) {
            mean += v;
        }
        mean = fct.length == 0 ? 0 : mean / fct.length / 1e6;
        double p99 = fct.length == 0 ? 0 : fct[Math.min(fct.length - 1, (int) Math.ceil(0.99 * fct.length) - 1)] / 1e6;
        double max = fct.length == 0 ? 0 : fct[fct.length - 1] / 1e6;
        long peakHeap = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peakHeap += pool.getPeakUsage().getUsed();
            }
        }
        return new Report(topology.hosts(), flows.count(), wall, fabric.events(), end / 1e6, mean, p99, max,
                flows.unfinished(), engines != null ? engines.retransmissions() : flows.totalRetransmissions(),
                fabric.tailDrops(), fabric.randomLosses(),
                fabric.failureDrops(), fabric.ecnMarks(), fabric.maxQueueBytes(), fabric.packets().peakAlive(),
                peakHeap, engines != null ? engines.wrongBytes() : 0,
                flows.jobPs() < 0 ? -1 : flows.jobPs() / 1e6, timelineGbps(fabric, timelineBucketPs),
                fabric.meanQueueBytes(), fabric.busiestMeanQueueBytes(),
                engines != null ? engines.total(io.jccl.metaroce.protocol.Counter.ECN_WINDOW_CUTS) : 0, fctUs, goodput,
                engines != null ? engines.failedCompletions() : 0);
    }
}
