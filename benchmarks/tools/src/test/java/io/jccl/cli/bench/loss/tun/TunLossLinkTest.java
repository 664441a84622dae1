package io.jccl.cli.bench.loss.tun;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;

import static io.jccl.cli.bench.loss.tun.PeerProcess.field;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real traffic through real links: child JVMs in the two namespaces send UDP datagrams and TCP streams across the
 * relay. Skipped where links cannot be opened (not root, no /dev/net/tun, no ip, no namespaces).
 */
@Tag("integration")
@Timeout(60)
class TunLossLinkTest {
    private static final long STEP_TIMEOUT_MS = 30_000;

    @BeforeAll
    static void linksCanBeOpened() {
        assumeTrue(TunLossLink.unavailableReason().isEmpty(),
                () -> "TUN loss link unavailable: " + TunLossLink.unavailableReason().orElseThrow());
    }

    /** Sends {@code count} paced datagrams from side 0 to side 1; returns the receiver's RESULT line. */
    private static String udpAcross(TunLossLink link, int count, int sizeBytes) throws Exception {
        return udpAcross(link, count, sizeBytes, "paced");
    }

    /** @param pace {@code paced} or {@code blast}, see {@link LinkPeer} */
    private static String udpAcross(TunLossLink link, int count, int sizeBytes, String pace) throws Exception {
        try (PeerProcess receiver = PeerProcess.start(link, 1, PeerProcess.smallJvm(), "udp-recv",
                link.address(1).getHostAddress())) {
            String port = receiver.await("READY", STEP_TIMEOUT_MS);
            try (PeerProcess sender = PeerProcess.start(link, 0, PeerProcess.smallJvm(), "udp-send",
                    link.address(1).getHostAddress(), port, Integer.toString(count), Integer.toString(sizeBytes),
                    pace)) {
                sender.await("SENT", STEP_TIMEOUT_MS);
                sender.awaitExit(STEP_TIMEOUT_MS);
            }
            receiver.tell("STOP");
            String result = receiver.await("RESULT", STEP_TIMEOUT_MS);
            receiver.awaitExit(STEP_TIMEOUT_MS);
            return result;
        }
    }

    @Test
    void withoutLossEveryDatagramArrivesOnceAndIntactAndIsCounted() throws Exception {
        int count = 2000;
        int sizeBytes = 1200;
        try (TunLossLink link = TunLossLink.open(TunLossLink.Settings.of(0, 1))) {
            String result = udpAcross(link, count, sizeBytes);
            // Paced, so the device queue never fills unless the relay thread is starved for 30 ms on a busy machine;
            // then the kernel's drops there account for the difference, exactly.
            long queueDrops = link.queueDrops(0);
            assertThat(queueDrops).isLessThan(count / 2);
            assertThat(field(result, "received")).as(result).isEqualTo(count - queueDrops);
            assertThat(field(result, "duplicates")).isZero();
            assertThat(field(result, "corrupt")).isZero();
            TunLossLink.Counters ab = link.counters(0);
            assertThat(ab.packetsForwarded()).isEqualTo(count - queueDrops);
            assertThat(ab.bytesForwarded()).isEqualTo((count - queueDrops) * (sizeBytes + 28)); // IPv4, UDP headers
            assertThat(ab.packetsDropped()).isZero();
            assertThat(ab.packetsRefused()).isZero();
            assertThat(link.counters(1).packetsRead()).isZero(); // nothing came back: the link carries only this
            assertThat(link.relayFailure()).isEmpty();
        }
    }

    /**
     * At 30% loss the datagrams that arrive and the drops the relay counted add up to what was sent, and the drops
     * are exactly those the seed gives for that many packets: the decisions replay.
     */
    @Test
    void atThirtyPercentLossTheDropsAreTheSeedsAndAccountForEveryMissingDatagram() throws Exception {
        int count = 3000;
        long seed = 20261201L;
        double loss = 0.3;
        try (TunLossLink link = TunLossLink.open(TunLossLink.Settings.of(loss, seed))) {
            String result = udpAcross(link, count, 200);
            long received = field(result, "received");
            TunLossLink.Counters ab = link.counters(0);
            long queueDrops = link.queueDrops(0); // zero unless the relay thread was starved, see above
            assertThat(queueDrops).isLessThan(count / 2);
            assertThat(ab.packetsRefused()).isZero();
            assertThat(ab.packetsRead()).isEqualTo(count - queueDrops);
            assertThat(received + ab.packetsDropped()).as(result + " " + ab).isEqualTo(count - queueDrops);
            // Binomial(3000, 0.3): mean 900, standard deviation 25; six of them either way.
            assertThat(ab.packetsDropped()).isBetween(750L - queueDrops, 1050L);
            PacketLoss replay = PacketLoss.forBothDirections(loss, seed)[0];
            long expectedDrops = 0;
            for (long i = 0; i < ab.packetsRead(); i++) {
                expectedDrops += replay.drop() ? 1 : 0;
            }
            assertThat(ab.packetsDropped()).isEqualTo(expectedDrops);
            assertThat(ab.bytesDropped()).isEqualTo(expectedDrops * 228);
        }
    }

