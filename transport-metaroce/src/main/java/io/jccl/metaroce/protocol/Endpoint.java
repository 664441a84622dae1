package io.jccl.metaroce.protocol;

import io.jccl.metaroce.protocol.cc.FairShare;
import io.jccl.metaroce.protocol.conn.Connection;
import io.jccl.metaroce.protocol.path.ReceiverPath;
import io.jccl.metaroce.protocol.path.SenderPath;
import io.jccl.metaroce.protocol.region.RegionTable;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;
import java.util.zip.CRC32C;

import static io.jccl.metaroce.protocol.PacketIo.LE;

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
    private static final byte[] INIT_LABEL = "init".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACCEPT_LABEL = "accept".getBytes(StandardCharsets.US_ASCII);

    private final EndpointConfig config;
    private final RandomGenerator random;
    private final Counters counters = new Counters();
    private final RegionTable regions = new RegionTable();
    private final Int2ObjectHashMap<Connection> byId = new Int2ObjectHashMap<>();
    private final Long2LongHashMap byPeer = new Long2LongHashMap(Long.MIN_VALUE);
    private final List<Connection> connections = new ArrayList<>();
    private final FairShare fairShare;
    private final Mac mac;
    private final CRC32C crc = new CRC32C();
    private final byte[] txBytes = new byte[MAX_DATAGRAM];
    private final UnsafeBuffer tx = new UnsafeBuffer(txBytes);
    private final MemorySegment txSegment = MemorySegment.ofArray(txBytes);
    private final byte[] scratch = new byte[MAX_DATAGRAM];
    private long nextWorkId = 1;
    private int emitCursor;

    // Completion queue (grows only when more completions pile up than ever before).
    private int[] doneConnection = new int[64];
    private long[] doneWork = new long[64];
    private WorkKind[] doneKind = new WorkKind[64];
    private CompletionStatus[] doneStatus = new CompletionStatus[64];
    private long[] doneBytes = new long[64];
    private int doneHead;
    private int doneCount;

    // Placement from address-backed datagram buffers: one reusable view.
    private long viewAddress = -1;
    private MemorySegment view;

    /**
     * @param config the settings
     * @param random where connection ids, nonces and session tags come from (the driver decides how strong)
     */
    public Endpoint(EndpointConfig config, RandomGenerator random) {
        this.config = Objects.requireNonNull(config, "config");
        this.random = Objects.requireNonNull(random, "random");
        this.fairShare = new FairShare(config.inboundBytesPerSecond(), Math.max(10_000, config.delayedAckNs()));
        try {
            this.mac = Mac.getInstance("HmacSHA256");
            this.mac.init(new SecretKeySpec(config.handshakeKey(), "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
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

    private int newConnectionId() {
        int id;
        do {
            id = random.nextInt() & Integer.MAX_VALUE;   // positive, so that -1 can mean "none"
        } while (id == 0 || byId.containsKey(id));
        return id;
    }

    @Override
    public int connect(long nowNs, long peer) {
        long existing = byPeer.get(peer);
        if (existing != Long.MIN_VALUE) {
            return (int) existing;
        }
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        Connection c = new Connection(config, this, counters, newConnectionId(), connections.size(), peer, true, nonce,
                config.paths(), config.payloadBytes(), nowNs);
        add(c);
        return c.localId;
    }

    private void add(Connection c) {
        c.regions(regions::writable);
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

    @Override
    public long postWrite(int connectionId, int regionKey, long remoteOffset, MemorySegment local, long offset,
                          long length) {
        checkRange(local, offset, length, "postWrite");
        if (remoteOffset < 0) {
            throw new IllegalArgumentException("postWrite: remoteOffset must not be negative, got " + remoteOffset);
        }
        return require(connectionId).postWrite(regionKey, remoteOffset, local, offset, length);
    }

    @Override
    public long postSend(int connectionId, int stream, MemorySegment local, long offset, long length) {
        checkRange(local, offset, length, "postSend");
        return require(connectionId).postSend(stream, local, offset, length);
    }

    @Override
    public long postRecv(int connectionId, int stream, MemorySegment local, long offset, long capacity) {
        checkRange(local, offset, capacity, "postRecv");
        if (local.isReadOnly() && capacity > 0) {
            throw new IllegalArgumentException("postRecv: the receive buffer is read-only");
        }
        return require(connectionId).postRecv(stream, local, offset, capacity);
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
        while (doneCount > 0) {
            int i = doneHead;
            doneHead = (doneHead + 1) % doneWork.length;
            doneCount--;
            counters.increment(Counter.COMPLETIONS);
            handler.onCompletion(doneConnection[i], doneWork[i], doneKind[i], doneStatus[i], doneBytes[i]);
            doneKind[i] = null;
            n++;
        }
        return n;
    }

    // ---- Engine ----

    @Override
    public void onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset, int length,
                           boolean ecnMarked) {
        DropReason structural = check(buffer, offset, length);
        if (structural != null) {
            counters.drop(structural);
            return;
        }
        int type = PacketIo.type(buffer, offset);
        int connectionId = PacketIo.connection(buffer, offset);
        if (type == PacketIo.HANDSHAKE_INIT) {
            onInit(nowNs, source, buffer, offset);
            return;
        }
        Connection c = byId.get(connectionId);
        if (c == null) {
            counters.drop(DropReason.UNKNOWN_CONNECTION);
            return;
        }
        if (type == PacketIo.HANDSHAKE_ACCEPT) {
            onAccept(nowNs, c, buffer, offset);
            return;
        }
        if (c.state() == Connection.State.CONNECTING || PacketIo.session(buffer, offset) != c.sessionTag()) {
            counters.drop(c.state() == Connection.State.CONNECTING ? DropReason.UNEXPECTED : DropReason.BAD_SESSION_TAG);
            return;
        }
        int path = PacketIo.path(buffer, offset);
        if (path >= c.paths()) {
            counters.drop(DropReason.BAD_PATH);
            return;
        }
        int generation = PacketIo.generation(buffer, offset);
        switch (type) {
            case PacketIo.WRITE, PacketIo.SEND -> onDataPacket(nowNs, c, buffer, offset, type == PacketIo.WRITE, path,
                    generation, ecnMarked);
            case PacketIo.ACK -> {
                SenderPath p = c.senderPath(path);
                if (generation != p.generation()) {
                    counters.drop(DropReason.STALE_GENERATION);
                    return;
                }
                double hint = (double) buffer.getLong(offset + PacketIo.O_RATE, LE);
                c.onAck(nowNs, path, buffer.getInt(offset + PacketIo.O_CUMULATIVE, LE),
                        buffer.getInt(offset + PacketIo.O_ECN, LE), buffer.getLong(offset + PacketIo.O_ECHO, LE), hint,
                        buffer.getLong(offset + PacketIo.O_SACK, LE), buffer.getLong(offset + PacketIo.O_SACK + 8, LE),
                        buffer.getLong(offset + PacketIo.O_SACK + 16, LE),
                        buffer.getLong(offset + PacketIo.O_SACK + 24, LE));
            }
            case PacketIo.PROBE -> {
                if (!adoptGeneration(c.receiverPath(path), generation)) {
                    return;
                }
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                c.onProbe(path, generation, buffer.getInt(offset + PacketIo.O_PROBE_SEQ, LE),
                        buffer.getLong(offset + PacketIo.O_PROBE_TS, LE));
            }
            case PacketIo.PROBE_REPLY -> {
                if (generation != c.senderPath(path).generation()) {
                    counters.drop(DropReason.STALE_GENERATION);
                    return;
                }
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                c.onProbeReply(nowNs, path, buffer.getInt(offset + PacketIo.O_PROBE_SEQ, LE),
                        buffer.getLong(offset + PacketIo.O_PROBE_TS, LE));
            }
            case PacketIo.CLOSE -> {
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                c.onClose();
                fairShare.remove(c.slot);
            }
            case PacketIo.RNR -> {
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                c.onRnr(nowNs, buffer.getInt(offset + PacketIo.O_RNR_STREAM, LE),
                        buffer.getInt(offset + PacketIo.O_RNR_MESSAGE, LE),
                        buffer.getLong(offset + PacketIo.O_RNR_RETRY, LE));
            }
            default -> counters.drop(DropReason.UNKNOWN_TYPE);
        }
    }

    /** A packet of a newer generation starts the path over; an older one is stale. */
    private boolean adoptGeneration(ReceiverPath rx, int generation) {
        int diff = (short) (generation - rx.generation());
        if (diff > 0) {
            rx.reset(generation);
            return true;
        }
        if (diff < 0) {
            counters.drop(DropReason.STALE_GENERATION);
            return false;
        }
        return true;
    }

    private void onDataPacket(long nowNs, Connection c, DirectBuffer b, int o, boolean write, int path,
                              int generation, boolean ecnMarked) {
        if (!adoptGeneration(c.receiverPath(path), generation)) {
            return;
        }
        DropReason reason = c.onData(nowNs, b, o, write, path, b.getInt(o + PacketIo.O_PSN, LE), PacketIo.flags(b, o),
                b.getLong(o + PacketIo.O_TIMESTAMP, LE), b.getInt(o + PacketIo.O_MESSAGE, LE),
                b.getInt(o + PacketIo.O_TARGET, LE), b.getLong(o + PacketIo.O_OFFSET, LE),
                b.getLong(o + PacketIo.O_MESSAGE_LENGTH, LE), b.getLong(o + PacketIo.O_BASE, LE),
                o + PacketIo.DATA_HEADER, PacketIo.bodyLength(b, o), ecnMarked);
        if (reason != null) {
            counters.drop(reason);
        }
    }

    private void onInit(long nowNs, long source, DirectBuffer b, int o) {
        int initiatorId = b.getInt(o + PacketIo.O_INIT_ID, LE);
        byte[] nonce = new byte[16];
        b.getBytes(o + PacketIo.O_INIT_NONCE, nonce);
        int paths = b.getByte(o + PacketIo.O_INIT_PATHS) & 0xFF;
        int payload = b.getShort(o + PacketIo.O_INIT_PAYLOAD, LE) & 0xFFFF;
        byte[] expected = initMac(initiatorId, nonce, paths, payload);
        byte[] got = new byte[32];
        b.getBytes(o + PacketIo.O_INIT_MAC, got);
        if (!MessageDigest.isEqual(expected, got)) {
            counters.drop(DropReason.BAD_HANDSHAKE_MAC);
            return;
        }
        if (paths < 1 || paths > EndpointConfig.MAX_PATHS || payload < 256 || payload > 65000) {
            counters.drop(DropReason.BAD_FIELD);
            return;
        }
        counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
        long existing = byPeer.get(source);
        if (existing != Long.MIN_VALUE) {
            Connection c = byId.get((int) existing);
            if (c != null && c.remoteId() == initiatorId && MessageDigest.isEqual(c.remoteNonce(), nonce)) {
                c.acceptAgain();   // our ACCEPT was lost
                return;
            }
            if (c != null && c.state() != Connection.State.CLOSED) {
                counters.drop(DropReason.UNEXPECTED);   // the peer already has a live connection here
                return;
            }
        }
        byte[] ours = new byte[16];
        random.nextBytes(ours);
        Connection c = new Connection(config, this, counters, newConnectionId(), connections.size(), source, false,
                ours, paths, payload, nowNs);
        int tag;
        do {
            tag = random.nextInt();
        } while (tag == 0);
        c.accepted(initiatorId, nonce, tag);
        add(c);
        counters.increment(Counter.CONNECTIONS_OPENED);
    }

    private void onAccept(long nowNs, Connection c, DirectBuffer b, int o) {
        if (!c.initiator || c.state() != Connection.State.CONNECTING) {
            counters.drop(DropReason.UNEXPECTED);
            return;
        }
        int acceptorId = b.getInt(o + PacketIo.O_ACCEPT_ID, LE);
        byte[] nonce = new byte[16];
        b.getBytes(o + PacketIo.O_ACCEPT_NONCE, nonce);
        int tag = b.getInt(o + PacketIo.O_ACCEPT_TAG, LE);
        byte[] expected = acceptMac(c.localId, acceptorId, c.localNonce(), nonce, tag);
        byte[] got = new byte[32];
        b.getBytes(o + PacketIo.O_ACCEPT_MAC, got);
        if (!MessageDigest.isEqual(expected, got)) {
            counters.drop(DropReason.BAD_HANDSHAKE_MAC);
            return;
        }
        counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
        c.established(nowNs, acceptorId, nonce, tag);
    }

    private byte[] initMac(int initiatorId, byte[] nonce, int paths, int payload) {
        mac.reset();
        mac.update(INIT_LABEL);
        mac.update(ByteBuffer.allocate(4).order(LE).putInt(initiatorId).array());
        mac.update(nonce);
        mac.update((byte) paths);
        mac.update(ByteBuffer.allocate(2).order(LE).putShort((short) payload).array());
        return mac.doFinal();
    }

    private byte[] acceptMac(int initiatorId, int acceptorId, byte[] initiatorNonce, byte[] acceptorNonce, int tag) {
        mac.reset();
        mac.update(ACCEPT_LABEL);
        mac.update(ByteBuffer.allocate(12).order(LE).putInt(initiatorId).putInt(acceptorId).putInt(tag).array());
        mac.update(initiatorNonce);
        mac.update(acceptorNonce);
        return mac.doFinal();
    }

    @Override
    public void onTimeout(long nowNs) {
        fairShare.update(nowNs);
        for (Connection c : connections) {
            c.onTimeout(nowNs);
        }
    }

    @Override
    public long nextTimeoutNs() {
        long next = Long.MAX_VALUE;
        for (Connection c : connections) {
            next = Math.min(next, c.nextTimeoutNs());
        }
        if (fairShare.activeSenders() > 0) {
            next = Math.min(next, fairShare.nextUpdateNs());
        }
        return next;
    }

    @Override
    public int pollTransmit(long nowNs, TransmitSink sink) {
        fairShare.update(nowNs);
        int n = 0;
        int size = connections.size();
        for (int k = 0; k < size; k++) {
            n += connections.get((emitCursor + k) % size).emit(nowNs, sink);
        }
        emitCursor = size == 0 ? 0 : (emitCursor + 1) % size;
        return n;
    }

    // ---- Structural checks ----

    private static int lengthFor(int type, int body) {
        return switch (type) {
            case PacketIo.WRITE, PacketIo.SEND -> PacketIo.DATA_HEADER + body + PacketIo.CRC_BYTES;
            case PacketIo.ACK -> PacketIo.ACK_LENGTH;
            case PacketIo.HANDSHAKE_INIT -> PacketIo.INIT_LENGTH;
            case PacketIo.HANDSHAKE_ACCEPT -> PacketIo.ACCEPT_LENGTH;
            case PacketIo.PROBE, PacketIo.PROBE_REPLY -> PacketIo.PROBE_LENGTH;
            case PacketIo.CLOSE -> PacketIo.CLOSE_LENGTH;
            case PacketIo.RNR -> PacketIo.RNR_LENGTH;
            default -> -1;
        };
    }

    DropReason check(DirectBuffer b, int o, int length) {
        if (length < PacketIo.COMMON + PacketIo.CRC_BYTES || o < 0 || o > b.capacity() - length) {
            return DropReason.TRUNCATED;
        }
        if (b.getShort(o + PacketIo.O_MAGIC, LE) != PacketIo.MAGIC) {
            return DropReason.BAD_MAGIC;
        }
        if (b.getByte(o + PacketIo.O_VERSION) != PacketIo.VERSION) {
            return DropReason.BAD_VERSION;
        }
        int type = PacketIo.type(b, o);
        int body = PacketIo.bodyLength(b, o);
        boolean data = type == PacketIo.WRITE || type == PacketIo.SEND;
        int expected = lengthFor(type, body);
        if (expected < 0) {
            return DropReason.UNKNOWN_TYPE;
        }
        if (expected != length || (!data && body != 0)) {
            return DropReason.BAD_LENGTH;
        }
        if (!crcMatches(b, o, length - PacketIo.CRC_BYTES)) {
            return DropReason.BAD_CRC;
        }
        int flags = PacketIo.flags(b, o);
        if ((flags & ~(data ? 7 : 0)) != 0 || b.getShort(o + 18, LE) != 0 || PacketIo.path(b, o) >= 64) {
            return DropReason.BAD_FIELD;
        }
        return null;
    }

    private boolean crcMatches(DirectBuffer b, int o, int length) {
        crc.reset();
        byte[] array = b.byteArray();
        if (array != null) {
            crc.update(array, (int) b.wrapAdjustment() + o, length);
        } else {
            b.getBytes(o, scratch, 0, length);
            crc.update(scratch, 0, length);
        }
        return (int) crc.getValue() == b.getInt(o + length, LE);
    }

    // ---- Connection.Context: building packets, placing data, completions ----

    private void transmit(Connection c, TransmitSink sink, int path, int lengthWithoutCrc) {
        int length = PacketIo.finish(crc, txBytes, lengthWithoutCrc);
        sink.transmit(c.peer, path, tx, 0, length);
    }

    @Override
    public void sendData(Connection c, TransmitSink sink, SenderPath path, int psn, long nowNs, boolean write,
                         int flags, int message, int target, long offset, long messageLength, long base,
                         MemorySegment src, long srcOffset, int payload) {
        PacketIo.header(tx, write ? PacketIo.WRITE : PacketIo.SEND, flags, path.index, path.generation(), c.remoteId(),
                c.sessionTag(), payload);
        tx.putInt(PacketIo.O_PSN, psn, LE);
        tx.putLong(PacketIo.O_TIMESTAMP, nowNs, LE);
        tx.putInt(PacketIo.O_MESSAGE, message, LE);
        tx.putInt(PacketIo.O_TARGET, target, LE);
        tx.putLong(PacketIo.O_OFFSET, offset, LE);
        tx.putLong(PacketIo.O_MESSAGE_LENGTH, messageLength, LE);
        tx.putLong(PacketIo.O_BASE, base, LE);
        if (payload > 0) {
            MemorySegment.copy(src, srcOffset, txSegment, PacketIo.DATA_HEADER, payload);
        }
        transmit(c, sink, path.index, PacketIo.DATA_HEADER + payload);
    }

    @Override
    public void sendAck(Connection c, TransmitSink sink, int pathIndex, ReceiverPath rx, double hintBytesPerSecond) {
        PacketIo.header(tx, PacketIo.ACK, 0, pathIndex, rx.generation(), c.remoteId(), c.sessionTag(), 0);
        tx.putInt(PacketIo.O_CUMULATIVE, rx.cumulative(), LE);
        tx.putInt(PacketIo.O_ECN, rx.ecnCount(), LE);
        tx.putLong(PacketIo.O_ECHO, rx.echoNs(), LE);
        tx.putLong(PacketIo.O_RATE, (long) hintBytesPerSecond, LE);
        for (int i = 0; i < 4; i++) {
            tx.putLong(PacketIo.O_SACK + 8 * i, rx.word(i), LE);
        }
        transmit(c, sink, pathIndex, PacketIo.ACK_LENGTH - PacketIo.CRC_BYTES);
        counters.increment(Counter.ACK_PACKETS_SENT);
    }

    @Override
    public void sendRnr(Connection c, TransmitSink sink, int stream, int message, long retryNs) {
        PacketIo.header(tx, PacketIo.RNR, 0, 0, c.receiverPath(0).generation(), c.remoteId(), c.sessionTag(), 0);
        tx.putInt(PacketIo.O_RNR_STREAM, stream, LE);
        tx.putInt(PacketIo.O_RNR_MESSAGE, message, LE);
        tx.putLong(PacketIo.O_RNR_RETRY, retryNs, LE);
        transmit(c, sink, 0, PacketIo.RNR_LENGTH - PacketIo.CRC_BYTES);
        counters.increment(Counter.RNR_SENT);
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void sendProbe(Connection c, TransmitSink sink, int pathIndex, int generation, boolean reply, int seq,
                          long timestampNs) {
        PacketIo.header(tx, reply ? PacketIo.PROBE_REPLY : PacketIo.PROBE, 0, pathIndex, generation, c.remoteId(),
                c.sessionTag(), 0);
        tx.putInt(PacketIo.O_PROBE_SEQ, seq, LE);
        tx.putLong(PacketIo.O_PROBE_TS, timestampNs, LE);
        transmit(c, sink, pathIndex, PacketIo.PROBE_LENGTH - PacketIo.CRC_BYTES);
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void sendHandshake(Connection c, TransmitSink sink) {
        if (c.initiator) {
            PacketIo.header(tx, PacketIo.HANDSHAKE_INIT, 0, 0, 0, 0, 0, 0);
            tx.putInt(PacketIo.O_INIT_ID, c.localId, LE);
            tx.putBytes(PacketIo.O_INIT_NONCE, c.localNonce());
            tx.putByte(PacketIo.O_INIT_PATHS, (byte) c.paths());
            tx.putByte(PacketIo.O_INIT_PATHS + 1, (byte) 0);
            tx.putShort(PacketIo.O_INIT_PAYLOAD, (short) c.payloadBytes(), LE);
            tx.putBytes(PacketIo.O_INIT_MAC, initMac(c.localId, c.localNonce(), c.paths(), c.payloadBytes()));
            transmit(c, sink, 0, PacketIo.INIT_LENGTH - PacketIo.CRC_BYTES);
        } else {
            PacketIo.header(tx, PacketIo.HANDSHAKE_ACCEPT, 0, 0, 0, c.remoteId(), 0, 0);
            tx.putInt(PacketIo.O_ACCEPT_ID, c.localId, LE);
            tx.putBytes(PacketIo.O_ACCEPT_NONCE, c.localNonce());
            tx.putInt(PacketIo.O_ACCEPT_TAG, c.sessionTag(), LE);
            tx.putBytes(PacketIo.O_ACCEPT_MAC, acceptMac(c.remoteId(), c.localId, c.remoteNonce(), c.localNonce(),
                    c.sessionTag()));
            transmit(c, sink, 0, PacketIo.ACCEPT_LENGTH - PacketIo.CRC_BYTES);
        }
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void sendClose(Connection c, TransmitSink sink) {
        PacketIo.header(tx, PacketIo.CLOSE, 0, 0, c.receiverPath(0).generation(), c.remoteId(), c.sessionTag(), 0);
        tx.putInt(PacketIo.O_CLOSE_REASON, 0, LE);
        transmit(c, sink, 0, PacketIo.CLOSE_LENGTH - PacketIo.CRC_BYTES);
        counters.increment(Counter.CONTROL_PACKETS_SENT);
    }

    @Override
    public void place(DirectBuffer datagram, int payloadOffset, MemorySegment dst, long dstOffset, int length) {
        byte[] array = datagram.byteArray();
        if (array != null) {
            MemorySegment.copy(array, (int) datagram.wrapAdjustment() + payloadOffset, dst, ValueLayout.JAVA_BYTE,
                    dstOffset, length);
            return;
        }
        long address = datagram.addressOffset();
        if (address != viewAddress) {
            view = MemorySegment.ofAddress(address).reinterpret(datagram.capacity());
            viewAddress = address;
        }
        MemorySegment.copy(view, payloadOffset, dst, dstOffset, length);
    }

    @Override
    public void complete(Connection c, long workId, WorkKind kind, CompletionStatus status, long bytes) {
        if (doneCount == doneWork.length) {
            int n = doneWork.length * 2;
            int[] dc = new int[n];
            long[] dw = new long[n];
            WorkKind[] dk = new WorkKind[n];
            CompletionStatus[] ds = new CompletionStatus[n];
            long[] db = new long[n];
            for (int i = 0; i < doneCount; i++) {
                int from = (doneHead + i) % doneWork.length;
                dc[i] = doneConnection[from];
                dw[i] = doneWork[from];
                dk[i] = doneKind[from];
                ds[i] = doneStatus[from];
                db[i] = doneBytes[from];
            }
            doneConnection = dc;
            doneWork = dw;
            doneKind = dk;
            doneStatus = ds;
            doneBytes = db;
            doneHead = 0;
        }
        int at = (doneHead + doneCount++) % doneWork.length;
        doneConnection[at] = c.localId;
        doneWork[at] = workId;
        doneKind[at] = kind;
        doneStatus[at] = status;
        doneBytes[at] = bytes;
    }

    @Override
    public double hint(Connection c) {
        return fairShare.hint(c.slot);
    }

    @Override
    public void inbound(Connection c, long bytes, long nowNs) {
        fairShare.onBytes(c.slot, bytes, nowNs);
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
