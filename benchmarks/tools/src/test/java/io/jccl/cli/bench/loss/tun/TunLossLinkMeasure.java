package io.jccl.cli.bench.loss.tun;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures a {@link TunLossLink}: kernel TCP goodput through it at several loss rates (one connection, a plain
 * socket sender in namespace a and a checking receiver in namespace b, {@link LinkPeer}), and the relay's packet
 * and byte rate with a UDP blast. Needs root; prints one line per run. Run from the repository root after
 * {@code ./mvnw -q -B -o -pl benchmarks/tools -am test-compile -Djccl.fuzz.skip}:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/tools/target/test-classes:benchmarks/tools/target/classes:launcher/target/classes \
 *     io.jccl.cli.bench.loss.tun.TunLossLinkMeasure [bytes=67108864] [losses=0,0.001,0.01,0.05,0.1] [mtus=9000]
 *     [repeat=1] [tcp=true] [pps=true] [seed=1] [limitS=180]
 * </pre>
 */
public final class TunLossLinkMeasure {
    private static final List<String> PEER_JVM = List.of("-Xmx256m", "-XX:+UseParallelGC");

    private TunLossLinkMeasure() {
    }

    public static void main(String[] args) throws Exception {
        long bytes = 64L << 20;
        List<Double> losses = List.of(0.0, 0.001, 0.01, 0.05, 0.1);
        List<Integer> mtus = List.of(TunLossLink.Settings.DEFAULT_MTU_BYTES);
        int repeat = 1;
        boolean pps = true;
        boolean tcp = true;
        long seed = 1;
        long limitS = 180;
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            switch (kv[0]) {
                case "bytes" -> bytes = Long.parseLong(kv[1]);
                case "losses" -> losses = parseList(kv[1]).stream().map(Double::parseDouble).toList();
                case "mtus" -> mtus = parseList(kv[1]).stream().map(Integer::parseInt).toList();
                case "repeat" -> repeat = Integer.parseInt(kv[1]);
                case "pps" -> pps = Boolean.parseBoolean(kv[1]);
                case "tcp" -> tcp = Boolean.parseBoolean(kv[1]);
                case "seed" -> seed = Long.parseLong(kv[1]);
                case "limitS" -> limitS = Long.parseLong(kv[1]);
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        TunLossLink.unavailableReason().ifPresent(reason -> {
            throw new IllegalStateException("TUN loss link unavailable: " + reason);
        });
        System.out.println("# " + Runtime.getRuntime().availableProcessors() + " CPUs, load average "
                + String.format(Locale.ROOT, "%.2f",
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        for (int mtu : mtus) {
            if (tcp) {
                for (double loss : losses) {
                    for (int r = 0; r < repeat; r++) {
                        tcpRun(TunLossLink.Settings.of(loss, seed + r).withMtuBytes(mtu), bytes, limitS);
                    }
                }
                roundTrip(TunLossLink.Settings.of(0, seed).withMtuBytes(mtu));
            }
            for (int r = 0; pps && r < repeat; r++) {
                for (int payload : new int[]{64, 1400, Math.min(mtu, 65_507 + 28) - 28}) {
                    udpRate(TunLossLink.Settings.of(0, seed).withMtuBytes(mtu), payload);
                }
            }
        }
    }

    private static List<String> parseList(String s) {
        return List.of(s.split(","));
    }

    private static void tcpRun(TunLossLink.Settings settings, long bytes, long limitS) throws Exception {
        try (TunLossLink link = TunLossLink.open(settings);
             PeerProcess receiver = PeerProcess.start(link, 1, PEER_JVM, "tcp-recv",
                     link.address(1).getHostAddress())) {
            String port = receiver.await("READY", 30_000);
            try (PeerProcess sender = PeerProcess.start(link, 0, PEER_JVM, "tcp-send",
                    link.address(1).getHostAddress(), port, Long.toString(bytes))) {
                String result;
                try {
                    result = receiver.await("RESULT", limitS * 1000);
                } catch (AssertionError e) {
                    System.out.printf(Locale.ROOT, "tcp mtu=%d loss=%s bytes=%d DID NOT FINISH in %d s: %s%n",
                            settings.mtuBytes(), settings.lossRate(), bytes, limitS, link.counters(0));
                    return;
                }
                sender.awaitExit(30_000);
                long received = PeerProcess.field(result, "bytes");
                long mismatch = PeerProcess.field(result, "firstMismatch");
                long nanos = PeerProcess.field(result, "nanos");
                TunLossLink.Counters ab = link.counters(0);
                TunLossLink.Counters ba = link.counters(1);
                System.out.printf(Locale.ROOT, "tcp mtu=%d loss=%s bytes=%d exact=%s time=%.2fs goodput=%.1fMB/s"
                                + " (%.2f Gbit/s) a>b: %d packets, %d dropped, %d queue drops; b>a: %d packets, %d"
                                + " dropped; retransmitted segments %s%n",
                        settings.mtuBytes(), settings.lossRate(), bytes, received == bytes && mismatch < 0,
                        nanos / 1e9, received / (nanos / 1e9) / 1e6, received * 8 / (double) nanos,
                        ab.packetsRead(), ab.packetsDropped(), link.queueDrops(0), ba.packetsRead(),
                        ba.packetsDropped(), retransmits(link));
            }
        }
    }

    /** One-byte TCP round trips through the link without loss: its latency, JVMs and two relay hops included. */
    private static void roundTrip(TunLossLink.Settings settings) throws Exception {
        try (TunLossLink link = TunLossLink.open(settings);
             PeerProcess echo = PeerProcess.start(link, 1, PEER_JVM, "tcp-echo", link.address(1).getHostAddress())) {
            String port = echo.await("READY", 30_000);
            try (PeerProcess ping = PeerProcess.start(link, 0, PEER_JVM, "tcp-ping",
                    link.address(1).getHostAddress(), port, "20000")) {
                String result = ping.await("RESULT", 120_000);
                System.out.printf(Locale.ROOT, "rtt mtu=%d one-byte TCP round trip: median %.1f us, p99 %.1f us,"
                                + " min %.1f us%n", settings.mtuBytes(), PeerProcess.field(result, "medianNanos") / 1e3,
                        PeerProcess.field(result, "p99Nanos") / 1e3, PeerProcess.field(result, "minNanos") / 1e3);
                ping.awaitExit(30_000);
            }
            echo.awaitExit(30_000);
        }
    }

    /** @return TcpRetransSegs in side 0's namespace (nstat), or "?" without nstat */
    private static String retransmits(TunLossLink link) {
        List<String> command = new ArrayList<>(link.commandPrefix(0));
        command.addAll(List.of("nstat", "-asz", "TcpRetransSegs"));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            p.waitFor();
            for (String line : out.split("\n")) {
                String[] words = line.trim().split("\\s+");
                if (words.length >= 2 && words[0].equals("TcpRetransSegs")) {
                    return words[1];
                }
            }
        } catch (IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "?";
    }

    /**
     * A UDP blast from a to b for a few seconds: the relay's forwarding rate, from its counters between 0.5 s and
     * 2.5 s into the blast. Queue drops show that the relay, not the sender, was the limit.
     */
    private static void udpRate(TunLossLink.Settings settings, int payloadBytes) throws Exception {
        try (TunLossLink link = TunLossLink.open(settings);
             PeerProcess receiver = PeerProcess.start(link, 1, PEER_JVM, "udp-recv",
                     link.address(1).getHostAddress())) {
            String port = receiver.await("READY", 30_000);
            int count = payloadBytes <= 64 ? 3_000_000 : payloadBytes <= 1400 ? 1_500_000 : 300_000;
            try (PeerProcess sender = PeerProcess.start(link, 0, PEER_JVM, "udp-send",
                    link.address(1).getHostAddress(), port, Integer.toString(count), Integer.toString(payloadBytes),
                    "blast")) {
                Thread.sleep(1500); // JVM start and warm-up
                TunLossLink.Counters before = link.counters(0);
                long queueBefore = link.queueDrops(0);
                long startNs = System.nanoTime();
                Thread.sleep(2000);
                TunLossLink.Counters after = link.counters(0);
                double seconds = (System.nanoTime() - startNs) / 1e9;
                long queueDrops = link.queueDrops(0) - queueBefore;
                long packets = after.packetsForwarded() - before.packetsForwarded();
                long ipBytes = after.bytesForwarded() - before.bytesForwarded();
                System.out.printf(Locale.ROOT, "udp mtu=%d payload=%d relay: %.0f packets/s, %.1f MB/s (%.2f Gbit/s)"
                                + " of IP packets; %d queue drops meanwhile%s%n", settings.mtuBytes(), payloadBytes,
                        packets / seconds, ipBytes / seconds / 1e6, ipBytes * 8 / seconds / 1e9, queueDrops,
                        packets == 0 ? " (the blast ended before the window)" : "");
                sender.awaitExit(120_000);
            }
            receiver.tell("STOP");
            receiver.await("RESULT", 30_000);
        }
    }
}
