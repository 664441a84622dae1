package io.jccl.metaroce.protocol;

import io.jccl.config.Arguments;
import io.jccl.metaroce.protocol.cc.FairShare;
import io.jccl.metaroce.protocol.conn.Connection;
import io.jccl.metaroce.protocol.conn.DataPacket;
import io.jccl.metaroce.protocol.conn.InboundData;
import io.jccl.metaroce.protocol.path.ReceiverPath;
import io.jccl.metaroce.protocol.path.SenderPath;
import io.jccl.metaroce.protocol.region.RegionSink;
import io.jccl.metaroce.protocol.region.RegionTable;
import io.jccl.metaroce.protocol.wire.AckFlyweight;
import io.jccl.metaroce.protocol.wire.CloseFlyweight;
import io.jccl.metaroce.protocol.wire.Crc32c;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import io.jccl.metaroce.protocol.wire.Flags;
import io.jccl.metaroce.protocol.wire.HandshakeAcceptFlyweight;
import io.jccl.metaroce.protocol.wire.HandshakeCrypto;
import io.jccl.metaroce.protocol.wire.HandshakeInitFlyweight;
import io.jccl.metaroce.protocol.wire.HeaderFlyweight;
import io.jccl.metaroce.protocol.wire.PacketType;
import io.jccl.metaroce.protocol.wire.PacketValidator;
import io.jccl.metaroce.protocol.wire.ProbeFlyweight;
import io.jccl.metaroce.protocol.wire.RnrFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * A MetaRoCE endpoint: the sans-IO protocol core for one local process or NIC. Owns its connections, the
 * regions peers may write into, the packet codec, the receiver's fair share and the completion queue. Driven
 * through {@link Engine} by exactly one thread; posts ({@link Verbs}) come from that same thread.
 *
 * <p>Pure: no sockets, threads or clock. Time arrives as {@code nowNs}, randomness (connection ids, nonces,
 * session tags) from the {@link RandomGenerator} given at construction.
 */
public final class Endpoint implements Verbs, Connection.Context {
    private static final int MAX_DATAGRAM = 65536;
    /**
     * The smallest payload sent as a piece of its own (a gather send): below it copying into the batch costs less
     * than the kernel's handling of one more iovec.
     */
    private static final int GATHER_MIN_PAYLOAD_BYTES = 1024;
    private static final int NONCE_BYTES = HandshakeInitFlyweight.NONCE_LENGTH;

    private final EndpointConfig config;
    private final RandomGenerator random;
    private final Counters counters = new Counters();
    private final RegionTable regions = new RegionTable();
    private final Int2ObjectHashMap<Connection> byId = new Int2ObjectHashMap<>();
    private final Long2LongHashMap byPeer = new Long2LongHashMap(Long.MIN_VALUE);
    private final List<Connection> connections = new ArrayList<>();
    private final FairShare fairShare;
    private final HandshakeCrypto crypto;
    private final Int2ObjectHashMap<HandshakeCrypto> initiatorCrypto = new Int2ObjectHashMap<>();
    private final PacketValidator validator = new PacketValidator();
    private final Crc32c txCrc = new Crc32c();
    /**
     * Where frames are built when the sink offers no room: as long as the longest frame of any connection (grown by
     * {@link #add}), not {@link #MAX_DATAGRAM} — a simulation runs thousands of endpoints.
     */
    private byte[] txBytes;
    private final UnsafeBuffer tx = new UnsafeBuffer(new byte[0]);
    private MemorySegment txSegment;

    // Flyweights, one per packet type and direction, rewrapped for every packet.
    private final HeaderFlyweight rxHeader = new HeaderFlyweight();
    private final DataFlyweight rxData = new DataFlyweight();
    /** The arriving DATA packet's fields, as its connection takes them (filled per packet, read during the call). */
    private final InboundData rxDataFields = new InboundData();
    private final AckFlyweight rxAck = new AckFlyweight();
    private final ProbeFlyweight rxProbe = new ProbeFlyweight();
    private final RnrFlyweight rxRnr = new RnrFlyweight();
    private final CloseFlyweight rxClose = new CloseFlyweight();
    private final HandshakeInitFlyweight rxInit = new HandshakeInitFlyweight();
    private final HandshakeAcceptFlyweight rxAccept = new HandshakeAcceptFlyweight();
    private final DataFlyweight txData = new DataFlyweight().wrap(tx, 0);
    /** Over a DATA packet being built in a sink's claimed room. */
    private final DataFlyweight claimData = new DataFlyweight();
    private final AckFlyweight txAck = new AckFlyweight().wrap(tx, 0);
    private final ProbeFlyweight txProbe = new ProbeFlyweight().wrap(tx, 0);
    private final RnrFlyweight txRnr = new RnrFlyweight().wrap(tx, 0);
    private final CloseFlyweight txClose = new CloseFlyweight().wrap(tx, 0);
    private final HandshakeInitFlyweight txInit = new HandshakeInitFlyweight().wrap(tx, 0);
    private final HandshakeAcceptFlyweight txAccept = new HandshakeAcceptFlyweight().wrap(tx, 0);
    private long nextWorkId = 1;
    private int emitCursor;
    /** The latest time a driver call brought, and whether one came yet: a long gap after it is a local stall. */
    private long lastDrivenNs;
    private boolean driven;

