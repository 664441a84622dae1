package io.jccl.bootstrap;

import io.jccl.UniqueId;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** A rendezvous server on loopback for tests, with its id and secret. */
final class TestRendezvous implements AutoCloseable {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final SecureRandom RANDOM = new SecureRandom();

    final RendezvousServer server;
    final byte[] secret;
    final UniqueId id;

    private TestRendezvous(RendezvousServer server, byte[] secret) {
        this.server = server;
        this.secret = secret;
        this.id = UniqueId.of(server.address(), secret);
    }

    static TestRendezvous start() {
        return start(RendezvousServer.DEFAULT_HANDSHAKE_TIMEOUT);
    }

    static TestRendezvous start(Duration handshakeTimeout) {
        return start(0, handshakeTimeout);
    }

    static TestRendezvous start(int port, Duration handshakeTimeout) {
        byte[] secret = randomSecret();
        return new TestRendezvous(RendezvousServer.start(new InetSocketAddress(LOOPBACK, port), secret,
                handshakeTimeout), secret);
    }

    static byte[] randomSecret() {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        return secret;
    }

    /** What a test does with a rendezvous. */
    @FunctionalInterface
    interface RendezvousBody {
        void run(TestRendezvous rv) throws Exception;
    }

    /**
     * Starts a rendezvous, runs {@code body} with it, then checks that the server ended by itself (the ranks left or
     * failed it), and closes it.
     *
     * @param body the test
     * @throws Exception what {@code body} throws
     */
    static void runToItsEnd(RendezvousBody body) throws Exception {
        try (TestRendezvous rv = start()) {
            body.run(rv);
            rv.assertTerminates();
        }
    }

    /** What one rank does once joined to the rendezvous; its bootstrap is closed after it. */
    @FunctionalInterface
    interface JoinedRank<T> {
        T run(int rank, TcpBootstrap bootstrap);
    }

    /**
     * Runs {@code n} ranks as threads ({@link Ranks#run}), each joined to this rendezvous (with
     * {@link TcpRendezvousTest#TIMEOUT}) for its body.
     */
    <T> List<CompletableFuture<T>> runJoined(int n, JoinedRank<T> body) {
        return Ranks.run(n, rank -> {
            try (TcpBootstrap bootstrap = TcpBootstrap.join(id, rank, n, TcpRendezvousTest.TIMEOUT)) {
                return body.run(rank, bootstrap);
            }
        });
    }

    /** A loopback port that was free a moment ago: nothing listens on it (until something takes it). */
    static int unusedPort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, LOOPBACK)) {
            return probe.getLocalPort();
        }
    }

    /** An id with this rendezvous's address but another secret. */
    UniqueId wrongSecret() {
        return UniqueId.of(server.address(), randomSecret());
    }

    /** An id that points at {@code address} (e.g. a proxy) with this rendezvous's secret. */
    UniqueId via(InetSocketAddress address) {
        return UniqueId.of(address, secret);
    }

    void assertTerminates() throws InterruptedException {
        assertThat(server.awaitTermination(Duration.ofSeconds(30))).as("the server ends").isTrue();
        assertThat(server.isRunning()).isFalse();
    }

    @Override
    public void close() {
        server.close();
    }
}
