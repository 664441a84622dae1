package io.jccl.net.aeronudp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.PeerIdentity;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.TransportContext;
import io.jccl.net.shm.ShmRankMain;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real JVMs over aeron-udp: three ranks run every collective with exact checks ({@code JCCL_NET=aeron-udp}, the
 * rank program of the shm tests), and a connected peer killed while a receive is pending fails that receive with
 * {@link NetException} within the peer timeout plus slack (no hang).
 */
@Tag("integration")
class AeronUdpMultiProcessTest {
    /** 1 MiB of floats per rank: many datagrams per message, and chunking. */
    private static final long COUNT = (1 << 18) + 3;

    @Test
    void threeJvmsRunEveryCollectiveExactlyOverAeronUdp() throws Exception {
        int size = 3;
        List<Jvm> ranks = ShmRankMain.startJob(size, COUNT, r -> Map.of("JCCL_NET", "aeron-udp",
                "JCCL_AERON_UDP_TERM_BYTES", String.valueOf(4 << 20)), "aeron-udp-n3");
        for (int r = 0; r < size; r++) {
            ShmRankMain.assertRankPassed(ranks.get(r), r, 120);
        }
        assertThat(ranks.get(0).outputText()).contains("transport per peer [null, aeron-udp, aeron-udp]");
        assertThat(ranks.get(2).outputText()).contains("transport per peer [aeron-udp, aeron-udp, null]");
    }

    @Test
    void killedSenderFailsAPendingReceiveWithinThePeerTimeout() throws Exception {
        long peerTimeoutMs = 1000;
        try (NetTransport transport = new AeronUdpTransportProvider().create(new TransportContext(
                new PeerIdentity(0, "host", "test"), 2, InetAddress.getLoopbackAddress(), Duration.ofSeconds(20),
                Map.of(AeronUdpOptions.PEER_TIMEOUT_MS, Long.toString(peerTimeoutMs))));
             Listener listener = transport.listen(ProgressSignal.NONE);
             Arena arena = Arena.ofShared()) {
            Jvm child = JvmProcesses.start(AeronUdpChildMain.class, List.of(HexFormat.of().formatHex(
                    listener.handle()), Long.toString(peerTimeoutMs)), Map.of(), "aeron-udp-killed-sender",
                    JvmProcesses.inheritedJvmOptions());
            try {
                RecvConnection recv = null;
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (recv == null && System.nanoTime() - deadline < 0) {
                    recv = listener.accept();
                    Thread.sleep(1);
                }
                assertThat(recv).as("accepted; child output:%n%s", child.outputText()).isNotNull();
                NetRequest pending = recv.irecv(arena.allocate(64), 0, 64, 7, null);
                assertThat(pending.test()).isEqualTo(NetRequest.NOT_DONE);
                child.process().destroyForcibly();
                child.process().waitFor();
                long killed = System.nanoTime();
                NetException failure = null;
                while (failure == null && System.nanoTime() - killed < 30_000_000_000L) {
                    try {
                        assertThat(pending.test()).isEqualTo(NetRequest.NOT_DONE);
                        Thread.sleep(1);
                    } catch (NetException e) {
                        failure = e;
                    }
                }
                long elapsedMs = (System.nanoTime() - killed) / 1_000_000;
                assertThat(failure).as("the pending receive failed").isNotNull();
                assertThat(failure.reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
                assertThat(elapsedMs).as("ms from the kill to the failure").isLessThan(peerTimeoutMs + 4000);
                System.out.println("pending receive failed " + elapsedMs + " ms after the kill: " + failure);
            } finally {
                child.process().destroyForcibly();
            }
        }
    }
}