    private final CompletionQueue completions = new CompletionQueue();

    /**
     * All of the address space, to copy payload out of address-backed datagram buffers (bounds checked first); made
     * on first use, as only a driver with off-heap buffers needs it (reinterpret is a restricted method).
     */
    private static final class AllMemory {
        static final MemorySegment SEGMENT = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    }

    /**
     * @param config the settings
     * @param random where connection ids, nonces and session tags come from (the driver decides how strong)
     */
    public Endpoint(EndpointConfig config, RandomGenerator random) {
        this.config = Objects.requireNonNull(config, "config");
        this.random = Objects.requireNonNull(random, "random");
        this.fairShare = new FairShare(config.inboundBytesPerSecond(), Math.max(10_000, config.delayedAckNs()));
        this.crypto = new HandshakeCrypto(config.handshakeKey());
        ensureTxCapacity(config.payloadBytes());
    }

    /** Makes {@link #tx} hold a DATA frame of {@code payloadBytes} (and every control frame, all shorter). */
    private void ensureTxCapacity(int payloadBytes) {
        int frame = Math.min(MAX_DATAGRAM, Math.max(1024, DataFlyweight.DATA_HEADER_LENGTH + payloadBytes
                + DataFlyweight.IMMEDIATE_LENGTH + DataFlyweight.CRC_LENGTH));
        if (txBytes == null || txBytes.length < frame) {
            txBytes = new byte[frame];
            tx.wrap(txBytes);   // the flyweights hold tx itself, so they follow
            txSegment = MemorySegment.ofArray(txBytes);
        }
    }

    /** @return the settings */
    public EndpointConfig config() {
        return config;
    }

    @Override
    public Counters counters() {
        return counters;
    }

    // ---- Verbs ----

    @Override
    public int registerRegion(MemorySegment memory, boolean remoteWritable) {
        return regions.register(memory, remoteWritable);
    }

    @Override
    public void deregisterRegion(int key) {
        regions.deregister(key);
    }

    /**
     * Registers a region that is no memory of this side: what peers' WRITEs place into it goes to {@code sink},
     * packet by packet, where the datagram holds it (a receiver combines it into its result there, one pass over
     * memory instead of a copy and a pass). Deregistered as memory regions are ({@link #deregisterRegion}).
     *
     * @param sizeBytes the region's size: WRITEs beyond it are dropped ({@code REGION_BOUNDS})
     * @param sink      takes each placed payload, on the driving thread
     * @return the key peers write to
     */
    public int registerSinkRegion(long sizeBytes, RegionSink sink) {
        return regions.registerSink(sizeBytes, sink);
    }

    private int newConnectionId() {
        int id;
        do {
            id = random.nextInt() & Integer.MAX_VALUE;   // positive, so that -1 can mean "none"
        } while (id == 0 || byId.containsKey(id));
        return id;
    }

    @Override
    public int connect(long nowNs, long peer) {
        return connect(nowNs, peer, null, config.payloadBytes());
    }

    /**
     * Like {@link #connect(long, long)}, but this connection's handshake is authenticated with the key the peer
     * accepts with, not this endpoint's own: an endpoint that only initiates can then reach peers that each hold
     * their own key (published, for instance, through an authenticated rendezvous). Its payload per packet is
     * chosen by the caller (the handshake tells the peer): a driver knows the path MTU towards each peer, the
     * endpoint does not. A peer whose earlier connection closed gets a new one.
     *
     * @param nowNs            the driver's clock
     * @param peer             the peer
     * @param peerHandshakeKey the peer's handshake key (at least 16 bytes), or null for this endpoint's key
     * @param payloadBytes     payload bytes per DATA packet, 256-65000
     * @return the local connection id
     */
    public int connect(long nowNs, long peer, byte[] peerHandshakeKey, int payloadBytes) {
        return connect(nowNs, peer, peerHandshakeKey, payloadBytes, config.paths());
    }

