package io.jccl.metaroce.udp;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.metaroce.offload.MetaRoceDataPath;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.conn.Connection;
import io.jccl.metaroce.protocol.wire.HeaderFlyweight;
import io.jccl.metaroce.protocol.wire.PacketType;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Drives one MetaRoCE {@link Endpoint} over UDP: one non-blocking socket, with its own source port, per logical
 * path. Path {@code p} of a connection sends from this side's socket {@code p} to the peer's socket {@code p}, so
 * each path is a distinct 5-tuple (its own ECMP route); re-routing a path gives that peer's path a socket of its own
 * (a new source port), so the other peers' paths, and the addresses published for this endpoint, stay as they were.
 *
 * <p><b>I/O.</b> Each path socket is a {@code DatagramIo}, one of two methods ({@link UdpDriverConfig#io()},
 * {@link #ioMethod()}):
 * <ul>
 *   <li>{@link IoMethod#NATIVE} (Linux x86_64/aarch64, IPv4): system calls through the Foreign Function &amp; Memory
 *   API. Each round reads up to {@code receiveBatch} datagrams per socket with {@code recvmmsg} into preallocated
 *   off-heap slots; what the endpoint transmits is copied into a per-path send batch that goes to the kernel in one
 *   {@code sendmmsg} when full and at the end of every {@link #doWork()}. Runs of equal-sized datagrams to one
 *   destination go as one UDP GSO message ({@code UDP_SEGMENT}); with UDP GRO the kernel may coalesce what arrives
 *   and the driver cuts it again at the segment size. Sockets send ECT(0) and report the ECN bits of what arrives,
 *   so a CE mark reaches the endpoint ({@code ecnMarked}) and its congestion control.</li>
 *   <li>{@link IoMethod#CHANNEL}: {@link java.nio.channels.DatagramChannel}, one system call per datagram, any OS and
 *   IPv6; it sends ECT(0) where the JDK sets {@code IP_TOS} but cannot read marks (nothing arrives marked).</li>
 * </ul>
 * {@link IoMethod#AUTO} takes native where it is available and logs, at INFO, why not otherwise. A datagram the
 * kernel does not take (send buffer full, or the rest of a partial {@code sendmmsg}) is counted in
 * {@link #sendsRefused()} and dropped: a loss the protocol repairs. Nothing waits, nothing on the data path
 * allocates.
 *
 * <p><b>Addresses.</b> A peer is known by the addresses of its path sockets ({@link #addPeer}, from the
 * rendezvous), and after that by where its datagrams come from: replies on path {@code p} go to the address the
 * peer's path {@code p} last sent from, once a datagram from there was accepted by the endpoint (authenticated by
 * its session tag and CRC), so a peer's re-route is followed without being told. A handshake from an unknown
 * address creates a peer. Internally an address is a {@code long} key (IPv4: {@code ip << 16 | port}), so the
 * per-datagram lookup needs no objects.
 *
 * <p><b>Threading.</b> This first cut is the invoker mode: one thread calls {@link #doWork()} in a loop (or an
 * Agrona {@code AgentRunner} does) and posts work to {@link #endpoint()} from that same thread.
 */
public final class UdpDriver implements Agent, MetaRoceDataPath {
    /** How long a transmit pass must have taken before the round transmits again what came due meanwhile. */
    static final long TRANSMIT_AGAIN_AFTER_NS = 20_000;
    private static final Logger LOG = JcclLog.logger(Subsystem.NET, UdpDriver.class);
    private static final long NO_PEER = -1;

    private final Endpoint endpoint;
    private final UdpDriverConfig config;
    private final NanoClock clock;
    private final IoMethod ioMethod;
    private final DatagramIo[] sockets;
    /** Native I/O: which path sockets are readable, asked after a round that received nothing; else null. */
    private final ReadinessPoll ownPoll;
    /** The last round received nothing: ask {@link #ownPoll} before reading. */
    private boolean lastRoundSilent;
    private final IoCounters io = new IoCounters();
    private final AddressKeys keys = new AddressKeys();
    /** Peer id to the address key each of its paths is answered at. */
    private final Long2ObjectHashMap<long[]> returnAddresses = new Long2ObjectHashMap<>();
    /** Address key to peer id. */
    private final Long2LongHashMap peerOfAddress = new Long2LongHashMap(NO_PEER);
    /**
     * Per peer, the sockets that replaced a shared path socket for that peer alone when its connection re-routed the
     * path (null where it still uses the shared one). A re-route is one connection's business: rebinding the shared
     * socket would move every peer's path and strand the peers still sending to the old port.
     */
    private final Long2ObjectHashMap<DatagramIo[]> peerSockets = new Long2ObjectHashMap<>();
    /** Every per-peer socket, for receiving and flushing, with its path. */
    private DatagramIo[] rerouted = new DatagramIo[8];
    private int[] reroutedPath = new int[8];
    private int reroutedCount;
    /** Bumped whenever {@link #rerouted} changes. */
    private long socketsVersion;
    private final Sink sink = new Sink();
    private final DatagramIo.Receiver receiver = this::onDatagram;
    private long nextPeerId = 1;
    private int receivingPath;
    private long receiveNowNs;

    private long datagramsReceived;
    private long unknownDestinations;
    private long socketsRebound;
    private long ecnMarkedReceived;
    private long ecnCapableReceived;

    /**
     * Opens one socket per path of {@code endpointConfig}.
     *
     * @param endpointConfig the protocol settings (its {@code paths} sets the number of sockets)
     * @param config         socket settings
     * @param random         the endpoint's random source (connection ids, nonces, session tags): a
     *                       {@link java.security.SecureRandom} outside tests
     * @param clock          the clock the endpoint runs on
     * @throws UncheckedIOException          when a socket cannot be opened or bound (nothing stays open)
     * @throws UnsupportedOperationException when {@link IoMethod#NATIVE} was asked for and is not available here
     */
    public UdpDriver(EndpointConfig endpointConfig, UdpDriverConfig config, RandomGenerator random, NanoClock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ioMethod = resolve(config);
        this.endpoint = new Endpoint(endpointConfig, random);
        this.sockets = new DatagramIo[endpointConfig.paths()];
        try {
            for (int p = 0; p < sockets.length; p++) {
                sockets[p] = DatagramIo.open(ioMethod, config, keys, io);
            }
        } catch (IOException | RuntimeException e) {
            closeAll();
            throw new UncheckedIOException(new IOException("cannot open " + sockets.length + " UDP sockets ("
                    + ioMethod + ") on " + config.bindAddress().getHostAddress() + ": " + e.getMessage(), e));
        }
        this.ownPoll = ReadinessPoll.open(List.of(this));   // null unless native I/O
        warnIfBuffersShort(config.socketBufferBytes(), grantedReceiveBufferBytes(), grantedSendBufferBytes());
    }

    /** @return the I/O method {@code config} asks for, AUTO resolved; logs why native is not used under AUTO */
    static IoMethod resolve(UdpDriverConfig config) {
        if (config.io() == IoMethod.CHANNEL) {
            return IoMethod.CHANNEL;
        }
        String unavailable = DatagramIo.nativeUnavailableReason(config);
        if (unavailable == null) {
            return IoMethod.NATIVE;
        }
        if (config.io() == IoMethod.NATIVE) {
            throw new UnsupportedOperationException("UDP driver: io=NATIVE is not available: " + unavailable
                    + " (use io=AUTO or CHANNEL)");
        }
        LOG.info("UDP driver: DatagramChannel I/O, because native I/O is not available: {}", unavailable);
        return IoMethod.CHANNEL;
    }

    /** Warns once when the kernel granted less socket buffer than asked (Linux caps it at the rmem/wmem maxima). */
    static void warnIfBuffersShort(int askedBytes, int grantedReceiveBytes, int grantedSendBytes) {
        if (grantedReceiveBytes < askedBytes) {
            LOG.warn("the kernel granted UDP receive buffers of " + grantedReceiveBytes
                    + " bytes, not the " + askedBytes + " asked for: bursts may be dropped (raise net.core.rmem_max)");
        }
        if (grantedSendBytes < askedBytes) {
            LOG.warn("the kernel granted UDP send buffers of " + grantedSendBytes
                    + " bytes, not the " + askedBytes + " asked for: sends may be refused (raise net.core.wmem_max)");
        }
    }

    /** @return the endpoint this driver runs; post work to it from the thread that calls {@link #doWork()} */
    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    /** @return the I/O method in use: {@link IoMethod#NATIVE} or {@link IoMethod#CHANNEL} */
    public IoMethod ioMethod() {
        return ioMethod;
    }

    /** @return whether every path socket sends runs of datagrams as UDP GSO messages (the kernel took the option) */
    public boolean gsoActive() {
        return Arrays.stream(sockets).allMatch(DatagramIo::gsoActive);
    }

    /** @return whether every path socket has UDP GRO on */
    public boolean groActive() {
        return Arrays.stream(sockets).allMatch(DatagramIo::groActive);
    }

    /** @return the address of each path socket, in path order: what a peer passes to {@link #addPeer} */
    @Override
    public List<InetSocketAddress> localAddresses() {
        List<InetSocketAddress> out = new ArrayList<>(sockets.length);
        for (DatagramIo s : sockets) {
            out.add(s.localAddress());
        }
        return out;
    }

    /**
     * Makes a peer known by the addresses of its path sockets (its {@link #localAddresses()}).
     *
     * @param pathAddresses one per path, in path order
     * @return the peer's id, for {@link Endpoint#connect} and {@link Endpoint#connectionTo}
     * @throws IllegalArgumentException when the count does not match this side's paths, or an address is
     *                                  unresolved
     */
    @Override
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
        long known = peerOfAddress.get(keys.keyOf(pathAddresses.getFirst()));
        if (known != NO_PEER) {
            return known;
        }
        long peer = nextPeerId++;
        long[] to = new long[sockets.length];
        for (int p = 0; p < to.length; p++) {
            to[p] = keys.keyOf(pathAddresses.get(p));
            peerOfAddress.put(to[p], peer);
        }
        returnAddresses.put(peer, to);
        return peer;
    }

    /**
     * For a {@link SocketWaiter}: the file descriptors of every socket this driver reads.
     *
     * @param out where to put them, from {@code at}
     * @param at  the first index to fill
     * @return the index after the last one filled, or -1 when a socket has none (channel I/O) or {@code out} is full
     */
    int descriptors(int[] out, int at) {
        int n = at;
        for (DatagramIo s : sockets) {
            if (n == out.length || s.descriptor() < 0) {
                return -1;
            }
            out[n++] = s.descriptor();
        }
        for (int i = 0; i < reroutedCount; i++) {
            if (n == out.length || rerouted[i].descriptor() < 0) {
                return -1;
            }
            out[n++] = rerouted[i].descriptor();
        }
        return n;
    }

    /** @return when the endpoint next needs a duty cycle with nothing arriving (a timer), on the driver's clock */
    @Override
    public long nextTimeoutNs() {
        return endpoint.nextTimeoutNs();
    }

    @Override
    public String roleName() {
        return "metaroce-udp";
    }

    /**
     * One round: reads what arrived on every socket (about {@code receiveBatch} datagrams each at most; after a
     * round that received nothing, only on the sockets {@code ppoll} says are ready), runs expired timers, hands the
     * endpoint's packets to the sockets and flushes their send batches.
     *
     * @return datagrams received and packets transmitted (0: idle)
     */
    @Override
    public int doWork() {
        long nowNs = clock.nanoTime();
        boolean asked = lastRoundSilent && ownPoll != null;
        if (asked && ownPoll.poll() == 0) {
            return timersAndTransmit(nowNs);
        }
        int received = receive(nowNs, asked ? ownPoll : null);
        lastRoundSilent = received == 0;
        return received + timersAndTransmit(nowNs);
    }

    /**
     * One round as {@link #doWork()}, reading only the sockets {@code poll} found ready: the caller has just called
     * {@link ReadinessPoll#poll()} over this driver's sockets and others'.
     *
     * @param poll the answer of one poll covering this driver
     * @return datagrams received and packets transmitted (0: idle)
     */
    public int doWork(ReadinessPoll poll) {
        return receive(poll) + transmit();
    }

    /**
     * The first half of {@link #doWork(ReadinessPoll)}: reads the sockets {@code poll} found ready, and the
     * endpoint places and completes what came. A transport that hands completions on before it transmits calls
     * {@link #transmit()} after.
     *
     * @param poll the answer of one poll covering this driver
     * @return datagrams received
     */
    public int receive(ReadinessPoll poll) {
        return receive(clock.nanoTime(), poll);
    }

    /**
     * The second half of {@link #doWork(ReadinessPoll)}: expired timers, then the endpoint's packets to the sockets
     * and their batches flushed.
     *
     * @return packets transmitted
     */
    public int transmit() {
        return timersAndTransmit(clock.nanoTime());
    }

    /** Reads every socket, or with {@code poll} only those it found ready; @return datagrams received */
    private int receive(long nowNs, ReadinessPoll poll) {
        receiveNowNs = nowNs;
        int received = 0;
        for (int p = 0; p < sockets.length; p++) {
            if (poll == null || poll.ready(this, p)) {
                receivingPath = p;
                received += sockets[p].receive(config.receiveBatch(), receiver);
            }
        }
        for (int i = 0; i < reroutedCount; i++) {
            if (poll == null || poll.ready(this, sockets.length + i)) {
                receivingPath = reroutedPath[i];
                received += rerouted[i].receive(config.receiveBatch(), receiver);
            }
        }
        return received;
    }

    /**
     * Runs expired timers, hands the endpoint's packets to the sockets and flushes their send batches; again, once,
     * when that took {@link #TRANSMIT_AGAIN_AFTER_NS} or more and something came due meanwhile. A flush of a large
     * batch is the kernel copying it (tens of microseconds per MiB here), and the pacer's next payloads come due
     * during it: sent now, before the round's next read, they do not wait a whole read (as long again) behind it —
     * the seventeenth 65,000-byte payload of a 1 MiB message, which the sixteen-payload burst leaves behind, did.
     */
    private int timersAndTransmit(long nowNs) {
        int work = transmitOnce(nowNs, endpoint.nextTimeoutNs());
        if (work > 0) {
            long afterNs = clock.nanoTime();
            if (afterNs - nowNs >= TRANSMIT_AGAIN_AFTER_NS) {
                long dueNs = endpoint.nextTimeoutNs();
                if (dueNs <= afterNs) {
                    work += transmitOnce(afterNs, dueNs);
                }
            }
        }
        return work;
    }

    /** One pass: the timers when {@code nextTimeoutNs} (the endpoint's, just asked) is due, then transmit and flush. */
    private int transmitOnce(long nowNs, long nextTimeoutNs) {
        if (nextTimeoutNs <= nowNs) {
            endpoint.onTimeout(nowNs);
        }
        int work = endpoint.pollTransmit(nowNs, sink);
        for (DatagramIo s : sockets) {
            s.flush();
        }
        for (int i = 0; i < reroutedCount; i++) {
            rerouted[i].flush();
        }
        return work;
    }

    /** @return how many sockets this driver reads: its path sockets and those re-routes gave single peers */
    int socketCount() {
        return sockets.length + reroutedCount;
    }

    /** @return a number that changes whenever this driver's set of sockets does (for {@link ReadinessPoll}) */
    long socketsVersion() {
        return socketsVersion;
    }

    private void onDatagram(long from, DirectBuffer buffer, int offset, int length, int ecn) {
        int path = receivingPath;
        long nowNs = receiveNowNs;
        datagramsReceived++;
        boolean ecnMarked = ecn == DatagramIo.ECN_CE;
        if (ecnMarked) {
            ecnMarkedReceived++;
        } else if (ecn != DatagramIo.NOT_ECT) {
            ecnCapableReceived++;
        }
        long peer = peerOfAddress.get(from);
        boolean handshake = length > HeaderFlyweight.TYPE_FIELD_OFFSET
                && (buffer.getByte(offset + HeaderFlyweight.TYPE_FIELD_OFFSET) & 0xFF) == PacketType.HANDSHAKE_INIT;
        long source = peer != NO_PEER ? peer : handshake ? nextPeerId : NO_PEER;
        int connectionId = length >= HeaderFlyweight.HEADER_LENGTH
                ? buffer.getInt(offset + HeaderFlyweight.CONNECTION_ID_FIELD_OFFSET, HeaderFlyweight.BYTE_ORDER) : 0;
        if (endpoint.onDatagram(nowNs, source, path, buffer, offset, length, ecnMarked) != null) {
            return;   // dropped: learn nothing from where it came from
        }
        if (peer == NO_PEER && handshake) {
            if (endpoint.connectionTo(source) >= 0) {   // a new peer
                nextPeerId++;
                long[] to = new long[sockets.length];
                Arrays.fill(to, from);   // until each path's own source is seen
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
        long[] to = returnAddresses.get(peer);
        if (to != null && from != to[path]) {
            long old = to[path];
            to[path] = from;
            forgetUnless(old, to);   // a re-routed path's old source: keep the address map bounded
        }
    }

    private void forgetUnless(long address, long[] stillUsed) {
        for (long a : stillUsed) {
            if (a == address) {
                return;
            }
        }
        peerOfAddress.remove(address);
        keys.forget(address);
    }

    private final class Sink implements TransmitSink {
        /** The socket of the claim in progress (between claim and commit). */
        private DatagramIo claimedSocket;
        @Override
        public void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length) {
            long[] to = returnAddresses.get(destination);
            if (to == null) {
                unknownDestinations++;
                return;
            }
            socketFor(destination, pathIndex).send(to[pathIndex], buffer, offset, length);
        }

        private DatagramIo socketFor(long destination, int pathIndex) {
            DatagramIo[] own = peerSockets.get(destination);
            return own != null && own[pathIndex] != null ? own[pathIndex] : sockets[pathIndex];
        }

        @Override
        public int claim(long destination, int pathIndex, int maxLength) {
            long[] to = returnAddresses.get(destination);
            if (to == null) {
                return -1;   // transmit counts it
            }
            DatagramIo socket = socketFor(destination, pathIndex);
            int at = socket.claim(to[pathIndex], maxLength);
            claimedSocket = at >= 0 ? socket : null;
            return at;
        }

        @Override
        public org.agrona.MutableDirectBuffer claimedBuffer() {
            return claimedSocket.sendBuffer();
        }

        @Override
        public java.lang.foreign.MemorySegment claimedSegment() {
            return claimedSocket.sendSegment();
        }

        @Override
        public void commit(int length) {
            DatagramIo socket = claimedSocket;
            claimedSocket = null;
            socket.commit(length);
        }

        @Override
        public boolean gathers() {
            return claimedSocket != null && claimedSocket.gathers();
        }

        @Override
        public void commitGather(int headerLength, java.lang.foreign.MemorySegment payload, long payloadOffset,
                                 int payloadLength, int trailerLength) {
            DatagramIo socket = claimedSocket;
            claimedSocket = null;
            java.util.Objects.checkFromIndexSize(payloadOffset, payloadLength, payload.byteSize());
            socket.commitGather(headerLength, payload.address() + payloadOffset, payloadLength, trailerLength);
        }

        /** Gives this peer's path a socket (a source port, so an ECMP route) of its own, replacing any earlier one. */
        @Override
        public void reroute(long destination, int pathIndex, int generation) {
            DatagramIo fresh;
            try {
                fresh = DatagramIo.open(ioMethod, config, keys, io);
            } catch (IOException | RuntimeException e) {
                io.ioErrors++;   // keep the old socket: the path keeps its route and is probed again later
                return;
            }
            DatagramIo[] own = peerSockets.get(destination);
            if (own == null) {
                own = new DatagramIo[sockets.length];
                peerSockets.put(destination, own);
            }
            DatagramIo old = own[pathIndex];
            own[pathIndex] = fresh;
            if (old != null) {
                old.flush();
                removeRerouted(old);
                old.close();
            }
            addRerouted(fresh, pathIndex);
            socketsRebound++;
        }
    }

    private void addRerouted(DatagramIo socket, int path) {
        if (reroutedCount == rerouted.length) {
            rerouted = Arrays.copyOf(rerouted, reroutedCount * 2);
            reroutedPath = Arrays.copyOf(reroutedPath, reroutedCount * 2);
        }
        rerouted[reroutedCount] = socket;
        reroutedPath[reroutedCount++] = path;
        socketsVersion++;
    }

    private void removeRerouted(DatagramIo socket) {
        for (int i = 0; i < reroutedCount; i++) {
            if (rerouted[i] == socket) {
                rerouted[i] = rerouted[reroutedCount - 1];
                reroutedPath[i] = reroutedPath[reroutedCount - 1];
                rerouted[--reroutedCount] = null;
                socketsVersion++;
                return;
            }
        }
    }

    /** @return datagrams handed to the kernel (each segment of a GSO message counts) */
    @Override
    public long datagramsSent() {
        return io.datagramsSent;
    }

    /** @return datagrams read from the sockets (each segment of a GRO read counts) */
    @Override
    public long datagramsReceived() {
        return datagramsReceived;
    }

    /** @return datagrams the kernel did not take (send buffer full; the rest of a partial batch) */
    public long sendsRefused() {
        return io.sendsRefused;
    }

    /** @return socket errors on send or receive */
    public long ioErrors() {
        return io.ioErrors;
    }

    /** @return datagrams for a peer with no known address */
    public long unknownDestinations() {
        return unknownDestinations;
    }

    /** @return path sockets replaced by a re-route */
    @Override
    public long socketsRebound() {
        return socketsRebound;
    }

    /** @return datagrams that arrived with the ECN CE (congestion experienced) mark; always 0 with CHANNEL I/O */
    public long ecnMarkedReceived() {
        return ecnMarkedReceived;
    }

    /** @return datagrams that arrived ECN-capable (ECT(0) or ECT(1)) and unmarked; always 0 with CHANNEL I/O */
    public long ecnCapableReceived() {
        return ecnCapableReceived;
    }

    /** @return datagrams sent as segments of UDP GSO messages (included in {@link #datagramsSent()}) */
    public long gsoSegmentsSent() {
        return io.gsoSegmentsSent;
    }

    /** @return UDP GSO messages sent, each of two or more datagrams ({@link #gsoSegmentsSent()} over it: the run) */
    public long gsoMessagesSent() {
        return io.gsoMessagesSent;
    }

    /** @return datagrams cut out of coalesced UDP GRO reads (included in {@link #datagramsReceived()}) */
    public long groSegmentsReceived() {
        return io.groSegmentsReceived;
    }

    /** @return send system calls that took at least one datagram ({@code sendmmsg} with native I/O) */
    public long sendCalls() {
        return io.sendCalls;
    }

    /** @return receive system calls that returned at least one datagram ({@code recvmmsg} with native I/O) */
    public long receiveCalls() {
        return io.receiveCalls;
    }

    /** @return the smallest receive buffer the kernel granted a path socket (Linux reports twice what it books) */
    public int grantedReceiveBufferBytes() {
        int min = Integer.MAX_VALUE;
        for (DatagramIo s : sockets) {
            min = Math.min(min, s.grantedReceiveBufferBytes());
        }
        return min;
    }

    /** @return the smallest send buffer the kernel granted a path socket */
    public int grantedSendBufferBytes() {
        int min = Integer.MAX_VALUE;
        for (DatagramIo s : sockets) {
            min = Math.min(min, s.grantedSendBufferBytes());
        }
        return min;
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
        if (ownPoll != null) {
            ownPoll.close();
        }
        for (int p = 0; p < sockets.length; p++) {
            if (sockets[p] != null) {
                sockets[p].close();   // idempotent
            }
        }
        for (int i = 0; i < reroutedCount; i++) {
            rerouted[i].close();
        }
    }
}