    /** TCP retransmits what the relay drops (both ways: data and ACKs), so every byte arrives, in order. */
    @Test
    void tcpDeliversEveryByteInOrderAtFivePercentLoss() throws Exception {
        long bytes = 8L << 20;
        try (TunLossLink link = TunLossLink.open(TunLossLink.Settings.of(0.05, 7));
             PeerProcess receiver = PeerProcess.start(link, 1, PeerProcess.smallJvm(), "tcp-recv",
                     link.address(1).getHostAddress())) {
            String port = receiver.await("READY", STEP_TIMEOUT_MS);
            try (PeerProcess sender = PeerProcess.start(link, 0, PeerProcess.smallJvm(), "tcp-send",
                    link.address(1).getHostAddress(), port, Long.toString(bytes))) {
                String result = receiver.await("RESULT", STEP_TIMEOUT_MS);
                assertThat(field(result, "bytes")).as(result).isEqualTo(bytes);
                assertThat(field(result, "firstMismatch")).as(result).isEqualTo(-1);
                sender.awaitExit(STEP_TIMEOUT_MS);
            }
            receiver.awaitExit(STEP_TIMEOUT_MS);
            assertThat(link.counters(0).packetsDropped()).isPositive(); // data was lost and resent
            assertThat(link.counters(1).packetsForwarded()).isPositive(); // ACKs came back
            assertThat(link.counters(0).bytesForwarded()).isGreaterThan(bytes);
        }
    }

    @Test
    void closeRemovesBothNamespacesAndDevicesAndIsIdempotent() throws Exception {
        TunLossLink link = TunLossLink.open(TunLossLink.Settings.of(0.5, 3).withSubnetPrefix("192.168.77"));
        List<String> namespaces = List.of(link.namespace(0), link.namespace(1));
        assertThat(TunLossLink.namespaceNames()).containsAll(namespaces);
        assertThat(link.address(0).getHostAddress()).isEqualTo("192.168.77.1");
        assertThat(link.address(1).getHostAddress()).isEqualTo("192.168.77.2");
        String shown = IpCommand.run("-n", link.namespace(1), "address", "show", "dev", link.interfaceName(1));
        assertThat(shown).contains("192.168.77.2/24").contains("mtu 9000").contains(",UP");
        List<Thread> relays = link.relayThreads();
        link.close();
        assertThat(TunLossLink.namespaceNames()).doesNotContainAnyElementsOf(namespaces);
        assertThat(relays).noneMatch(Thread::isAlive);
        for (int side = 0; side < 2; side++) {
            String device = link.interfaceName(side); // closing its descriptor removed it: not moved back here
            assertThatThrownBy(() -> IpCommand.run("link", "show", "dev", device)).isInstanceOf(IOException.class);
        }
        link.close();
    }

    /** A JVM stopped by SIGTERM (a benchmark interrupted) without closing its link: the shutdown hook cleans up. */
    @Test
    void aJvmStoppedBySigtermRemovesItsNamespacesOnTheWayOut() throws Exception {
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), OpenLinkAndWaitMain.class.getName());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (java.io.BufferedReader out = child.inputReader()) {
            String line = out.readLine();
            assertThat(line).as("the child's first line").startsWith("OPEN ");
            List<String> namespaces = List.of(line.split(" ")).subList(1, 3);
            assertThat(TunLossLink.namespaceNames()).containsAll(namespaces);
            child.destroy(); // SIGTERM
            assertThat(child.waitFor(STEP_TIMEOUT_MS, java.util.concurrent.TimeUnit.MILLISECONDS)).isTrue();
            assertThat(TunLossLink.namespaceNames()).doesNotContainAnyElementsOf(namespaces);
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void namespacesLeftByADeadJvmAreRemovedAtOpen() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        String stale = TunLossLink.NAMESPACE_PREFIX + gone.pid() + "-1-a";
        String alive = TunLossLink.NAMESPACE_PREFIX + ProcessHandle.current().pid() + "-999-a";
        IpCommand.run("netns", "add", stale);
        IpCommand.run("netns", "add", alive);
        try {
            TunLossLink.open(TunLossLink.Settings.of(0, 1)).close();
            assertThat(TunLossLink.namespaceNames()).doesNotContain(stale).contains(alive);
        } finally {
            IpCommand.run("netns", "delete", alive);
            if (TunLossLink.namespaceNames().contains(stale)) {
                IpCommand.run("netns", "delete", stale);
            }
        }
    }

    /**
     * Once warm, the relay threads allocate nothing per packet (the JVM's per-thread allocation counters). The FFM
     * calls allocate (a slice checking the errno segment) until C2 has compiled them, hence the 300,000-packet
     * warm-up.
     */
    @Test
    void theRelayAllocatesNothingPerPacketOnceWarm() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (TunLossLink link = TunLossLink.open(TunLossLink.Settings.of(0.1, 11))) {
            udpAcross(link, 300_000, 64, "blast");
            long[] before = allocated(threads, link);
            long packetsBefore = link.counters(0).packetsRead();
            udpAcross(link, 20_000, 64, "paced");
            long[] after = allocated(threads, link);
            assertThat(link.counters(0).packetsRead() - packetsBefore).isGreaterThan(10_000);
            // Zero when measured; a little room for a rare deoptimization, far below one object per packet.
            assertThat(after[0] - before[0]).as("bytes allocated by the relay a>b over %d packets",
                    link.counters(0).packetsRead() - packetsBefore)
                    .isLessThan(2048);
            assertThat(after[1] - before[1]).as("bytes allocated by the relay b>a meanwhile").isLessThan(2048);
        }
    }

    private static long[] allocated(com.sun.management.ThreadMXBean threads, TunLossLink link) {
        List<Thread> relays = link.relayThreads();
        return new long[]{threads.getThreadAllocatedBytes(relays.get(0).threadId()),
                threads.getThreadAllocatedBytes(relays.get(1).threadId())};
    }
}
