package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.conn.Connection;
import io.jccl.metaroce.protocol.wire.HeaderFlyweight;
import io.jccl.metaroce.protocol.wire.PacketType;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.Object2LongHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Drives one MetaRoCE {@link Endpoint} over UDP: one non-blocking socket, with its own source port, per logical
 * path. Path {@code p} of a connection sends from this side's socket {@code p} to the peer's socket {@code p}, so
 * each path is a distinct 5-tuple (its own ECMP route); re-routing a path binds a new socket (a new source port).
 *
 * <p><b>Addresses.</b> A peer is known by the addresses of its path sockets ({@link #addPeer}, from the
 * rendezvous), and after that by where its datagrams come from: replies on path {@code p} go to the address the
 * peer's path {@code p} last sent from, once a datagram from there was accepted by the endpoint (authenticated by
 * its session tag and CRC), so a peer's re-route is followed without being told. A handshake from an unknown
 * address creates a peer.
 *
 * <p><b>Threading.</b> This first cut is the invoker mode: one thread calls {@link #doWork()} in a loop (or an
 * Agrona {@code AgentRunner} does) and posts work to {@link #endpoint()} from that same thread.
 */
public final class UdpDriver implements Agent, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(UdpDriver.class.getName());
    private static final int MAX_DATAGRAM = 65536;
    private static final long NO_PEER = -1;

    private final Endpoint endpoint;
    private final UdpDriverConfig config;
    private final NanoClock clock;
    private final DatagramChannel[] sockets;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM);
    private final UnsafeBuffer receiveView = new UnsafeBuffer(receiveBuffer);
    private final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(MAX_DATAGRAM);
    private final Long2ObjectHashMap<InetSocketAddress[]> returnAddresses = new Long2ObjectHashMap<>();
    private final Object2LongHashMap<InetSocketAddress> peerOfAddress = new Object2LongHashMap<>(NO_PEER);
    private final Sink sink = new Sink();
    private long nextPeerId = 1;
    private int grantedReceiveBufferBytes;
    private int grantedSendBufferBytes;

    private long datagramsSent;
    private long datagramsReceived;
    private long sendsRefused;
    private long ioErrors;
    private long unknownDestinations;
    private long socketsRebound;

    /**
     * Opens one socket per path of {@code endpointConfig}.
     *
     * @param endpointConfig the protocol settings (its {@code paths} sets the number of sockets)
     * @param config         socket settings
     * @param random         the endpoint's random source (connection ids, nonces, session tags): a
     *                       {@link java.security.SecureRandom} outside tests
     * @param clock          the clock the endpoint runs on
     * @throws UncheckedIOException when a socket cannot be opened or bound (nothing stays open)
     */
    public UdpDriver(EndpointConfig endpointConfig, UdpDriverConfig config, RandomGenerator random, NanoClock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.endpoint = new Endpoint(endpointConfig, random);
        this.sockets = new DatagramChannel[endpointConfig.paths()];
        try {
            for (int p = 0; p < sockets.length; p++) {
                sockets[p] = open();
            }
        } catch (IOException | RuntimeException e) {
            closeAll();
            throw new UncheckedIOException(new IOException("cannot open " + sockets.length + " UDP sockets on "
                    + config.bindAddress().getHostAddress() + ": " + e.getMessage(), e));
        }
        if (grantedReceiveBufferBytes < config.socketBufferBytes()) {
            LOG.log(System.Logger.Level.WARNING, "the kernel granted UDP receive buffers of " + grantedReceiveBufferBytes
                    + " bytes, not the " + config.socketBufferBytes() + " asked for: bursts may be dropped (raise "
                    + "net.core.rmem_max)");
        }
    }

    private DatagramChannel open() throws IOException {
        DatagramChannel ch = UdpSockets.open(config.bindAddress(), config.socketBufferBytes());
        grantedReceiveBufferBytes = ch.getOption(StandardSocketOptions.SO_RCVBUF);
        grantedSendBufferBytes = ch.getOption(StandardSocketOptions.SO_SNDBUF);
        return ch;
    }

    /** @return the endpoint this driver runs; post work to it from the thread that calls {@link #doWork()} */
    public Endpoint endpoint() {
        return endpoint;
    }

    /** @return the address of each path socket, in path order: what a peer passes to {@link #addPeer} */
    public List<InetSocketAddress> localAddresses() {
        return UdpSockets.localAddresses(sockets);
    }

    /**
     * Makes a peer known by the addresses of its path sockets (its {@link #localAddresses()}).
     *
     * @param pathAddresses one per path, in path order
     * @return the peer's id, for {@link Endpoint#connect} and {@link Endpoint#connectionTo}
     * @throws IllegalArgumentException when the count does not match this side's paths, or an address is
     *                                  unresolved
     */
    public long addPeer(List<InetSocketAddress> pathAddresses) {
        Objects.requireNonNull(pathAddresses, "pathAddresses");
        if (pathAddresses.size() != sockets.length) {
            throw new IllegalArgumentException("addPeer: " + pathAddresses.size() + " path addresses for "
                    + sockets.length + " paths");
        }
        for (InetSocketAddress a : pathAddresses) {
            if (a == null || a.isUnresolved()) {
                throw new IllegalArgumentException("addPeer: address " + a + " is not a resolved socket address");
            }
        }
        long known = peerOfAddress.getValue(pathAddresses.getFirst());
        if (known != NO_PEER) {
            return known;
        }
        long peer = nextPeerId++;
        InetSocketAddress[] to = pathAddresses.toArray(new InetSocketAddress[0]);
        returnAddresses.put(peer, to);
        for (InetSocketAddress a : to) {
            peerOfAddress.put(a, peer);
        }
        return peer;
    }

    @Override
    public String roleName() {
        return "metaroce-udp";
    }

    /**
     * One round: reads what arrived on every socket (at most {@code receiveBatch} datagrams each), runs expired
     * timers, sends what the endpoint has to send.
     *
     * @return datagrams received and sent (0: idle)
     */
    @Override
    public int doWork() {
        long nowNs = clock.nanoTime();
        int work = 0;
        for (int p = 0; p < sockets.length; p++) {
            work += receive(p, nowNs);
        }
        if (endpoint.nextTimeoutNs() <= nowNs) {
            endpoint.onTimeout(nowNs);
        }
        work += endpoint.pollTransmit(nowNs, sink);
        return work;
    }

    private int receive(int path, long nowNs) {
        DatagramChannel ch = sockets[path];
        int n = 0;
        while (n < config.receiveBatch()) {
            SocketAddress from;
            receiveBuffer.clear();
            try {
                from = ch.receive(receiveBuffer);
            } catch (IOException e) {
                ioErrors++;   // e.g. an ICMP error queued on the socket; the next datagram is unaffected
                break;
            }
            if (from == null) {
                break;
            }
            n++;
            datagramsReceived++;
            onDatagram(path, (InetSocketAddress) from, receiveBuffer.position(), nowNs);
        }
        return n;
    }

    private void onDatagram(int path, InetSocketAddress from, int length, long nowNs) {
        long peer = peerOfAddress.getValue(from);
        boolean handshake = length > HeaderFlyweight.TYPE_FIELD_OFFSET
                && (receiveView.getByte(HeaderFlyweight.TYPE_FIELD_OFFSET) & 0xFF) == PacketType.HANDSHAKE_INIT;
        long source = peer != NO_PEER ? peer : handshake ? nextPeerId : NO_PEER;
        int connectionId = length >= HeaderFlyweight.HEADER_LENGTH
                ? receiveView.getInt(HeaderFlyweight.CONNECTION_ID_FIELD_OFFSET, HeaderFlyweight.BYTE_ORDER) : 0;
        long dropsBefore = endpoint.counters().totalDrops();
        endpoint.onDatagram(nowNs, source, path, receiveView, 0, length, false);
        if (endpoint.counters().totalDrops() != dropsBefore) {
            return;   // not accepted: learn nothing from where it came from
        }
        if (peer == NO_PEER && handshake) {
            if (endpoint.connectionTo(source) >= 0) {   // a new peer
                nextPeerId++;
                InetSocketAddress[] to = new InetSocketAddress[sockets.length];
                java.util.Arrays.fill(to, from);   // until each path's own source is seen
                returnAddresses.put(source, to);
                peerOfAddress.put(from, source);
            }
            return;
        }
        if (peer == NO_PEER) {
            Connection c = endpoint.connection(connectionId);   // a known peer from a new source (its re-route)
            if (c == null) {
                return;
            }
            peer = c.peer;
            peerOfAddress.put(from, peer);
        }
        InetSocketAddress[] to = returnAddresses.get(peer);
        if (to != null && !from.equals(to[path])) {
            InetSocketAddress old = to[path];
            to[path] = from;
            forgetUnless(old, to);   // a re-routed path's old source: keep the address map bounded
        }
    }

    private void forgetUnless(InetSocketAddress address, InetSocketAddress[] stillUsed) {
        for (InetSocketAddress a : stillUsed) {
            if (a.equals(address)) {
                return;
            }
        }
        peerOfAddress.removeKey(address);
    }

    private final class Sink implements TransmitSink {
        @Override
        public void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length) {
            InetSocketAddress[] to = returnAddresses.get(destination);
            if (to == null) {
                unknownDestinations++;
                return;
            }
            sendBuffer.clear();
            buffer.getBytes(offset, sendBuffer, length);
            sendBuffer.flip();
            try {
                if (sockets[pathIndex].send(sendBuffer, to[pathIndex]) == 0) {
                    sendsRefused++;   // the socket's send buffer is full: a loss the protocol repairs
                } else {
                    datagramsSent++;
                }
            } catch (IOException e) {
                ioErrors++;
            }
        }

        @Override
        public void reroute(long destination, int pathIndex, int generation) {
            try {
                DatagramChannel fresh = open();
                DatagramChannel old = sockets[pathIndex];
                sockets[pathIndex] = fresh;
                old.close();
                socketsRebound++;
            } catch (IOException e) {
                ioErrors++;   // keep the old socket: the path keeps its route and is probed again later
            }
        }
    }

    /** @return datagrams handed to the kernel */
    public long datagramsSent() {
        return datagramsSent;
    }

    /** @return datagrams read from the sockets */
    public long datagramsReceived() {
        return datagramsReceived;
    }

    /** @return datagrams the kernel did not take (send buffer full) */
    public long sendsRefused() {
        return sendsRefused;
    }

    /** @return socket errors on send or receive */
    public long ioErrors() {
        return ioErrors;
    }

    /** @return datagrams for a peer with no known address */
    public long unknownDestinations() {
        return unknownDestinations;
    }

    /** @return path sockets replaced by a re-route */
    public long socketsRebound() {
        return socketsRebound;
    }

    /** @return the receive buffer the kernel granted per socket (Linux reports twice what it books) */
    public int grantedReceiveBufferBytes() {
        return grantedReceiveBufferBytes;
    }

    /** @return the send buffer the kernel granted per socket */
    public int grantedSendBufferBytes() {
        return grantedSendBufferBytes;
    }

    @Override
    public void onClose() {
        closeAll();
    }

    /** Closes every socket. The endpoint's pending work is not completed: close its connections first. */
    @Override
    public void close() {
        closeAll();
    }

    private void closeAll() {
        for (DatagramChannel ch : sockets) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException e) {
                    ioErrors++;
                }
            }
        }
    }
}
