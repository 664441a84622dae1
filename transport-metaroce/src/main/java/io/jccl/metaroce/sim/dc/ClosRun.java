package io.jccl.metaroce.sim.dc;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongConsumer;

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
        /** {@link EngineHosts#attachRoce}: the RoCEv2 baseline (go-back-N, one path per connection). */
        ROCE
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
     * @param wallSeconds      wall-clock time of the event loop
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
     * @param maxRssBytes      the process's peak resident memory so far (Linux VmHWM; -1 where unknown)
     * @param jobUs            from the first flow's start to the last one's finish, in µs (-1 with flows unfinished)
     * @param timelineGbps     data delivered to hosts per timeline bucket, in Gbit/s (empty unless asked for)
     */
    public record Report(int hosts, int flows, double wallSeconds, long events, double simulatedUs, double meanFctUs,
                         double p99FctUs, double maxFctUs, int unfinishedFlows, long retransmissions, long tailDrops,
                         long randomLosses, long failureDrops, long ecnMarks, long maxQueueBytes, int peakPackets,
                         long peakHeapBytes, long wrongBytes, long maxRssBytes, double jobUs,
                         double[] timelineGbps) {
        /** @return events per wall-clock second */
        public double eventsPerSecond() {
            return wallSeconds > 0 ? events / wallSeconds : 0;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d hosts, %d flows: %.2f s wall, %d events (%.2f M/s), job %.2f us, mean FCT %.2f us,"
                    + " p99 %.2f us, max %.2f us, %d unfinished, %d drops, %d lost, %d resent, %d wrong bytes, peak heap %d"
                + " MiB, max RSS %d MiB", hosts, flows, wallSeconds, events, eventsPerSecond() / 1e6, jobUs, meanFctUs,
                    p99FctUs, maxFctUs, unfinishedFlows, tailDrops + failureDrops, randomLosses, retransmissions,
                    wrongBytes, peakHeapBytes >> 20, maxRssBytes >> 20);
        }
    }

    /**
     * A plane taken down or brought back at a virtual time.
     *
     * @param plane the plane
     * @param atPs  when, in ps
     * @param down  true: it fails; false: it comes back
     */
    public record PlaneEvent(int plane, long atPs, boolean down) {
        /** Checks the time. */
        public PlaneEvent {
            if (plane < 0 || atPs < 0) {
                throw new IllegalArgumentException("a plane event needs a plane and a time >= 0, not plane " + plane
                        + " at " + atPs + " ps");
            }
        }

        /**
         * Parses {@code plane:K@TIME} (a failure) or {@code plane:K+@TIME} (a recovery), TIME with a unit: ns, us,
         * ms or s ({@code plane:1@200us}).
         */
        public static PlaneEvent parse(String text) {
            String t = text.trim();
            int at = t.indexOf('@');
            if (!t.startsWith("plane:") || at < 0) {
                throw new IllegalArgumentException("a failure is written plane:K@TIME (e.g. plane:1@200us), not '"
                        + text + "'");
            }
            String which = t.substring("plane:".length(), at);
            boolean up = which.endsWith("+");
            int plane;
            try {
                plane = Integer.parseInt(up ? which.substring(0, which.length() - 1) : which);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the plane in '" + text + "' is not a number");
            }
            return new PlaneEvent(plane, parseTimePs(t.substring(at + 1), text), !up);
        }

        private static long parseTimePs(String time, String text) {
            long unitPs;
            String number;
            if (time.endsWith("ns")) {
                unitPs = 1_000;
                number = time.substring(0, time.length() - 2);
            } else if (time.endsWith("us")) {
                unitPs = 1_000_000;
                number = time.substring(0, time.length() - 2);
            } else if (time.endsWith("ms")) {
                unitPs = 1_000_000_000;
                number = time.substring(0, time.length() - 2);
            } else if (time.endsWith("s")) {
                unitPs = 1_000_000_000_000L;
                number = time.substring(0, time.length() - 1);
            } else {
                throw new IllegalArgumentException("the time in '" + text + "' needs a unit: ns, us, ms or s");
            }
            double value;
            try {
                value = Double.parseDouble(number);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the time in '" + text + "' is not a number");
            }
            if (!(value >= 0) || value * unitPs > 1e18) {
                throw new IllegalArgumentException("the time in '" + text + "' must be >= 0 and below 11 days");
            }
            return Math.round(value * unitPs);
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

    /** @return the process's peak resident set (VmHWM of /proc/self/status), -1 where that is not there */
    static long maxRssBytes() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
        return -1;
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
     * MetaRoCE, and planes failing and recovering.
     */
    public static Report run(ClosConfig config, Flows flows, Protocol protocol, Payload payload,
                             EngineHosts.Tuning tuning, int mtuBytes, long untilPs, long seed,
                             java.util.List<PlaneEvent> planeEvents, LongConsumer progress) {
        return run(config, flows, protocol, payload, tuning, mtuBytes, untilPs, seed, planeEvents, 0, progress);
    }

    /**
     * As above, and with {@code timelineBucketPs > 0} the data delivered per bucket of virtual time
     * ({@link Report#timelineGbps}): throughput over time, across a plane failure for instance.
     */
    public static Report run(ClosConfig config, Flows flows, Protocol protocol, Payload payload,
                             EngineHosts.Tuning tuning, int mtuBytes, long untilPs, long seed,
                             java.util.List<PlaneEvent> planeEvents, long timelineBucketPs, LongConsumer progress) {
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
        } else if (protocol == Protocol.ROCE) {
            engines = EngineHosts.attachRoce(fabric, flows, mtuBytes, payload == Payload.CHECKED, seed);
        } else {
            engines = EngineHosts.attach(fabric, flows, mtuBytes, payload == Payload.CHECKED, seed, tuning);
        }
        if (timelineBucketPs > 0) {
            fabric.recordTimeline(timelineBucketPs);
        }
        // A flow whose wait is over (a collective's next step) starts now: its source is woken to send it.
        flows.onReady(f -> fabric.setTimer(flows.src(f), fabric.nowPs()));
        for (PlaneEvent e : planeEvents) {
            if (e.down()) {
                fabric.failPlaneAt(e.plane(), e.atPs());
            } else {
                fabric.restorePlaneAt(e.plane(), e.atPs());
            }
        }
        if (progress != null) {
            fabric.onProgress(1 << 20, progress);
        }
        long begin = System.nanoTime();
        long end = fabric.run(untilPs, flows);
        double wall = (System.nanoTime() - begin) / 1e9;
        long[] fct = flows.sortedFctPs();
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
                peakHeap, engines != null ? engines.wrongBytes() : 0, maxRssBytes(),
                flows.jobPs() < 0 ? -1 : flows.jobPs() / 1e6, timelineGbps(fabric, timelineBucketPs));
    }
}