    /**
     * Like {@link #connect(long, long, byte[], int)}, over the first {@code paths} of this endpoint's paths (the
     * handshake tells the peer, which uses as many): a driver knows when more routes than one buy nothing, as
     * towards a peer on its own host, whose traffic all crosses the loopback device.
     *
     * @param nowNs            the driver's clock
     * @param peer             the peer
     * @param peerHandshakeKey the peer's handshake key (at least 16 bytes), or null for this endpoint's key
     * @param payloadBytes     payload bytes per DATA packet, 256-65000
     * @param paths            paths of this connection, 1 to this endpoint's {@link EndpointConfig#paths()}
     * @return the local connection id
     */
    public int connect(long nowNs, long peer, byte[] peerHandshakeKey, int payloadBytes, int paths) {
        Arguments.inRange("payloadBytes", payloadBytes, 256, 65000);
        Arguments.inRange("paths", paths, 1, config.paths());
        long existing = byPeer.get(peer);
        if (existing != Long.MIN_VALUE) {
            Connection live = byId.get((int) existing);
            if (live != null && live.state() != Connection.State.CLOSED) {
                return (int) existing;
            }
        }
        HandshakeCrypto keyed = peerHandshakeKey == null ? null : new HandshakeCrypto(peerHandshakeKey);
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        Connection c = new Connection(config, this, counters, newConnectionId(), connections.size(), peer, true, nonce,
                paths, payloadBytes, nowNs);
        if (keyed != null) {
            initiatorCrypto.put(c.localId, keyed);
        }
        add(c);
        return c.localId;
    }

    /** The key that authenticates {@code c}'s handshake: its peer's where one was given, else this endpoint's. */
    private HandshakeCrypto cryptoFor(Connection c) {
        HandshakeCrypto keyed = initiatorCrypto.get(c.localId);
        return keyed != null ? keyed : crypto;
    }

    /** @return how many connections this endpoint has made or accepted so far, closed ones included */
    public int connectionCount() {
        return connections.size();
    }

    /**
     * Lets a driver notice connections peers opened: indexes grow in the order connections were made.
     *
     * @param index 0 to {@link #connectionCount()} - 1
     * @return that connection's local id
     */
    public int connectionIdAt(int index) {
        return connections.get(index).localId;
    }

    private void add(Connection c) {
        ensureTxCapacity(c.payloadBytes());
        c.regions(regions::writableBytes);
        byId.put(c.localId, c);
        byPeer.put(c.peer, c.localId);
        connections.add(c);
    }

    @Override
    public int connectionTo(long peer) {
        long id = byPeer.get(peer);
        return id == Long.MIN_VALUE ? -1 : (int) id;
    }

    @Override
    public boolean isEstablished(int connectionId) {
        Connection c = byId.get(connectionId);
        return c != null && c.state() == Connection.State.ESTABLISHED;
    }

    private Connection require(int connectionId) {
        Connection c = byId.get(connectionId);
        if (c == null) {
            throw new IllegalArgumentException("no connection " + connectionId);
        }
        return c;
    }

    private static void checkRange(MemorySegment local, long offset, long length, String what) {
        Objects.requireNonNull(local, "local");
        if (offset < 0 || length < 0 || offset > local.byteSize() - length) {
            throw new IllegalArgumentException(what + ": range [" + offset + ", +" + length
                    + ") is outside the buffer of " + local.byteSize() + " bytes");
        }
    }

    /** A message is counted in chunks of the connection's payload size, and the count must fit an int. */
    private static void checkChunks(Connection c, long length, String what) {
        long most = (long) Integer.MAX_VALUE * c.payloadBytes();
        if (length > most) {
            throw new IllegalArgumentException(what + ": length " + length + " is more than one message can carry ("
                    + most + " bytes: 2^31-1 packets of " + c.payloadBytes() + ")");
        }
    }

    @Override
    public long postWrite(int connectionId, int regionKey, long remoteOffset, MemorySegment local, long offset,
                          long length) {
        checkRange(local, offset, length, "postWrite");
        if (remoteOffset < 0) {
            throw new IllegalArgumentException("postWrite: remoteOffset must not be negative, got " + remoteOffset);
        }
        Connection c = require(connectionId);
        checkChunks(c, length, "postWrite");
        return c.postWrite(regionKey, remoteOffset, local, offset, length);
    }

