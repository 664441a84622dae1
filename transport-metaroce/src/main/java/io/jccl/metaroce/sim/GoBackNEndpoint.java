package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.CompletionQueue;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A model of RoCEv2's reliable connection as deployed without PFC: the baseline MetaRoCE is measured against, run in
 * the same simulated fabric. One path per connection (path 0), packet sequence numbers (PSNs) per connection, the
 * receiver accepts only the next expected PSN (out-of-order packets are discarded: no reorder buffer), cumulative
 * ACKs, a fixed window, and go-back-N recovery: the sender resends everything from the first unacknowledged PSN when
 * the receiver sends a NAK (sequence error, once per gap, as RoCE responders do), after
 * {@link GoBackNConfig#dupAckThreshold()} duplicate ACKs, or when the retransmission timer (fixed, no backoff)
 * expires. Data leaves at the NIC's line rate ({@link GoBackNConfig#lineRateBitsPerSecond()}, round-robin over
 * connections), as a NIC's transmit engine builds packets when the wire is free. Congestion control is DCQCN where
 * {@link GoBackNConfig#dcqcn()} is set: a receiver answers ECN-marked data with a CNP (at most one per connection per
 * interval), and each connection's sender paces itself at its {@link DcqcnRate}, cut by CNPs (each counted as
 * {@link Counter#ECN_WINDOW_CUTS}); without it ECN marks are counted and otherwise ignored.
 *
 * <p>Supported: any number of connections (one per peer; the passive side learns of one from the handshake),
 * WRITE into a registered region, SEND/RECV on streams (a SEND that finds no posted receive gets an RNR NAK and is
 * resent after {@link EndpointConfig#rnrRetryNs()}, as in RoCE), close. Retransmissions caused by the receiver (NAK,
 * duplicate ACKs, RNR) count as {@link Counter#RETRANSMITS_SACK}, those caused by the timer as
 * {@link Counter#RETRANSMITS_RTO}.
 *
 * <h2>Packet format (little-endian; every packet ends with a CRC32C of everything before it)</h2>
 * <pre>
 * common   0  u16 magic 0x4E47 ("GN")
 *          2  u8  type: 1 DATA, 2 ACK, 3 NAK, 4 RNR, 5 HELLO, 6 HELLO_ACK, 7 CLOSE, 8 CNP
 *          4  u32 PSN: DATA the packet's; ACK, NAK, RNR the next PSN expected (all before it received)
 *          3  u8  flags (DATA): bit 0 LAST, bit 1 FIRST, bit 2 SEND (else WRITE)
 * control  8  u32 CRC32C                                             (12 bytes in all)
 * DATA     8  u32 target: WRITE the region key, SEND the stream
 *         12  u32 payload length
 *         16  u64 offset of the payload in the message
 *         24  u64 message length
 *         32  u64 WRITE: remote region offset of the message; SEND: 0
 *         40  payload, then u32 CRC32C                               (44 + payload bytes)
 * </pre>
 * A datagram with a bad CRC, magic, type or length is dropped and counted ({@link Counters#drop}).
 */
public final class GoBackNEndpoint implements Verbs {
    static final int MAGIC = 0x4E47;
    static final int T_DATA = 1;
    /** Offset of the type byte in every packet, and the type of a DATA packet (for a fabric telling data apart). */
    public static final int TYPE_OFFSET = 2;
    /** See {@link #TYPE_OFFSET}. */
    public static final int DATA_TYPE = T_DATA;
    static final int T_ACK = 2;
    static final int T_NAK = 3;
    static final int T_RNR = 4;
    static final int T_HELLO = 5;
    static final int T_HELLO_ACK = 6;
    static final int T_CLOSE = 7;
    static final int T_CNP = 8;
    static final int F_LAST = 1;
    static final int F_FIRST = 2;
    static final int F_SEND = 4;
    /** Bytes of a DATA packet before its payload. */
    public static final int DATA_HEADER_BYTES = 40;
    /** Bytes of a control packet (ACK, NAK, ...). */
    public static final int CONTROL_BYTES = 12;
    static final int CRC_BYTES = 4;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final EndpointConfig config;
    private final GoBackNConfig gbn;
    private final long nodeId;
    private final int payloadBytes;
    private final Counters counters = new Counters();
    /** Checks the CRC of what arrives. */
    private final CRC32C crc = new CRC32C();
    private final byte[] rxScratch;
    private final GoBackNTransmitter transmitter;
    private final CompletionQueue completions = new CompletionQueue();

    private final GoBackNRegions regions = new GoBackNRegions();

    private final Long2ObjectHashMap<GoBackNConnection> byPeer = new Long2ObjectHashMap<>();
    private GoBackNConnection[] conns = new GoBackNConnection[4];
    private int connCount;
    private long nextWorkId = 1;
    private long outOfOrderDiscarded;
    /** Round-robin start among connections with data to send. */
    private int nextConn;

    /**
     * @param config the endpoint settings (payload size, ACK coalescing, delayed-ACK and RNR times, work limit)
     * @param gbn    the baseline's own settings
     * @param nodeId this node's id
     */
    public GoBackNEndpoint(EndpointConfig config, GoBackNConfig gbn, long nodeId) {
        this.config = Objects.requireNonNull(config, "config");
        this.gbn = Objects.requireNonNull(gbn, "gbn");
        this.nodeId = nodeId;
        this.payloadBytes = config.payloadBytes();
        if (gbn.windowPackets() < config.ackEveryPackets()) {
            throw new IllegalArgumentException("windowPackets=" + gbn.windowPackets() + " must be at least "
                    + "ackEveryPackets=" + config.ackEveryPackets());
        }
        transmitter = new GoBackNTransmitter(gbn, payloadBytes, counters);
        rxScratch = new byte[Math.max(65536, transmitter.maxDatagramBytes())];
    }

    /** @return the largest datagram this endpoint sends */
    public int maxDatagramBytes() {
        return transmitter.maxDatagramBytes();
    }

    /** @return this node's id */
    public long nodeId() {
        return nodeId;
    }

    /** @return DATA packets discarded because they were not the next expected (go-back-N has no reorder buffer) */
    public long outOfOrderDiscarded() {
        return outOfOrderDiscarded;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Verbs

    @Override
    public int registerRegion(MemorySegment memory, boolean remoteWritable) {
        Objects.requireNonNull(memory, "memory");
        return regions.register(memory, remoteWritable);
    }

    @Override
    public void deregisterRegion(int key) {
        regions.deregister(key);
    }

    @Override
    public int connect(long nowNs, long peer) {
        GoBackNConnection c = byPeer.get(peer);
        if (c != null) {
            return c.id;
        }
        c = newConn(peer);
        c.initiator = true;
        c.helloDue = true;
        return c.id;
    }

    @Override
    public int connectionTo(long peer) {
        GoBackNConnection c = byPeer.get(peer);
        return c == null ? -1 : c.id;
    }

    @Override
    public boolean isEstablished(int connectionId) {
        return connectionId >= 0 && connectionId < connCount && conns[connectionId].established
                && !conns[connectionId].closed;
    }

    @Override
    public long postWrite(int connectionId, int regionKey, long remoteOffset, MemorySegment local, long offset,
                          long length) {
        if (remoteOffset < 0) {
            throw new IllegalArgumentException("remoteOffset " + remoteOffset + " < 0");
        }
        return post(connectionId, false, regionKey, remoteOffset, local, offset, length);
    }

    @Override
    public long postSend(int connectionId, int stream, MemorySegment local, long offset, long length) {
        return post(connectionId, true, stream, 0, local, offset, length);
    }

    /**
     * Checks a post: the connection exists and is open, the memory range lies in {@code local}.
     *
     * @return the connection, or null when it holds as much posted work as it may (the post answers QUEUE_FULL)
     */
    private GoBackNConnection acceptingWork(int connectionId, MemorySegment local, long offset, long length) {
        GoBackNConnection c = conn(connectionId);
        checkRange(local, offset, length);
        if (c.closed) {
            throw new IllegalStateException("connection " + connectionId + " is closed");
        }
        return c.pendingWork >= config.maxPendingWork() ? null : c;
    }

    private long post(int connectionId, boolean send, int target, long remoteBase, MemorySegment local, long offset,
                      long length) {
        GoBackNConnection c = acceptingWork(connectionId, local, offset, length);
        if (c == null) {
            return QUEUE_FULL;
        }
        GoBackNConnection.Work w = new GoBackNConnection.Work();
        w.workId = nextWorkId++;
        w.send = send;
        w.target = target;
        w.remoteBase = remoteBase;
        w.local = local;
        w.offset = offset;
        w.length = length;
        w.firstPsn = c.end;
        w.packets = Math.max(1, (length + payloadBytes - 1) / payloadBytes);
        c.end += w.packets;
        c.append(w);
        c.pendingWork++;
        return w.workId;
    }

    @Override
    public long postRecv(int connectionId, int stream, MemorySegment local, long offset, long capacity) {
        GoBackNConnection c = acceptingWork(connectionId, local, offset, capacity);
        if (c == null) {
            return QUEUE_FULL;
        }
        ArrayDeque<GoBackNConnection.Recv> q = c.recvs.get(stream);
        if (q == null) {
            q = new ArrayDeque<>();
            c.recvs.put(stream, q);
        }
        long id = nextWorkId++;
        q.add(new GoBackNConnection.Recv(id, local, offset, capacity));
        c.pendingWork++;
        return id;
    }

    @Override
    public int pollCompletions(CompletionHandler handler) {
        return completions.poll(handler);
    }

    @Override
    public void close(long nowNs, int connectionId) {
        GoBackNConnection c = conn(connectionId);
        if (c.closed) {
            return;
        }
        c.closeDue = true;
        shutDown(c);
    }

    @Override
    public Counters counters() {
        return counters;
    }

    private GoBackNConnection conn(int id) {
        if (id < 0 || id >= connCount) {
            throw new IllegalArgumentException("no connection " + id);
        }
        return conns[id];
    }

    private static void checkRange(MemorySegment local, long offset, long length) {
        Objects.requireNonNull(local, "local");
        if (offset < 0 || length < 0 || offset + length > local.byteSize()) {
            throw new IllegalArgumentException("[" + offset + ", " + offset + "+" + length + ") is outside the "
                    + local.byteSize() + "-byte buffer");
        }
    }

    private GoBackNConnection newConn(long peer) {
        if (connCount == conns.length) {
            conns = Arrays.copyOf(conns, connCount * 2);
        }
        GoBackNConnection c = new GoBackNConnection(connCount, peer);
        if (gbn.dcqcn() != null) {
            c.rate = new DcqcnRate(gbn.dcqcn(), gbn.lineRateBitsPerSecond());
        }
        conns[connCount++] = c;
        byPeer.put(peer, c);
        return c;
    }

    private void shutDown(GoBackNConnection c) {
        c.closed = true;
        for (int i = 0; i < c.count; i++) {
            GoBackNConnection.Work w = c.work(i);
            complete(c, w.workId, w.send ? WorkKind.SEND : WorkKind.WRITE, CompletionStatus.CONNECTION_CLOSED, 0);
        }
        c.count = 0;
        c.cursor = 0;
        c.rtoDeadlineNs = Long.MAX_VALUE;
        c.ackDeadlineNs = Long.MAX_VALUE;
        c.helloDeadlineNs = Long.MAX_VALUE;
        c.rnrWaiting = false;
        c.control = 0;
        c.recvs.forEach((stream, q) -> {
            for (GoBackNConnection.Recv r : q) {
                complete(c, r.workId(), WorkKind.RECV, CompletionStatus.CONNECTION_CLOSED, 0);
            }
            q.clear();
        });
        c.pendingWork = 0;
        counters.increment(Counter.CONNECTIONS_CLOSED);
    }

    private void complete(GoBackNConnection c, long workId, WorkKind kind, CompletionStatus status, long bytes) {
        completions.add(c.id, workId, kind, status, bytes);
        counters.increment(Counter.COMPLETIONS);
    }

    /** Why the datagram {@link #onDatagram} is taking was dropped, or null. */
    private DropReason dropped;

    // ---------------------------------------------------------------------------------------------------------
    // Engine

    @Override
    public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset, int length,
                                 boolean ecnMarked) {
        dropped = null;
        receive(nowNs, source, buffer, offset, length, ecnMarked);
        return dropped;
    }

    /** Counts a drop and remembers it for {@link #onDatagram}'s answer. */
    private void drop(DropReason reason) {
        counters.drop(reason);
        dropped = reason;
    }

    private void receive(long nowNs, long source, DirectBuffer buffer, int offset, int length, boolean ecnMarked) {
        if (length < CONTROL_BYTES) {
            drop(DropReason.TRUNCATED);
            return;
        }
        byte[] array = buffer.byteArray();
        int base;
        if (array != null) {
            base = buffer.wrapAdjustment() + offset;
        } else {
            if (length > rxScratch.length) {
                drop(DropReason.BAD_LENGTH);
                return;
            }
            buffer.getBytes(offset, rxScratch, 0, length);
            array = rxScratch;
            base = 0;
        }
        crc.reset();
        crc.update(array, base, length - CRC_BYTES);
        if ((int) crc.getValue() != buffer.getInt(offset + length - CRC_BYTES, LE)) {
            drop(DropReason.BAD_CRC);
            return;
        }
        if ((buffer.getShort(offset, LE) & 0xFFFF) != MAGIC) {
            drop(DropReason.BAD_MAGIC);
            return;
        }
        int type = buffer.getByte(offset + 2);
        int psn = buffer.getInt(offset + 4, LE);
        GoBackNConnection c = byPeer.get(source);
        switch (type) {
            case T_DATA -> {
                if (c == null || !c.established || c.closed) {
                    drop(c == null ? DropReason.UNKNOWN_CONNECTION : DropReason.UNEXPECTED);
                    return;
                }
                if (ecnMarked) {
                    counters.increment(Counter.ECN_MARKS_RECEIVED);
                    if (gbn.dcqcn() != null && (c.lastCnpNs == Long.MIN_VALUE
                            || nowNs - c.lastCnpNs >= gbn.dcqcn().cnpIntervalNs())) {
                        c.cnpDue = true;
                        c.lastCnpNs = nowNs;
                    }
                }
                onData(c, nowNs, buffer, offset, length, array, base, psn);
            }
            case T_ACK, T_NAK, T_RNR -> {
                if (length != CONTROL_BYTES) {
                    drop(DropReason.BAD_LENGTH);
                } else if (c == null || !c.established || c.closed) {
                    drop(c == null ? DropReason.UNKNOWN_CONNECTION : DropReason.UNEXPECTED);
                } else {
                    counters.increment(type == T_ACK ? Counter.ACK_PACKETS_RECEIVED : Counter.CONTROL_PACKETS_RECEIVED);
                    onAck(c, nowNs, type, psn);
                }
            }
            case T_CNP -> {
                if (length != CONTROL_BYTES) {
                    drop(DropReason.BAD_LENGTH);
                } else if (c == null || !c.established || c.closed) {
                    drop(c == null ? DropReason.UNKNOWN_CONNECTION : DropReason.UNEXPECTED);
                } else {
                    counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                    if (c.rate != null) {
                        c.rate.onCnp(nowNs);
                        counters.increment(Counter.ECN_WINDOW_CUTS);
                    }
                }
            }
            case T_HELLO -> {
                if (length != CONTROL_BYTES) {
                    drop(DropReason.BAD_LENGTH);
                    return;
                }
                counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                if (c == null) {
                    c = newConn(source);
                }
                if (c.closed) {
                    return;
                }
                establish(c);
                c.helloAckDue = true;
            }
            case T_HELLO_ACK -> {
                if (acceptsControl(c, length)) {
                    establish(c);
                }
            }
            case T_CLOSE -> {
                if (acceptsControl(c, length)) {
                    shutDown(c);
                }
            }
            default -> drop(DropReason.UNKNOWN_TYPE);
        }
    }

    /**
     * Checks a HELLO_ACK or CLOSE: drops (and counts) one of the wrong length or for no connection, ignores one for a
     * closed connection, counts the rest.
     *
     * @return whether {@code c} should act on it
     */
    private boolean acceptsControl(GoBackNConnection c, int length) {
        if (length != CONTROL_BYTES) {
            drop(DropReason.BAD_LENGTH);
            return false;
        }
        if (c == null) {
            drop(DropReason.UNKNOWN_CONNECTION);
            return false;
        }
        if (c.closed) {
            return false;
        }
        counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
        return true;
    }

    private void establish(GoBackNConnection c) {
        if (!c.established) {
            c.established = true;
            c.helloDeadlineNs = Long.MAX_VALUE;
            counters.increment(Counter.CONNECTIONS_OPENED);
        }
    }

    private void onData(GoBackNConnection c, long nowNs, DirectBuffer buffer, int offset, int length, byte[] array,
                        int base, int psn) {
        if (length < DATA_HEADER_BYTES + CRC_BYTES) {
            drop(DropReason.TRUNCATED);
            return;
        }
        int payload = buffer.getInt(offset + 12, LE);
        if (payload < 0 || payload > payloadBytes || length != DATA_HEADER_BYTES + payload + CRC_BYTES) {
            drop(DropReason.BAD_LENGTH);
            return;
        }
        int diff = psn - (int) c.expected;
        if (diff < 0) {
            counters.increment(Counter.DUPLICATE_PACKETS_RECEIVED);
            c.reply(T_ACK);
            return;
        }
        if (diff > 0) {
            outOfOrderDiscarded++;
            if (!c.nakSent) {
                c.nakSent = true;
                c.reply(T_NAK);
            }
            return;
        }
        int flags = buffer.getByte(offset + 3);
        int target = buffer.getInt(offset + 8, LE);
        long messageOffset = buffer.getLong(offset + 16, LE);
        long messageLength = buffer.getLong(offset + 24, LE);
        long remoteBase = buffer.getLong(offset + 32, LE);
        if (messageOffset < 0 || messageLength < 0 || messageOffset + payload > messageLength) {
            drop(DropReason.MESSAGE_BOUNDS);
            return;
        }
        int src = base + DATA_HEADER_BYTES;
        if ((flags & F_SEND) != 0) {
            ArrayDeque<GoBackNConnection.Recv> q = c.recvs.get(target);
            GoBackNConnection.Recv r = q == null ? null : q.peek();
            if (r == null) {
                if ((flags & F_FIRST) == 0) {
                    drop(DropReason.UNEXPECTED);
                    return;
                }
                counters.increment(Counter.RNR_SENT);
                c.reply(T_RNR);
                return;
            }
            long fits = Math.min(payload, Math.max(0, r.capacity() - messageOffset));
            if (fits > 0) {
                MemorySegment.copy(array, src, r.memory(), ValueLayout.JAVA_BYTE, r.offset() + messageOffset,
                        (int) fits);
                counters.add(Counter.PAYLOAD_BYTES_PLACED, fits);
            }
            if ((flags & F_LAST) != 0) {
                q.poll();
                c.pendingWork--;
                boolean truncated = messageLength > r.capacity();
                complete(c, r.workId(), WorkKind.RECV, truncated ? CompletionStatus.TRUNCATED : CompletionStatus.OK,
                        Math.min(messageLength, r.capacity()));
            }
        } else {
            MemorySegment region = regions.remotelyWritable(target);
            if (region == null) {
                drop(DropReason.BAD_REGION_KEY);
                return;
            }
            long at = remoteBase + messageOffset;
            if (remoteBase < 0 || at + payload > region.byteSize()) {
                drop(DropReason.REGION_BOUNDS);
                return;
            }
            if (payload > 0) {
                MemorySegment.copy(array, src, region, ValueLayout.JAVA_BYTE, at, payload);
                counters.add(Counter.PAYLOAD_BYTES_PLACED, payload);
            }
        }
        counters.increment(Counter.DATA_PACKETS_RECEIVED);
        c.expected++;
        c.nakSent = false;
        if ((flags & F_LAST) != 0 || ++c.unacked >= config.ackEveryPackets()) {
            c.reply(T_ACK);
        } else if (c.ackDeadlineNs == Long.MAX_VALUE) {
            c.ackDeadlineNs = nowNs + config.delayedAckNs();
        }
    }

    private void onAck(GoBackNConnection c, long nowNs, int type, int psn) {
        long ack = c.una + (psn - (int) c.una);
        if (ack < c.una || ack > c.end) {
            return; // stale or nonsense
        }
        boolean progress = ack > c.una;
        if (progress) {
            c.una = ack;
            c.dupAcks = 0;
            c.wentBack = false;
            while (c.count > 0) {
                GoBackNConnection.Work w = c.work(0);
                if (w.firstPsn + w.packets > c.una) {
                    break;
                }
                c.works[c.head] = null;
                c.head = (c.head + 1) & (c.works.length - 1);
                c.count--;
                c.cursor = Math.max(0, c.cursor - 1);
                c.pendingWork--;
                complete(c, w.workId, w.send ? WorkKind.SEND : WorkKind.WRITE, CompletionStatus.OK, w.length);
            }
            if (c.nxt < c.una) {
                c.nxt = c.una;
                c.seek();
            }
            c.rtoDeadlineNs = c.una < c.highestSent ? nowNs + gbn.rtoNs() : Long.MAX_VALUE;
        }
        switch (type) {
            case T_ACK -> {
                if (!progress && c.una < c.highestSent && ++c.dupAcks == gbn.dupAckThreshold()) {
                    c.goBack(nowNs, Counter.RETRANSMITS_SACK, gbn.rtoNs());
                }
            }
            case T_NAK -> {
                if (!c.wentBack) {
                    c.goBack(nowNs, Counter.RETRANSMITS_SACK, gbn.rtoNs());
                }
            }
            case T_RNR -> {
                counters.increment(Counter.RNR_RECEIVED);
                c.rnrUntilNs = nowNs + config.rnrRetryNs();
                c.rnrWaiting = true;
                c.goBack(nowNs, Counter.RETRANSMITS_SACK, gbn.rtoNs());
                c.rtoDeadlineNs = Long.MAX_VALUE;
            }
            default -> {
            }
        }
    }

    @Override
    public void onTimeout(long nowNs) {
        for (int i = 0; i < connCount; i++) {
            GoBackNConnection c = conns[i];
            if (c.closed) {
                continue;
            }
            if (!c.established && c.helloDeadlineNs <= nowNs) {
                c.helloDue = true;
                c.helloDeadlineNs = Long.MAX_VALUE;
            }
            if (c.ackDeadlineNs <= nowNs) {
                c.reply(T_ACK);
            }
            if (c.rnrWaiting && c.rnrUntilNs <= nowNs) {
                c.rnrWaiting = false;
            }
            if (c.rate != null && c.rate.nextTimerNs() <= nowNs) {
                c.rate.onTimer(nowNs);
            }
            if (c.rtoDeadlineNs <= nowNs) {
                if (c.una < c.highestSent) {
                    counters.increment(Counter.RTO_FIRINGS);
                    c.goBack(nowNs, Counter.RETRANSMITS_RTO, gbn.rtoNs());
                } else {
                    c.rtoDeadlineNs = Long.MAX_VALUE;
                }
            }
        }
    }

    @Override
    public long nextTimeoutNs() {
        long next = Long.MAX_VALUE;
        for (int i = 0; i < connCount; i++) {
            GoBackNConnection c = conns[i];
            if (c.closed) {
                continue;
            }
            if (!c.established) {
                next = Math.min(next, c.helloDeadlineNs);
            }
            next = Math.min(next, Math.min(c.rtoDeadlineNs, c.ackDeadlineNs));
            if (c.rnrWaiting) {
                next = Math.min(next, c.rnrUntilNs);
            }
            if (c.rate != null) {
                next = Math.min(next, c.rate.nextTimerNs());
            }
            if (transmitter.paced() && c.windowOpen(gbn.windowPackets())) {
                // The wire (or the connection's own rate) frees up: wake when the next packet may go.
                long wireFreeFs = transmitter.wireFreeFs();
                long freeFs = c.rate != null && c.rate.limited() ? Math.max(wireFreeFs, c.nextSendFs) : wireFreeFs;
                next = Math.min(next, Math.max(0, (freeFs + 999_999) / 1_000_000L - gbn.burstNs()));
            }
        }
        return next;
    }

    @Override
    public int pollTransmit(long nowNs, TransmitSink sink) {
        int sent = 0;
        for (int i = 0; i < connCount; i++) {
            GoBackNConnection c = conns[i];
            if (c.closeDue) {
                c.closeDue = false;
                sent += transmitter.control(sink, c, T_CLOSE, 0);
            }
            if (c.closed) {
                continue;
            }
            if (c.helloDue) {
                c.helloDue = false;
                c.helloDeadlineNs = nowNs + gbn.rtoNs();
                sent += transmitter.control(sink, c, T_HELLO, 0);
            }
            if (c.helloAckDue) {
                c.helloAckDue = false;
                sent += transmitter.control(sink, c, T_HELLO_ACK, 0);
            }
            if (c.cnpDue) {
                c.cnpDue = false;
                sent += transmitter.control(sink, c, T_CNP, 0);
            }
            if (c.control != 0) {
                int type = c.control;
                c.control = 0;
                c.unacked = 0;
                c.ackDeadlineNs = Long.MAX_VALUE;
                sent += transmitter.control(sink, c, type, (int) c.expected);
            }
        }
        // Data: round-robin over connections, one packet at a time, as long as the (paced) wire allows.
        int idle = 0;
        for (int k = nextConn; idle < connCount && transmitter.wireAllows(nowNs); k = (k + 1) % connCount) {
            GoBackNConnection c = conns[k];
            if (canSend(c, nowNs)) {
                transmitter.sendData(sink, c, nowNs);
                sent++;
                idle = 0;
                nextConn = (k + 1) % connCount;
            } else {
                idle++;
            }
        }
        return sent;
    }

    private boolean canSend(GoBackNConnection c, long nowNs) {
        return c.windowOpen(gbn.windowPackets()) && (c.rate == null || !c.rate.limited()
                || c.nextSendFs <= (nowNs + gbn.burstNs()) * 1_000_000L);
    }
}
