package io.jccl.net.shm;

import static io.jccl.net.NetTransportConformanceTest.loopbackContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.testing.JvmProcesses.Jvm;
import io.jccl.testing.PeerProcesses;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Peer death with real child JVMs killed with SIGKILL ({@link Process#destroyForcibly()}): a receive waiting for the
 * dead sender and a large send waiting for the dead receiver's copy both fail with
 * {@link NetException.Reason#PEER_CLOSED}, naming the pid; and nothing of the dead process is left in
 * {@code /dev/shm} (its segment never had a name there).
 */
@Tag("integration")
class ShmPeerDeathTest {
    /** Only turns a hang into a failure; the transport looks every 50 ms. */
    private static final long WAIT_LIMIT_NS = 60_000_000_000L;

    private final PeerProcesses peers = new PeerProcesses();
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void cleanUp() throws Exception {
        peers.cleanUp();
        arena.close();
    }

    @Test
    void aKilledSenderFailsAPendingReceive() throws Exception {
        ShmTransport local = transport(0);
        Listener listener = track(local.listen(ProgressSignal.NONE));
        Jvm child = child("sender", "connect", HexFormat.of().formatHex(listener.handle()));
        RecvConnection recv = peers.acceptFrom(child, listener, WAIT_LIMIT_NS);
        awaitLine(child, "CONNECTED");
        NetRequest request = recv.irecv(arena.allocate(1024), 0, 1024, 1, null);
        NetException e = killAndAwaitFailure(child, "sender", request);
        assertThat(e.getMessage()).contains("gone");
        assertNothingLeftInDevShm(child.process().pid());
    }

    @Test
    void aKilledReceiverFailsAPendingLargeSend() throws Exception {
        Jvm child = child("receiver", "listen");
        String line = awaitLine(child, "HANDLE ");
        byte[] handle = HexFormat.of().parseHex(line.split(" ")[1]);
        ShmTransport local = transport(0);
        SendConnection send = track(PeerProcesses.connect(local, handle, WAIT_LIMIT_NS));
        long bytes = 8L << 20;   // past the eager limit: waits for the receiver's copy, which never comes
        NetRequest request = send.isend(arena.allocate(bytes), 0, bytes, 1, null);
        killAndAwaitFailure(child, "receiver", request);
        assertNothingLeftInDevShm(child.process().pid());
    }

    /**
     * The request stays pending until the child ({@code role}) is SIGKILLed, then fails with PEER_CLOSED naming the
     * child's pid; prints how long noticing took.
     */
    private static NetException killAndAwaitFailure(Jvm child, String role, NetRequest request) throws Exception {
        for (int i = 0; i < 100; i++) {
            assertThat(request.test()).isEqualTo(NetRequest.NOT_DONE);
        }
        long killedNs = kill(child);
        NetException e = awaitFailure(request);
        System.out.println("noticed the SIGKILLed " + role + " after " + (System.nanoTime() - killedNs) / 1_000_000
                + " ms: " + e.getMessage());
        assertThat(e.reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
        assertThat(e.getMessage()).contains("pid " + child.process().pid());
        return e;
    }

    @Test
    void connectingToAKilledListenerFails() throws Exception {
        Jvm child = child("listener", "listen");
        String line = awaitLine(child, "HANDLE ");
        byte[] handle = HexFormat.of().parseHex(line.split(" ")[1]);
        kill(child);
        ShmTransport local = transport(0);
        NetException e = org.junit.jupiter.api.Assertions.assertThrows(NetException.class,
                () -> local.connect(handle, ProgressSignal.NONE));
        assertThat(e.reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
        assertThat(e.getMessage()).contains("gone");
    }

    private static void assertNothingLeftInDevShm(long pid) throws IOException {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm)) {
            return;
        }
        try (Stream<Path> entries = Files.list(shm)) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.contains("jccl-shm") || n.contains(Long.toString(pid)));
        }
    }

    private ShmTransport transport(int rank) {
        return track((ShmTransport) new ShmTransportProvider().create(loopbackContext(rank, 3, Duration.ofSeconds(30),
                Map.of(ShmOptions.REGISTERED_BYTES, String.valueOf(1 << 20)))));
    }

    private static NetException awaitFailure(NetRequest request) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_LIMIT_NS;
        while (System.nanoTime() - deadline < 0) {
            try {
                if (request.test() != NetRequest.NOT_DONE) {
                    fail("the request completed");
                }
            } catch (NetException e) {
                return e;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the request did not fail within the wait limit");
    }

    private Jvm child(String name, String... args) throws IOException {
        return peers.start(ShmChildMain.class, "shm-peer-death-" + name, args);
    }

    private static String awaitLine(Jvm jvm, String prefix) throws InterruptedException {
        return PeerProcesses.awaitLine(jvm, prefix, WAIT_LIMIT_NS);
    }

    private static long kill(Jvm jvm) throws InterruptedException {
        jvm.process().destroyForcibly();
        long killed = System.nanoTime();
        jvm.process().waitFor();
        return killed;
    }

    private <T extends AutoCloseable> T track(T resource) {
        return peers.track(resource);
    }
}