    @Override
    public long postWriteImmediate(int connectionId, int regionKey, long remoteOffset, MemorySegment local,
                                   long offset, long length, int immediate) {
        checkRange(local, offset, length, "postWriteImmediate");
        if (remoteOffset < 0) {
            throw new IllegalArgumentException("postWriteImmediate: remoteOffset must not be negative, got "
                    + remoteOffset);
        }
        Connection c = require(connectionId);
        checkChunks(c, length, "postWriteImmediate");
        return c.postWrite(regionKey, remoteOffset, local, offset, length, true, immediate);
    }

    @Override
    public long postSend(int connectionId, int stream, MemorySegment local, long offset, long length) {
        return postSend(connectionId, stream, local, offset, length, false);
    }

    /**
     * As {@link #postSend(int, int, MemorySegment, long, long)}; with {@code ackLazily} the message's last packet
     * does not ask for an acknowledgement at once (the receiver acknowledges it with later ones or after
     * {@link io.jccl.metaroce.protocol.conn.Connection#lazyAckDelayNs}), for a message its sender does not wait
     * for: the completion comes as late as that.
     */
    public long postSend(int connectionId, int stream, MemorySegment local, long offset, long length,
                         boolean ackLazily) {
        checkRange(local, offset, length, "postSend");
        Connection c = require(connectionId);
        checkChunks(c, length, "postSend");
        return c.postSend(stream, local, offset, length, ackLazily);
    }

    @Override
    public long postRecv(int connectionId, int stream, MemorySegment local, long offset, long capacity) {
        checkRange(local, offset, capacity, "postRecv");
        if (local.isReadOnly() && capacity > 0) {
            throw new IllegalArgumentException("postRecv: the receive buffer is read-only");
        }
        return require(connectionId).postRecv(stream, local, offset, capacity);
    }

    /**
     * Withdraws a WRITE that is not complete yet (see {@link Connection#cancelWrite}): it completes as
     * {@link CompletionStatus#CANCELLED}.
     *
     * @param connectionId the connection it was posted on
     * @param workId       its work id
     * @return whether it was found and withdrawn
     */
    public boolean cancelWrite(int connectionId, long workId) {
        Connection c = byId.get(connectionId);
        return c != null && c.cancelWrite(workId);
    }

    /**
     * Closes a connection gracefully: see {@link Connection#shutdown}. Drive the endpoint until
     * {@link Connection#state()} is CLOSED, or {@link #close} it when the wait is over.
     *
     * @param nowNs        the clock
     * @param connectionId the connection
     */
    public void shutdown(long nowNs, int connectionId) {
        Connection c = byId.get(connectionId);
        if (c != null) {
            c.shutdown(nowNs);
            if (c.state() == Connection.State.CLOSED) {
                fairShare.remove(c.slot);
            }
        }
    }

    @Override
    public void close(long nowNs, int connectionId) {
        Connection c = byId.get(connectionId);
        if (c != null) {
            c.close();
            fairShare.remove(c.slot);
        }
    }

    @Override
    public int pollCompletions(CompletionHandler handler) {
        int n = 0;
        while (!completions.isEmpty()) {
            counters.increment(Counter.COMPLETIONS);
            completions.pollOne(handler);
            n++;
        }
        return n;
    }

    // ---- Engine ----

    /**
     * Every driver call passes through here first. A call more than the RTO floor after the previous one may follow
     * a stall of this host (descheduled, paused, or simply not polled): timers that came due more than the floor
     * before it expired while nobody listened, so the connections restart them instead of judging the paths by them
     * (the answers may be waiting, unread, in the driver's sockets). Usually a cheap comparison.
     */
    private void driven(long nowNs) {
        if (!driven) {
            driven = true;
            lastDrivenNs = nowNs;
            return;
        }
        long gapNs = nowNs - lastDrivenNs;
        if (gapNs <= 0) {
            return;
        }
        lastDrivenNs = nowNs;
        if (gapNs > config.rtoFloorNs()) {
            long lateBeforeNs = nowNs - config.rtoFloorNs();
            int late = 0;
            for (int i = 0, n = connections.size(); i < n; i++) {   // indexed: an iterator would allocate
                late += connections.get(i).onLocalStall(nowNs, gapNs, lateBeforeNs);
            }
            if (late > 0) {
                counters.increment(Counter.STALLS_DETECTED);
            }
        }
    }

