package io.jccl.net.aeronipc;

import static io.jccl.net.NetTransportConformanceTest.loopbackContext;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;
import io.jccl.testing.JvmProcesses.Jvm;
import io.jccl.testing.PeerProcesses;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The media driver's election, reuse and crash cleanup, and peer-death detection, with real child JVMs that are
 * killed with SIGKILL ({@link Process#destroyForcibly()}).
 */
@Tag("integration")
class AeronIpcDriverTest {
    /** How fast a dead peer must be noticed; the transport looks every 50 ms, the rest is slack for a busy host. */
    private static final long DETECTION_LIMIT_MS = 5_000;

    @TempDir
    Path temp;
    private final PeerProcesses peers = new PeerProcesses();
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void cleanUp() throws Exception {
        peers.cleanUp();
        AeronIpcDriver.shutdownIfUnused(temp.resolve("aeron"));
        arena.close();
    }

    @Test
    void transportsOfOneJvmShareOneDriverThatThisJvmHosts() throws Exception {
        Path dir = temp.resolve("aeron");
        AeronIpcTransport a = transport(dir, 0);
        AeronIpcTransport b = transport(dir, 1);
        assertThat(a.driver()).isSameAs(b.driver());
        assertThat(a.driver().hostsDriver()).isTrue();
        assertThat(a.driver().ownerPid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(Files.readString(temp.resolve("aeron.lock")).strip())
                .isEqualTo(Long.toString(ProcessHandle.current().pid()));
        assertMessageGoesThrough(a, b);
    }

    @Test
    void staleDirectoryWithAFreeLockIsCleanedByTheNextDriver() throws Exception {
        Path dir = temp.resolve("aeron");
        Files.createDirectories(dir);
        Files.write(dir.resolve("cnc.dat"), new byte[4096]);   // what a crashed driver might leave
        Files.writeString(temp.resolve("aeron.lock"), "999999999\n");
        AeronIpcTransport a = transport(dir, 0);
        assertThat(a.driver().hostsDriver()).isTrue();
        assertMessageGoesThrough(a, transport(dir, 1));
    }

    /**
     * A child hosts the driver; this JVM joins it and sends to the child, which never receives; the child is
     * SIGKILLed: the stalled send fails promptly, and the next transport here starts a fresh driver in the same
     * directory.
     */
    @Test
    void afterTheDriverHostIsKilledSendsFailPromptlyAndANewDriverStartsInTheSameDirectory() throws Exception {
        Path dir = temp.resolve("aeron");
        Jvm child = child("host", "listen", dir.toString());
        String line = awaitLine(child, "HANDLE ");
        assertThat(line).endsWith("HOSTS true");
        byte[] handle = HexFormat.of().parseHex(line.split(" ")[1]);

        AeronIpcTransport joined = transport(dir, 0);
        assertThat(joined.driver().hostsDriver()).as("this JVM joins the child's driver").isFalse();
        assertThat(joined.driver().ownerPid()).isEqualTo(child.process().pid());
        SendConnection send = track(PeerProcesses.connect(joined, handle, 30_000_000_000L));
        long bytes = 16L << 20;   // 16 times the child's 1 MiB term: stalls, as the child never receives
        NetRequest request = send.isend(arena.allocate(bytes), 0, bytes, 1, null);
        NetException e = killAndAwaitFailure(child, request);
        assertThat(e.reason()).isIn(NetException.Reason.PEER_CLOSED, NetException.Reason.IO_ERROR);
        assertThat(e.getMessage()).contains("pid " + child.process().pid());

        AeronIpcTransport fresh = transport(dir, 1);
        assertThat(fresh.driver()).isNotSameAs(joined.driver());
        assertThat(fresh.driver().hostsDriver()).as("a fresh driver, hosted here").isTrue();
        assertMessageGoesThrough(fresh, transport(dir, 2));
    }

    /** This JVM hosts the driver and receives from a child that is SIGKILLed while the receive waits. */
    @Test
    void peerKilledMidReceiveFailsTheReceivePromptly() throws Exception {
        Path dir = temp.resolve("aeron");
        AeronIpcTransport local = transport(dir, 0);
        Listener listener = track(local.listen(ProgressSignal.NONE));
        Jvm child = child("sender", "connect", dir.toString(), HexFormat.of().formatHex(listener.handle()));
        RecvConnection recv = peers.acceptFrom(child, listener, 30_000_000_000L);
        awaitLine(child, "CONNECTED");
        NetRequest request = recv.irecv(arena.allocate(1024), 0, 1024, 1, null);
        NetException e = killAndAwaitFailure(child, request);
        assertThat(e.reason()).isEqualTo(NetException.Reason.PEER_CLOSED);
        assertThat(e.getMessage()).contains("pid " + child.process().pid()).contains("gone");
    }

    private AeronIpcTransport transport(Path dir, int rank) {
        return track((AeronIpcTransport) new AeronIpcTransportProvider().create(
                loopbackContext(rank, 3, Duration.ofSeconds(20),
                Map.of(AeronIpcOptions.DIR, dir.toString(), AeronIpcOptions.TERM_BYTES, String.valueOf(1 << 20)))));
    }

    private void assertMessageGoesThrough(NetTransport from, NetTransport to) {
        Listener listener = track(to.listen(ProgressSignal.NONE));
        PendingConnect pending = from.connect(listener.handle(), ProgressSignal.NONE);
        SendConnection send = null;
        RecvConnection recv = null;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (send == null || recv == null) {
            send = send == null ? pending.poll() : send;
            recv = recv == null ? listener.accept() : recv;
            if (System.nanoTime() - deadline > 0) {
                fail("connect and accept did not complete");
            }
        }
        track(send);
        track(recv);
        MemorySegment src = arena.allocate(100_000);
        for (int i = 0; i < src.byteSize(); i++) {
            src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        MemorySegment dst = arena.allocate(100_000);
        NetRequest s = send.isend(src, 0, src.byteSize(), 5, null);
        NetRequest r = recv.irecv(dst, 0, dst.byteSize(), 5, null);
        boolean sDone = false;
        boolean rDone = false;
        while (!sDone || !rDone) {
            sDone = sDone || s.test() != NetRequest.NOT_DONE;
            rDone = rDone || r.test() != NetRequest.NOT_DONE;
            if (System.nanoTime() - deadline > 0) {
                fail("message did not go through");
            }
        }
        assertThat(dst.mismatch(src)).isEqualTo(-1L);
    }

    private Jvm child(String name, String... args) throws Exception {
        return peers.start(AeronIpcChildMain.class, "aeron-ipc-driver-test-" + name, args);
    }

    /**
     * Checks that {@code request} is stalled on the child, SIGKILLs the child, and waits for the request to fail
     * within {@link #DETECTION_LIMIT_MS}.
     *
     * @return the failure
     */
    private static NetException killAndAwaitFailure(Jvm child, NetRequest request) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            assertThat(request.test()).isEqualTo(NetRequest.NOT_DONE);
        }
        long killedNs = kill(child);
        NetException e = awaitFailure(request::test);
        long detectionMs = (System.nanoTime() - killedNs) / 1_000_000;
        System.out.println("noticed the SIGKILLed peer after " + detectionMs + " ms: " + e.getMessage());
        assertThat(detectionMs).as("ms to notice the dead peer").isLessThan(DETECTION_LIMIT_MS);
        return e;
    }

    private static long kill(Jvm child) throws InterruptedException {
        child.process().destroyForcibly();
        child.process().waitFor();
        return System.nanoTime();
    }

    private static String awaitLine(Jvm child, String prefix) throws InterruptedException {
        return PeerProcesses.awaitLine(child, prefix, 30_000_000_000L);
    }

    private static NetException awaitFailure(Supplier<Long> test) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() - deadline < 0) {
            try {
                test.get();
            } catch (NetException e) {
                return e;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the request never failed");
    }

    private <T extends AutoCloseable> T track(T resource) {
        return peers.track(resource);
    }
}
