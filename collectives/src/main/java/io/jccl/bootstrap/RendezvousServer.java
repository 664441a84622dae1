package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.slf4j.Logger;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The root of a TCP rendezvous: the ranks of one communicator connect to it, prove they know the secret of the
 * {@link io.jccl.UniqueId}, and exchange data in all-gather rounds. Public only so that {@link io.jccl.UniqueId}
 * and tests can start it; applications use {@link io.jccl.UniqueId#create()} and {@link TcpBootstrap}.
 *
 * <h2>Lifecycle</h2>
 * A server serves exactly one communicator initialisation. It listens on one address, accepts connections on a
 * daemon thread ({@code jccl-rendezvous-<port>}) and handles each connection on its own virtual threads. The
 * number of ranks is set by the first rank that joins. The server imposes no deadline for ranks to join (they may
 * arrive minutes apart; the clients' own timeouts bound their waits), but a connection must complete the handshake
 * within the handshake timeout (5 s by default) or it is dropped, so a silent client cannot hold anything up. The
 * server stops listening once every rank has said goodbye, or as soon as the rendezvous fails, or when
 * {@link #close()} is called; connections still in the handshake then are refused with the outcome when they
 * complete it (or time out), and the server's threads end when the last connection has closed.
 *
 * <h2>Wire protocol, version 1</h2>
 * Integers are big-endian. After the first two messages, everything is a <em>frame</em>:
 * {@code type:u8 length:u32 body[length]}, and once the handshake has derived the session keys, also
 * {@code mac[32]}. Each type has fixed bounds for its length, checked before anything is allocated; contributions
 * are at most 16 MiB and texts at most 4 KiB of UTF-8.
 * <ol>
 * <li>client → server, raw: {@code HELLO = magic:u32 "JCCL" (0x4A43434C), version:u16 (1), clientNonce[32]}.
 *     The server answers a wrong magic or version with REFUSE and closes.</li>
 * <li>server → client: {@code CHALLENGE (0x01) = magic:u32, version:u16, serverNonce[32]}.</li>
 * <li>client → server, raw: {@code clientProof[32] = HMAC(secret, "jccl-rendezvous-v1 client-proof" 0x00
 *     clientNonce serverNonce)}. A wrong proof gets REFUSE "authentication failed (wrong secret?)".</li>
 * <li>server → client: {@code ACCEPT (0x02) = serverProof[32]}, the same HMAC with the label
 *     {@code server-proof}. The client checks it, so the server proves it knows the secret too.</li>
 * <li>Both sides now authenticate every frame with
 *     {@code mac = HMAC(key, seq:u64 type:u8 length:u32 body)}, where {@code key} is HMAC(secret,
 *     "jccl-rendezvous-v1 client-to-server-key" 0x00 clientNonce serverNonce) for frames the client sends and
 *     the same with {@code server-to-client-key} for frames the server sends, and {@code seq} counts the frames
 *     sent in that direction from 0. A tampered, reordered, replayed or injected frame fails the check. Payloads
 *     are authenticated, not encrypted.</li>
 * <li>client → server: {@code JOIN (0x10) = rank:u32 size:u32}. The server answers {@code WELCOME (0x20)}, empty,
 *     or REFUSE when the size differs from the first rank's, the rank is out of range or already joined, or the
 *     rendezvous is over. The whole handshake, up to JOIN, must fit in the handshake timeout.</li>
 * <li>All-gather round {@code r} (from 0): every client sends {@code CONTRIBUTE (0x11) = round:u32 data}. When
 *     all {@code size} ranks have contributed, the server sends every client {@code size} frames
 *     {@code ENTRY (0x21) = round:u32 rank:u32 data}, in rank order.</li>
 * <li>A client that has waited too long may send {@code QUERY (0x12) = round:u32}; the server answers
 *     {@code STATUS (0x22) = round:u32 missingCount:u32 missingRank:u32...} (at most 64 ranks listed).</li>
 * <li>client → server: {@code BYE (0x13)}, empty, then the client closes. When all ranks have said goodbye the
 *     rendezvous is complete.</li>
 * <li>client → server: {@code ABORT (0x14) = reason} when a client gives up (its round timed out), so that the
 *     others learn why it left: "rank 0 left the rendezvous: it gave up: ...".</li>
 * <li>server → client: {@code ERROR (0x7E) = reason} when the rendezvous fails, e.g. "rank 2 left the
 *     rendezvous: ..." when a joined rank disconnects without BYE, breaks the protocol, sends a frame that fails
 *     authentication, or says goodbye while others still expect it in a round. Then the server closes.</li>
 * <li>server → client: {@code REFUSE (0x7F) = reason}, plain before the keys exist and authenticated after; the
 *     connection is then closed. Refusals concern only that connection; the other ranks are not disturbed.</li>
 * </ol>
 */
public final class RendezvousServer implements AutoCloseable {
    /** How long a connection may take from accept to its JOIN frame, unless configured otherwise. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    /** The most connections in the handshake at once; further ones wait in the listen backlog. */
    static final int MAX_CONCURRENT_HANDSHAKES = 1024;
    private static final int BACKLOG = 1024;
    private static final Logger LOG = JcclLog.logger(Subsystem.BOOTSTRAP, RendezvousServer.class);

    private final ServerSocket listener;
    private final InetSocketAddress address;
    private final String where;
    private final byte[] secret;
    private final long handshakeTimeoutNs;
    private final RendezvousState state;
    private final Semaphore handshakeSlots = new Semaphore(MAX_CONCURRENT_HANDSHAKES);
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicLong connectionCount = new AtomicLong();
    private final Thread acceptor;
    private volatile boolean ended;
    private volatile boolean acceptorExited;

    private RendezvousServer(ServerSocket listener, InetAddress bindAddress, byte[] secret, Duration handshakeTimeout) {
        this.listener = listener;
        this.address = new InetSocketAddress(bindAddress, listener.getLocalPort());
        this.where = SocketAddresses.format(address);
        this.secret = secret.clone();
        this.handshakeTimeoutNs = handshakeTimeout.toNanos();
        this.state = new RendezvousState(where, this::onEnd);
        this.acceptor = Thread.ofPlatform().daemon().name("jccl-rendezvous-" + address.getPort())
                .unstarted(this::acceptLoop);
    }

    /**
     * Starts a rendezvous on an ephemeral port with the default handshake timeout.
     *
     * @param bindAddress the local address to listen on, which the other ranks must be able to reach
     * @param secret      the 32-byte secret of the unique id
     * @return the running server
     * @throws JcclException INVALID_ARGUMENT for a bad argument, SYSTEM_ERROR when it cannot listen
     */
    public static RendezvousServer start(InetAddress bindAddress, byte[] secret) {
        return start(bindAddress == null ? null : new InetSocketAddress(bindAddress, 0), secret,
                DEFAULT_HANDSHAKE_TIMEOUT);
    }

    /**
     * Starts a rendezvous.
     *
     * @param bind             the local address and port (0 for an ephemeral one) to listen on
     * @param secret           the 32-byte secret of the unique id
     * @param handshakeTimeout how long a connection may take to complete the handshake and join
     * @return the running server
     * @throws JcclException INVALID_ARGUMENT for a bad argument, SYSTEM_ERROR when it cannot listen
     */
    public static RendezvousServer start(InetSocketAddress bind, byte[] secret, Duration handshakeTimeout) {
        if (bind == null || bind.getAddress() == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "bind address " + bind + " is null or unresolved");
        }
        checkSecretAndTimeout(secret, handshakeTimeout);
        ServerSocket listener;
        try {
            listener = new ServerSocket();
            try {
                listener.bind(bind, BACKLOG);
            } catch (IOException e) {
                listener.close();
                throw e;
            }
        } catch (IOException e) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "the rendezvous cannot listen on "
                    + SocketAddresses.format(bind) + ": " + e.getMessage(), e);
        }
        RendezvousServer server = new RendezvousServer(listener, bind.getAddress(), secret, handshakeTimeout);
        server.acceptor.start();
        LOG.debug("rendezvous listening on {}", server.where);
        return server;
    }

    /** @throws JcclException INVALID_ARGUMENT for a secret that is not 32 bytes or a timeout that is not positive */
    private static void checkSecretAndTimeout(byte[] secret, Duration handshakeTimeout) {
        if (secret == null || secret.length != RendezvousProtocol.SECRET_BYTES) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the rendezvous secret must be "
                    + RendezvousProtocol.SECRET_BYTES + " bytes, got " + (secret == null ? "null" : secret.length));
        }
        if (handshakeTimeout == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "handshake timeout " + handshakeTimeout
                    + " must be positive");
        }
    }

    /**
     * Starts a rendezvous on a socket that is already bound and listening (connections that arrived before this
     * call wait in its backlog and are served). The server owns the socket from now on and closes it when it ends.
     *
     * @param listener         the bound socket
     * @param secret           the 32-byte secret ranks must prove they know
     * @param handshakeTimeout how long a connection may take to complete the handshake and join
     * @return the running server
     * @throws JcclException INVALID_ARGUMENT for a bad argument or a socket that is not bound or already closed
     */
    public static RendezvousServer start(ServerSocket listener, byte[] secret, Duration handshakeTimeout) {
        if (listener == null || !listener.isBound() || listener.isClosed()) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the rendezvous socket " + listener
                    + " must be bound and open");
        }
        checkSecretAndTimeout(secret, handshakeTimeout);
        RendezvousServer server = new RendezvousServer(listener, listener.getInetAddress(), secret, handshakeTimeout);
        server.acceptor.start();
        LOG.debug("rendezvous listening on {} (a socket bound earlier)", server.where);
        return server;
    }

    /** @return the address and port the ranks connect to */
    public InetSocketAddress address() {
        return address;
    }

    /** @return whether the server is still accepting or serving ranks */
    public boolean isRunning() {
        return terminated.getCount() > 0;
    }

    /**
     * Waits for the server to end: every rank said goodbye, or the rendezvous failed or was closed, and every
     * connection is closed.
     *
     * @param timeout how long to wait at most
     * @return whether it ended within the timeout
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Stops the rendezvous: ranks still taking part get an error ("the rendezvous was closed"), pending
     * connections are dropped. Does nothing once the rendezvous has ended.
     */
    @Override
    public void close() {
        state.abort("the rendezvous at " + where + " was closed by its owner");
    }

    @Override
    public String toString() {
        return "RendezvousServer[" + where + (isRunning() ? ", running]" : ", ended]");
    }

    String where() {
        return where;
    }

    byte[] secret() {
        return secret;
    }

    long handshakeTimeoutNs() {
        return handshakeTimeoutNs;
    }

    RendezvousState state() {
        return state;
    }

    void releaseHandshakeSlot() {
        handshakeSlots.release();
    }

    void connectionClosed(ServerConnection connection) {
        connections.remove(connection);
        maybeTerminate();
    }

    private void acceptLoop() {
        try {
            while (!ended) {
                handshakeSlots.acquire();
                Socket socket;
                try {
                    socket = listener.accept();
                } catch (IOException e) {
                    handshakeSlots.release();
                    if (ended) {
                        break;
                    }
                    LOG.warn("rendezvous {}: accept failed: {}", where, e.getMessage());
                    Thread.sleep(10);
                    continue;
                }
                try {
                    socket.setTcpNoDelay(true);
                    socket.setKeepAlive(true);
                    ServerConnection connection = new ServerConnection(this, socket,
                            "jccl-rendezvous-" + address.getPort() + "-conn-" + connectionCount.incrementAndGet());
                    connections.add(connection);
                    connection.start();
                } catch (IOException e) {
                    handshakeSlots.release();
                    LOG.warn("rendezvous {}: cannot set up a connection from {}: {}", where,
                            socket.getRemoteSocketAddress(), e.getMessage());
                    closeQuietly(socket);
                }
            }
        } catch (InterruptedException e) {
            // ended: the rendezvous is over
        } finally {
            closeQuietly(listener);
            acceptorExited = true;
            maybeTerminate();
        }
    }

    /**
     * The rendezvous completed or failed: stop accepting. Connections still in the handshake finish it (bounded
     * by the handshake timeout) and are then refused with the outcome, so a rank that arrives just too late
     * learns why.
     */
    private void onEnd() {
        ended = true;
        closeQuietly(listener);
        acceptor.interrupt();
        maybeTerminate();
    }

    private void maybeTerminate() {
        if (ended && acceptorExited && connections.isEmpty() && terminated.getCount() > 0) {
            terminated.countDown();
            LOG.debug("rendezvous {} stopped", where);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
