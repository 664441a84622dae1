package io.jccl.net.tcp;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetProperties;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.TransportContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * One rank's TCP transport: listeners, connection attempts and connections over non-blocking
 * {@link SocketChannel}s, progressed by the caller inside {@link io.jccl.net.NetRequest#test()}; it starts no
 * threads and never calls the {@link ProgressSignal}s it is given. The driving thread may sleep until a socket
 * that a pending request waits on is ready ({@link #awaitProgress}: one {@link Selector}, each socket registered
 * for exactly what its connection's progress waits for, so readiness is never news that nobody takes).
 */
final class TcpNetTransport implements NetTransport {
    /** Sustained bandwidth reported to the tuner: a 10 Gbit/s network (a constant, not measured). */
    static final long SPEED_MBPS = 10_000;
    /** One-way small-message latency reported to the tuner, typical of TCP across a data-centre network. */
    static final double LATENCY_US = 30.0;

    private static final NetProperties PROPERTIES = new NetProperties("tcp", SPEED_MBPS, LATENCY_US,
            TcpConnection.MAX_INFLIGHT_REQUESTS, Wire.MAX_MESSAGE_BYTES, false);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Longer connect timeouts are cut to this, which keeps deadline arithmetic from overflowing. */
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, TcpNetTransport.class);

    private final TransportContext context;
    private final SocketTuning tuning;
    private final TcpOptions options;
    private final long connectTimeoutNanos;
    private final Set<Object> resources = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** The open connections, for {@link #awaitProgress}; replaced (copy on write) under this transport's lock. */
    private volatile TcpConnection[] connections = new TcpConnection[0];
    /** Opened by the first {@link #awaitProgress}; used by the driving thread only (and woken from any). */
    private volatile Selector selector;
    private static final Consumer<SelectionKey> IGNORE_KEY = key -> { };
    /** True while the driving thread sleeps in {@link #awaitProgress}: only then does {@link #wakeUp} call the kernel. */
    private volatile boolean selecting;
    private volatile boolean wakeRequested;
    /** The first listener, whose token this rank's hellos carry as the sender's; null before {@link #listen}. */
    private volatile TcpListener ownListener;
    private volatile byte[] ownToken;
    /** Accepted connections whose peers offered their sockets for the other direction, not yet taken. */
    private final List<Offer> offers = new ArrayList<>();

    /** An accepted connection offered for both directions, by the token of the peer's listener. */
    private record Offer(byte[] peerToken, TcpRecvConnection recv) {
    }

    /**
     * @param context the rank's context
     * @throws IllegalArgumentException when an option is invalid
     */
    TcpNetTransport(TransportContext context) {
        this.context = Objects.requireNonNull(context, "context");
        Objects.requireNonNull(context.bindAddress(), "context.bindAddress");
        this.connectTimeoutNanos = context.connectTimeoutNanos();
        this.options = TcpOptions.parse(context.options());
        this.tuning = new SocketTuning(options.socketBufferBytes());
    }

    @Override
    public NetProperties properties() {
        return PROPERTIES;
    }

    @Override
    public Listener listen(ProgressSignal signal) {
        checkOpen();
        if (context.bindAddress().isAnyLocalAddress()) {
            LOG.warn("rank {} listens on the wildcard address {}: its handle only works for peers on this host;"
                    + " choose an interface (JCCL_SOCKET_IFNAME)", context.self().rank(), context.bindAddress());
        }
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open();
            server.configureBlocking(false);
            tuning.configureListening(server);
            // Room in the backlog for every peer's sockets at once, if they all use this rank's socket count.
            server.bind(new InetSocketAddress(context.bindAddress(), 0),
                    Math.max(128, context.size() * options.socketsPerConnection()));
            byte[] token = new byte[Wire.TOKEN_BYTES];
            RANDOM.nextBytes(token);
            TcpListener listener = new TcpListener(this, server,
                    new TcpHandle((InetSocketAddress) server.getLocalAddress(), token));
            register(listener);
            if (ownListener == null) {
                ownToken = token;
                ownListener = listener;
            }
            return listener;
        } catch (IOException e) {
            Quietly.close(server);
            throw new NetException(NetException.Reason.IO_ERROR, "rank " + context.self().rank()
                    + " cannot listen on " + context.bindAddress() + ": " + e, e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>When this rank has accepted a connection from that peer that the peer offered for both directions, and no
     * earlier connect took it, the connection sends over its sockets (a REVERSE hello on each, then the messages);
     * otherwise it opens sockets of its own and offers them to the peer.
     */
    @Override
    public PendingConnect connect(byte[] peerHandle, ProgressSignal signal) {
        checkOpen();
        TcpHandle handle = TcpHandle.decode(peerHandle);
        long connectionId = RANDOM.nextLong();
        byte[] own = options.duplex() ? ownToken : null;
        byte[] peerToken = handle.token().bytes();   // a copy: one for every hello below
        TcpRecvConnection offered = own == null ? null : takeOffer(peerToken);
        if (offered != null) {
            SocketChannel[] channels = offered.channels.clone();
            ByteBuffer[] hellos = new ByteBuffer[channels.length];
            boolean[] connected = new boolean[channels.length];
            for (int i = 0; i < channels.length; i++) {
                hellos[i] = ByteBuffer.allocate(Wire.HELLO_BYTES);
                Wire.putHello(hellos[i], Wire.FLAG_REVERSE, context.self().rank(), i, channels.length, connectionId,
                        peerToken, own);
                hellos[i].flip();
                connected[i] = true;
            }
            TcpPendingConnect pending = new TcpPendingConnect(this, channels, handle.address(), hellos, connected,
                    offered, false);
            register(pending);
            return pending;
        }
        // An offered connection also carries the peer's direction: a shared socket and each direction's bulk sockets.
        int count = own == null ? options.socketsPerConnection() : 1 + 2 * options.socketsPerConnection();
        SocketChannel[] channels = new SocketChannel[count];
        ByteBuffer[] hellos = new ByteBuffer[count];
        boolean[] connected = new boolean[count];
        try {
            for (int i = 0; i < count; i++) {
                hellos[i] = ByteBuffer.allocate(Wire.HELLO_BYTES);
                Wire.putHello(hellos[i], own == null ? 0 : Wire.FLAG_OFFER, context.self().rank(), i, count,
                        connectionId, peerToken, own == null ? new byte[Wire.TOKEN_BYTES] : own);
                hellos[i].flip();
                channels[i] = SocketChannel.open();
                channels[i].configureBlocking(false);
                tuning.configure(channels[i]);
                connected[i] = channels[i].connect(handle.address());
            }
            TcpPendingConnect pending = new TcpPendingConnect(this, channels, handle.address(), hellos, connected,
                    null, own != null);
            register(pending);
            return pending;
        } catch (IOException e) {
            for (SocketChannel channel : channels) {
                Quietly.close(channel);
            }
            throw new NetException(NetException.Reason.IO_ERROR, "rank " + context.self().rank()
                    + " cannot connect to " + handle.address() + ": " + e, e);
        }
    }

    /**
     * Wraps connected sockets whose hellos were sent.
     *
     * @param sharedWith the receive connection whose sockets these are (REVERSE), or null
     * @param offered    whether the hellos offered the sockets to the peer for the other direction
     */
    TcpSendConnection openSend(SocketChannel[] channels, InetSocketAddress peer, TcpRecvConnection sharedWith,
                               boolean offered) {
        TcpSendConnection connection = new TcpSendConnection(channels, "tcp send connection rank "
                + context.self().rank() + " -> " + peer + sockets(channels)
                + (sharedWith != null ? " (over the sockets of " + sharedWith + ")" : ""), this, options,
                sharedWith != null || offered ? SocketLayout.shared(channels.length, offered) : SocketLayout.ONE_WAY);
        register(connection);
        if (sharedWith != null) {
            ChannelShare share = new ChannelShare(channels);
            share.attach(sharedWith);
            share.attach(connection);
        } else if (offered) {
            TcpListener listener = ownListener;
            if (listener != null) {
                listener.expectReverse(connection, channels, String.valueOf(peer));
            }
        }
        return connection;
    }

    /**
     * Records an accepted connection whose peer offered its sockets for the other direction (only where this rank
     * takes offers: with the option off, nothing would ever remove it).
     */
    void offered(byte[] peerToken, TcpRecvConnection recv) {
        if (!options.duplex() || Arrays.equals(peerToken, new byte[Wire.TOKEN_BYTES])) {
            return;
        }
        synchronized (offers) {
            offers.add(new Offer(peerToken, recv));
        }
    }

    /** @return the oldest open offered connection from the listener with that token, now taken; or null */
    private TcpRecvConnection takeOffer(byte[] peerToken) {
        synchronized (offers) {
            for (int i = 0; i < offers.size(); i++) {
                Offer offer = offers.get(i);
                if (offer.recv().isClosed() || offer.recv().share() != null) {
                    offers.remove(i--);
                } else if (Arrays.equals(offer.peerToken(), peerToken)) {
                    offers.remove(i);
                    return offer.recv();
                }
            }
            return null;
        }
    }

    /** One socket per peer carries both directions when this rank connects after accepting (see {@link #connect}). */
    @Override
    public boolean reusesAcceptedConnections() {
        return options.duplex();
    }

    /** Wraps accepted sockets whose hellos were valid and agree. */
    TcpRecvConnection openRecv(SocketChannel[] channels, int peerRank, String remote, SocketLayout layout) {
        TcpRecvConnection connection = new TcpRecvConnection(channels, peerRank, "tcp receive connection rank "
                + context.self().rank() + " <- rank " + peerRank + " at " + remote + sockets(channels), this, layout);
        register(connection);
        return connection;
    }

    private static String sockets(SocketChannel[] channels) {
        return channels.length == 1 ? "" : " (" + channels.length + " sockets)";
    }

    SocketTuning tuning() {
        return tuning;
    }

    long connectTimeoutNanos() {
        return connectTimeoutNanos;
    }

    private void register(Object resource) {
        resources.add(resource);
        if (resource instanceof TcpConnection connection) {
            synchronized (this) {
                TcpConnection[] now = connections;
                TcpConnection[] next = Arrays.copyOf(now, now.length + 1);
                next[now.length] = connection;
                connections = next;
            }
        }
        if (closed) {
            closeResource(resource);
            throw new NetException(NetException.Reason.CLOSED, "tcp transport of rank " + context.self().rank()
                    + " is closed");
        }
    }

    /** Stops tracking a resource that closed itself. */
    void forget(Object resource) {
        resources.remove(resource);
        if (resource instanceof TcpConnection connection) {
            synchronized (this) {
                connections = Arrays.stream(connections).filter(c -> c != connection)
                        .toArray(TcpConnection[]::new);
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, "tcp transport of rank " + context.self().rank()
                    + " is closed");
        }
    }

    /**
     * Sleeps until a socket that a pending request waits on is ready (data, room in the send buffer, the peer's end
     * of stream), {@link #wakeUp()}, or the timeout (rounded up to a millisecond, the selector's unit).
     */
    @Override
    public boolean awaitProgress(long timeoutNs) {
        if (closed || timeoutNs <= 0) {
            return true;
        }
        Selector s = selector;
        if (s == null) {
            try {
                s = Selector.open();
            } catch (IOException e) {
                LOG.warn("rank {}: cannot open a selector to wait on the tcp sockets; the thread parks instead ({})",
                        context.self().rank(), e.toString());
                return false;
            }
            selector = s;
            if (closed) {
                Quietly.close(s);
                return true;
            }
        }
        selecting = true;
        try {
            if (wakeRequested) {
                return true;
            }
            for (TcpConnection c : connections) {
                c.watch(s);
            }
            // The form with an action adds no key to the selected-key set (a HashSet node each time): the sleep
            // allocates nothing, and the caller polls every connection after it anyway.
            s.select(IGNORE_KEY, Math.max(1, (timeoutNs + 999_999) / 1_000_000));
        } catch (IOException | ClosedSelectorException e) {
            return true;   // closed under us: the caller polls and finds out
        } finally {
            selecting = false;
            wakeRequested = false;
        }
        return true;
    }

    /**
     * Measured on 2 rank JVMs on 2 cores (docs/performance.md): an executor that slept on the sockets right after its
     * spin woke milliseconds after the data arrived (a woken thread waits for a core that two spinning callers
     * hold), which doubled a 2-rank 8 B all-reduce while the JIT was still at work (-w 2000 -n 5000: 110-130 us
     * against 51-57 us polling); polling first for 5 ms matched pure polling (64 us) and still sleeps through long
     * waits.
     */
    static final long POLL_BEFORE_SLEEP_NS = 5_000_000;

    @Override
    public long pollBeforeAwaitNs() {
        return POLL_BEFORE_SLEEP_NS;
    }

    /** @return whether a thread sleeps in {@link #awaitProgress} now (tests) */
    boolean sleeping() {
        return selecting;
    }

    @Override
    public void wakeUp() {
        wakeRequested = true;
        if (selecting) {
            Selector s = selector;
            if (s != null) {
                s.wakeup();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Object resource : List.copyOf(resources)) {
            closeResource(resource);
        }
        Selector s = selector;
        if (s != null) {
            Quietly.close(s);   // also ends a select in progress
        }
    }

    private static void closeResource(Object resource) {
        switch (resource) {
            case Listener listener -> listener.close();
            case PendingConnect pending -> pending.cancel();
            case TcpConnection connection -> connection.close();
            default -> throw new IllegalStateException("unknown resource " + resource);
        }
    }

    @Override
    public String toString() {
        return "tcp transport of rank " + context.self().rank();
    }
}