    @Override
    public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset, int length,
                                 boolean ecnMarked) {
        driven(nowNs);
        DropReason structural = validator.check(buffer, offset, length);
        if (structural != null) {
            return drop(structural);
        }
        HeaderFlyweight header = rxHeader.wrap(buffer, offset);
        int type = header.type();
        if (type == PacketType.HANDSHAKE_INIT) {
            return onInit(nowNs, source, buffer, offset);
        }
        Connection c = byId.get(header.connectionId());
        if (c == null) {
            return drop(DropReason.UNKNOWN_CONNECTION);
        }
        if (type == PacketType.HANDSHAKE_ACCEPT) {
            return onAccept(nowNs, c, buffer, offset);
        }
        if (c.state() == Connection.State.CONNECTING) {
            return drop(DropReason.UNEXPECTED);
        }
        if (header.sessionTag() != c.sessionTag()) {
            return drop(DropReason.BAD_SESSION_TAG);
        }
        int path = header.pathId();
        if (path >= c.paths()) {
            return drop(DropReason.BAD_PATH);
        }
        c.heard(nowNs);   // authenticated by the session tag (and the CRC): the peer is alive, whatever this is
        int generation = header.pathGeneration();
        switch (type) {
            case PacketType.WRITE, PacketType.SEND -> {
                return onDataPacket(nowNs, c, rxData.wrap(buffer, offset), path, generation, ecnMarked);
            }
            case PacketType.ACK -> {
                if (generation != c.senderPath(path).generation()) {
                    return drop(DropReason.STALE_GENERATION);
                }
                c.onAck(nowNs, path, rxAck.wrap(buffer, offset));
            }
            case PacketType.PROBE -> {
                if (!c.adoptGeneration(path, generation)) {
                    return drop(DropReason.STALE_GENERATION);
                }
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                ProbeFlyweight probe = rxProbe.wrap(buffer, offset);
                c.onProbe(path, generation, probe.probeSequence(), probe.timestampNs());
            }
            case PacketType.PROBE_REPLY -> {
                if (generation != c.senderPath(path).generation()) {
                    return drop(DropReason.STALE_GENERATION);
                }
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                ProbeFlyweight reply = rxProbe.wrap(buffer, offset);
                c.onProbeReply(nowNs, path, reply.probeSequence(), reply.echoTimestampNs());
            }
            case PacketType.CLOSE -> {
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                c.onClose(nowNs, rxClose.wrap(buffer, offset).reason());
                if (c.state() == Connection.State.CLOSED) {
                    fairShare.remove(c.slot);
                }
            }
            case PacketType.RNR -> {
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                RnrFlyweight rnr = rxRnr.wrap(buffer, offset);
                c.onRnr(nowNs, rnr.streamId(), rnr.messageSequence(), rnr.retryAfterNs());
            }
            default -> {
                return drop(DropReason.UNKNOWN_TYPE);
            }
        }
        return null;
    }

    private DropReason drop(DropReason reason) {
        counters.drop(reason);
        return reason;
    }

    private DropReason onDataPacket(long nowNs, Connection c, DataFlyweight data, int path, int generation,
                                    boolean ecnMarked) {
        if (!c.adoptGeneration(path, generation)) {
            return drop(DropReason.STALE_GENERATION);
        }
        DropReason reason = c.onData(nowNs, rxDataFields.fill(data, path, ecnMarked));
        return reason == null ? null : drop(reason);
    }

    private DropReason onInit(long nowNs, long source, DirectBuffer b, int o) {
        if (!crypto.verifyInit(b, o)) {
            return drop(DropReason.BAD_HANDSHAKE_MAC);
        }
        HandshakeInitFlyweight init = rxInit.wrap(b, o);
        if (init.paths() > config.paths()) {
            // the ACCEPT cannot offer fewer, and a path id past our sockets has nowhere to go: refuse it
            return drop(DropReason.BAD_PATH);
        }
        int initiatorId = init.initiatorConnectionId();
        byte[] nonce = new byte[NONCE_BYTES];   // control path: a connection is being made
        init.getNonce(nonce, 0);
        counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
        long existing = byPeer.get(source);
        if (existing != Long.MIN_VALUE) {
            Connection c = byId.get((int) existing);
            if (c != null && c.remoteId() == initiatorId && MessageDigest.isEqual(c.remoteNonce(), nonce)) {
                c.acceptAgain();   // our ACCEPT was lost
                return null;
            }
            if (c != null && c.state() != Connection.State.CLOSED) {
                return drop(DropReason.UNEXPECTED);   // the peer already has a live connection here
            }
        }
        byte[] ours = new byte[NONCE_BYTES];
        random.nextBytes(ours);
        Connection c = new Connection(config, this, counters, newConnectionId(), connections.size(), source, false,
                ours, init.paths(), init.payloadBytes(), nowNs);
        int tag;
        do {
            tag = random.nextInt();
        } while (tag == 0);
        c.accepted(initiatorId, nonce, tag);
        add(c);
        counters.increment(Counter.CONNECTIONS_OPENED);
        return null;
    }

    private DropReason onAccept(long nowNs, Connection c, DirectBuffer b, int o) {
        if (!c.initiator || c.state() != Connection.State.CONNECTING) {
            return drop(DropReason.UNEXPECTED);
        }
        byte[] initiatorNonce = c.localNonce();
        if (!cryptoFor(c).verifyAccept(b, o, nonceWord(initiatorNonce, 0), nonceWord(initiatorNonce, 8))) {
            return drop(DropReason.BAD_HANDSHAKE_MAC);
        }
        HandshakeAcceptFlyweight accept = rxAccept.wrap(b, o);
        byte[] nonce = new byte[NONCE_BYTES];
        accept.getNonce(nonce, 0);
        counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
        c.established(nowNs, accept.acceptorConnectionId(), nonce, accept.grantedSessionTag());
        return null;
    }

    /** Bytes {@code at..at+7} of a nonce as the little-endian word the wire carries. */
    private static long nonceWord(byte[] nonce, int at) {
        long word = 0;
        for (int i = 7; i >= 0; i--) {
            word = (word << 8) | (nonce[at + i] & 0xFF);
        }
        return word;
    }

    @Override
    public void onTimeout(long nowNs) {
        driven(nowNs);
        fairShare.update(nowNs);
        for (int i = 0, n = connections.size(); i < n; i++) {   // indexed: an iterator per call would allocate
            Connection c = connections.get(i);
            c.onTimeout(nowNs);
        }
    }

    @Override
    public long nextTimeoutNs() {
        long next = Long.MAX_VALUE;
        for (int i = 0, n = connections.size(); i < n; i++) {   // indexed: an iterator per call would allocate
            Connection c = connections.get(i);
            next = Math.min(next, c.nextTimeoutNs());
        }
        if (fairShare.activeSenders() > 0) {
            next = Math.min(next, fairShare.nextUpdateNs());
        }
        return next;
    }

    @Override
    public int pollTransmit(long nowNs, TransmitSink sink) {
        driven(nowNs);
        fairShare.update(nowNs);
        int n = 0;
        int size = connections.size();
        for (int k = 0; k < size; k++) {
            n += connections.get((emitCursor + k) % size).emit(nowNs, sink);
        }
        emitCursor = size == 0 ? 0 : (emitCursor + 1) % size;
        return n;
    }

    // ---- Connection.Context: building packets, placing data, completions ----

    private void transmit(Connection c, TransmitSink sink, int path, int lengthWithoutCrc) {
        int length = txCrc.finish(tx, 0, lengthWithoutCrc);
        sink.transmit(c.peer, path, tx, 0, length);
    }

    @Override
    public void sendData(Connection c, TransmitSink sink, DataPacket p) {
        int payload = p.payloadBytes();
        MemorySegment src = p.source();
        // A payload worth an iovec of its own, in native memory, goes as a piece of the datagram where the driver
        // gathers (sendmsg iovecs): user space then only reads it, for the CRC, and the kernel copies it from there.
        if (payload >= GATHER_MIN_PAYLOAD_BYTES && src.isNative() && txCrc.updatesAddresses()
                && sendGathered(c, sink, p)) {
            return;
        }
        // Built straight into the driver's send batch where it offers room (the payload crosses user memory once),
        // else in this endpoint's own buffer, which transmit copies.
        int maxLength = DataFlyweight.DATA_HEADER_LENGTH + payload + DataFlyweight.IMMEDIATE_LENGTH
                + DataFlyweight.CRC_LENGTH;
        SenderPath path = p.path();
        int at = sink.claim(c.peer, path.index, maxLength);
        boolean claimed = at >= 0;
        MutableDirectBuffer buffer = claimed ? sink.claimedBuffer() : tx;
        MemorySegment segment = claimed ? sink.claimedSegment() : txSegment;
        if (!claimed) {
            at = 0;
        }
        DataFlyweight d = claimed ? claimData.wrap(buffer, at) : txData;
        putDataHeader(d, c, p, payload);
        if (payload > 0) {
            MemorySegment.copy(src, p.sourceOffset(), segment, at + DataFlyweight.PAYLOAD_FIELD_OFFSET, payload);
        }
        int body = payload;
        if ((p.flags() & Flags.IMMEDIATE) != 0) {
            d.putImmediate(p.immediate());   // after the payload; the flag is set already
            body += DataFlyweight.IMMEDIATE_LENGTH;
        }
        if (claimed) {
            sink.commit(txCrc.finish(buffer, at, DataFlyweight.DATA_HEADER_LENGTH + body));
        } else {
            transmit(c, sink, path.index, DataFlyweight.DATA_HEADER_LENGTH + body);
        }
    }

    /** Writes a DATA packet's header (a WRITE's or a SEND's) with {@code bodyLength} bytes of body announced. */
    private static void putDataHeader(DataFlyweight d, Connection c, DataPacket p, int bodyLength) {
        d.putHeader(p.write() ? PacketType.WRITE : PacketType.SEND, p.flags(), p.path().index, p.path().generation(),
                        c.remoteId(), c.sessionTag(), bodyLength)
                .psn(p.psn())
                .timestampNs(p.timestampNs())
                .message(p.message())
                .target(p.target())
                .messageOffset(p.offset())
                .messageLength(p.messageLength())
                .base(p.base());
    }

    /**
     * A DATA packet in three pieces: header, then the immediate (if any) and the CRC, built in the driver's batch;
     * the payload between them stays where it is. The CRC runs over the pieces in their order on the wire.
     *
     * @return false when the sink has no room or does not gather (nothing was sent: build it whole instead)
     */
    private boolean sendGathered(Connection c, TransmitSink sink, DataPacket p) {
        int header = DataFlyweight.DATA_HEADER_LENGTH;
        int at = sink.claim(c.peer, p.path().index,
                header + DataFlyweight.IMMEDIATE_LENGTH + DataFlyweight.CRC_LENGTH);
        if (at < 0) {
            return false;
        }
        if (!sink.gathers()) {
            return false;   // a claim left open is harmless: the next one replaces it
        }
        MutableDirectBuffer buffer = sink.claimedBuffer();
        boolean withImmediate = (p.flags() & Flags.IMMEDIATE) != 0;
        int payload = p.payloadBytes();
        MemorySegment src = p.source();
        putDataHeader(claimData.wrap(buffer, at), c, p, payload + (withImmediate ? DataFlyweight.IMMEDIATE_LENGTH : 0));
        long area = buffer.addressOffset() + at;
        int crc = txCrc.update(Crc32c.START, area, header);
        crc = txCrc.update(crc, src.address() + p.sourceOffset(), payload);
        int trailer = 0;
        if (withImmediate) {
            buffer.putInt(at + header, p.immediate(), HeaderFlyweight.BYTE_ORDER);
            crc = txCrc.update(crc, area + header, DataFlyweight.IMMEDIATE_LENGTH);
            trailer = DataFlyweight.IMMEDIATE_LENGTH;
        }
        buffer.putInt(at + header + trailer, Crc32c.end(crc), HeaderFlyweight.BYTE_ORDER);
        sink.commitGather(header, src, p.sourceOffset(), payload, trailer + DataFlyweight.CRC_LENGTH);
        return true;
    }

    @Override
    public void sendAck(Connection c, TransmitSink sink, int pathIndex, ReceiverPath rx, double hintBytesPerSecond) {
        txAck.putHeader(pathIndex, rx.generation(), c.remoteId(), c.sessionTag())
                .cumulativePsn(rx.cumulative())
                .ecnCount(rx.ecnCount())
                .echoTimestampNs(rx.echoNs())
                .rateHintBytesPerSecond((long) hintBytesPerSecond);
        for (int i = 0; i < AckFlyweight.SACK_WORDS; i++) {
            txAck.sackWord(i, rx.word(i));
        }
        transmit(c, sink, pathIndex, AckFlyweight.FRAME_LENGTH - AckFlyweight.CRC_LENGTH);
        counters.increment(Counter.ACK_PACKETS_SENT);
    }

    @Override
    public void sendRnr(Connection c, TransmitSink sink, int stream, int message, long retryNs) {
        txRnr.putHeader(PacketType.RNR, Flags.NONE, 0, c.receiverPath(0).generation(), c.remoteId(), c.sessionTag(),
                        0)
                .streamId(stream)
                .messageSequence(message)
                .retryAfterNs(retryNs);
        transmit(c, sink, 0, RnrFlyweight.FRAME_LENGTH - RnrFlyweight.CRC_LENGTH);
        counters.increment(Counter.RNR_SENT);
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void sendProbe(Connection c, TransmitSink sink, int pathIndex, int generation, boolean reply, int seq,
                          long timestampNs) {
        txProbe.putHeader(reply ? PacketType.PROBE_REPLY : PacketType.PROBE, Flags.NONE, pathIndex, generation,
                        c.remoteId(), c.sessionTag(), 0)
                .probeSequence(seq)
                .timestampNs(timestampNs);
        transmit(c, sink, pathIndex, ProbeFlyweight.FRAME_LENGTH - ProbeFlyweight.CRC_LENGTH);
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void sendHandshake(Connection c, TransmitSink sink) {
        if (c.initiator) {
            txInit.putHeader(0, 0)
                    .initiatorConnectionId(c.localId)
                    .putNonce(c.localNonce(), 0)
                    .paths(c.paths())
                    .initReserved(0)
                    .payloadBytes(c.payloadBytes());
            cryptoFor(c).signInit(tx, 0);
            transmit(c, sink, 0, HandshakeInitFlyweight.FRAME_LENGTH - HandshakeInitFlyweight.CRC_LENGTH);
        } else {
            byte[] initiatorNonce = c.remoteNonce();
            txAccept.putHeader(0, 0, c.remoteId())
                    .acceptorConnectionId(c.localId)
                    .putNonce(c.localNonce(), 0)
                    .grantedSessionTag(c.sessionTag());
            crypto.signAccept(tx, 0, nonceWord(initiatorNonce, 0), nonceWord(initiatorNonce, 8));
            transmit(c, sink, 0, HandshakeAcceptFlyweight.FRAME_LENGTH - HandshakeAcceptFlyweight.CRC_LENGTH);
        }
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void sendClose(Connection c, TransmitSink sink, int reason) {
        txClose.putHeader(PacketType.CLOSE, Flags.NONE, 0, c.receiverPath(0).generation(), c.remoteId(),
                        c.sessionTag(), 0)
                .reason(reason);
        transmit(c, sink, 0, CloseFlyweight.FRAME_LENGTH - CloseFlyweight.CRC_LENGTH);
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void placeWrite(int regionKey, DirectBuffer datagram, int payloadOffset, long regionOffset, int length) {
        MemorySegment memory = regions.memory(regionKey);
        if (memory != null) {
            place(datagram, payloadOffset, memory, regionOffset, length);
            return;
        }
        RegionSink sink = regions.sink(regionKey);
        byte[] array = datagram.byteArray();
        if (array != null) {
            if (array != sinkArray) {   // the driver's receive buffers: a view per buffer, not per packet
                sinkArray = array;
                sinkArrayView = MemorySegment.ofArray(array);
            }
            sink.accept(sinkArrayView, datagram.wrapAdjustment() + payloadOffset, regionOffset, length);
            return;
        }
        checkPayload(datagram, payloadOffset, length);
        sink.accept(AllMemory.SEGMENT, datagram.addressOffset() + payloadOffset, regionOffset, length);
    }

    /** A received datagram's payload must lie inside its buffer: what native memory is read by address. */
    private static void checkPayload(DirectBuffer datagram, int payloadOffset, int length) {
        if (payloadOffset < 0 || length < 0 || (long) payloadOffset + length > datagram.capacity()) {
            throw new IndexOutOfBoundsException("payload [" + payloadOffset + ", +" + length
                    + ") is outside the datagram buffer of " + datagram.capacity() + " bytes");
        }
    }

    /** The heap receive buffer a sink was last given a view of, and that view. */
    private byte[] sinkArray;
    private MemorySegment sinkArrayView;

    @Override
    public void place(DirectBuffer datagram, int payloadOffset, MemorySegment dst, long dstOffset, int length) {
        byte[] array = datagram.byteArray();
        if (array != null) {
            MemorySegment.copy(array, (int) datagram.wrapAdjustment() + payloadOffset, dst, ValueLayout.JAVA_BYTE,
                    dstOffset, length);
            return;
        }
        checkPayload(datagram, payloadOffset, length);
        // Addressed through one segment over all memory: a view per buffer address would allocate whenever the
        // datagram comes from another socket's receive area than the one before (one view per path, per round).
        MemorySegment.copy(AllMemory.SEGMENT, datagram.addressOffset() + payloadOffset, dst, dstOffset, length);
    }

    @Override
    public void complete(Connection c, long workId, WorkKind kind, CompletionStatus status, long bytes) {
        completions.add(c.localId, workId, kind, status, bytes);
    }

    @Override
    public double hint(Connection c) {
        return fairShare.hint(c.slot);
    }

    @Override
    public void inbound(Connection c, long bytes, boolean ecnMarked, long nowNs) {
        fairShare.onBytes(c.slot, bytes, ecnMarked, nowNs);
    }

    @Override
    public long nextWorkId() {
        return nextWorkId++;
    }

    /**
     * @param connectionId a connection
     * @return the connection (for tests and metrics), or null
     */
    public Connection connection(int connectionId) {
        return byId.get(connectionId);
    }
}
