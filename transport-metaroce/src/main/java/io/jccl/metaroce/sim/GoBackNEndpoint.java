package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.TransmitSink;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

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
    private static final int CRC_BYTES = 4;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final WorkKind[] KINDS = WorkKind.values();
    private static final CompletionStatus[] STATUSES = CompletionStatus.values();

    private final EndpointConfig config;
    private final GoBackNConfig gbn;
    private final long nodeId;
    private final int payloadBytes;
    private final Counters counters = new Counters();
    private final CRC32C crc = new CRC32C();
    private final byte[] txBytes;
    private final UnsafeBuffer tx;
    private final MemorySegment txSegment;
    private final byte[] rxScratch;

    private MemorySegment[] regions = new MemorySegment[8];
    private boolean[] regionWritable = new boolean[8];
    private int regionCount = 1; // key 0 is never handed out

    private final Long2ObjectHashMap<Conn> byPeer = new Long2ObjectHashMap<>();
    private Conn[] conns = new Conn[4];
    private int connCount;
    private long nextWorkId = 1;
    private long outOfOrderDiscarded;
    /** Pacing: femtoseconds per wire byte (0: unpaced) and when the wire is next free, in femtoseconds. */
    private final long femtosPerByte;
    private long wireFreeFs;
    /** Round-robin start among connections with data to send. */
    private int nextConn;

    // Completions, a FIFO ring in primitive arrays.
    private int[] cConn = new int[64];
    private long[] cWork = new long[64];
    private byte[] cKind = new byte[64];
    private byte[] cStatus = new byte[64];
    private long[] cBytes = new long[64];
    private int cHead;
    private int cCount;

    /** Posted WRITE or SEND. */
    private static final class Work {
        long workId;
        boolean send;
        int target;
        long remoteBase;
        MemorySegment local;
        long offset;
        long length;
        long firstPsn;
        long packets;
    }

    /** Posted RECV. */
    private static final class Recv {
        final long workId;
        final MemorySegment memory;
        final long offset;
        final long capacity;

        Recv(long workId, MemorySegment memory, long offset, long capacity) {
            this.workId = workId;
            this.memory = memory;
            this.offset = offset;
            this.capacity = capacity;
        }
    }

    /** One connection: a sender half and a receiver half. */
    private static final class Conn {
        final int id;
        final long peer;
        boolean initiator;
        boolean established;
        boolean closed;
        boolean helloDue;
        boolean helloAckDue;
        boolean closeDue;
        long helloDeadlineNs = Long.MAX_VALUE;
        /** DCQCN (null: off): the sender's rate, and when its next packet may leave, in femtoseconds. */
        DcqcnRate rate;
        long nextSendFs;
        /** DCQCN receiver: a CNP is due, and when the last one went. */
        boolean cnpDue;
        long lastCnpNs = Long.MIN_VALUE;
        int pendingWork;

        // Sender: works[(head + i) & mask] for i < count, in PSN order.
        Work[] works = new Work[16];
        int head;
        int count;
        /** Index (from head) of the work holding PSN nxt. */
        int cursor;
        long una;
        long nxt;
        long end;
        long highestSent;
        long rtoDeadlineNs = Long.MAX_VALUE;
        long rnrUntilNs = Long.MIN_VALUE;
        boolean rnrWaiting;
        int dupAcks;
        boolean wentBack;
        Counter retransmitReason = Counter.RETRANSMITS_RTO;

        // Receiver.
        long expected;
        boolean nakSent;
        int unacked;
        long ackDeadlineNs = Long.MAX_VALUE;
        /** Pending control reply: 0 none, else T_ACK, T_NAK or T_RNR (the strongest wins). */
        int control;
        final Int2ObjectHashMap<ArrayDeque<Recv>> recvs = new Int2ObjectHashMap<>();

        Conn(int id, long peer) {
            this.id = id;
            this.peer = peer;
        }

        Work work(int i) {
            return works[(head + i) & (works.length - 1)];
        }
    }

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
        femtosPerByte = gbn.lineRateBitsPerSecond() == 0 ? 0 : Math.max(1, Math.round(8e15 / gbn.lineRateBitsPerSecond()));
        txBytes = new byte[DATA_HEADER_BYTES + payloadBytes + CRC_BYTES];
        tx = new UnsafeBuffer(txBytes);
        txSegment = MemorySegment.ofArray(txBytes);
        rxScratch = new byte[Math.max(65536, txBytes.length)];
    }

    /** @return the largest datagram this endpoint sends */
    public int maxDatagramBytes() {
        return txBytes.length;
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
        if (regionCount == regions.length) {
            regions = Arrays.copyOf(regions, regionCount * 2);
            regionWritable = Arrays.copyOf(regionWritable, regionCount * 2);
        }
        int key = regionCount++;
        regions[key] = memory;
        regionWritable[key] = remoteWritable;
        return key;
    }

    @Override
    public void deregisterRegion(int key) {
        if (key > 0 && key < regionCount) {
            regions[key] = null;
            regionWritable[key] = false;
        }
    }

    @Override
    public int connect(long nowNs, long peer) {
        Conn c = byPeer.get(peer);
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
        Conn c = byPeer.get(peer);
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

    private long post(int connectionId, boolean send, int target, long remoteBase, MemorySegment local, long offset,
                      long length) {
        Conn c = conn(connectionId);
        checkRange(local, offset, length);
        if (c.closed) {
            throw new IllegalStateException("connection " + connectionId + " is closed");
        }
        if (c.pendingWork >= config.maxPendingWork()) {
            return QUEUE_FULL;
        }
        Work w = new Work();
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
        if (c.count == c.works.length) {
            Work[] grown = new Work[c.works.length * 2];
            for (int i = 0; i < c.count; i++) {
                grown[i] = c.work(i);
            }
            c.works = grown;
            c.head = 0;
        }
        c.works[(c.head + c.count) & (c.works.length - 1)] = w;
        c.count++;
        c.pendingWork++;
        return w.workId;
    }

    @Override
    public long postRecv(int connectionId, int stream, MemorySegment local, long offset, long capacity) {
        Conn c = conn(connectionId);
        checkRange(local, offset, capacity);
        if (c.closed) {
            throw new IllegalStateException("connection " + connectionId + " is closed");
        }
        if (c.pendingWork >= config.maxPendingWork()) {
            return QUEUE_FULL;
        }
        ArrayDeque<Recv> q = c.recvs.get(stream);
        if (q == null) {
            q = new ArrayDeque<>();
            c.recvs.put(stream, q);
        }
        long id = nextWorkId++;
        q.add(new Recv(id, local, offset, capacity));
        c.pendingWork++;
        return id;
    }

    @Override
    public int pollCompletions(CompletionHandler handler) {
        int n = 0;
        while (cCount > 0) {
            int i = cHead;
            cHead = (cHead + 1) & (cConn.length - 1);
            cCount--;
            n++;
            handler.onCompletion(cConn[i], cWork[i], KINDS[cKind[i]], STATUSES[cStatus[i]], cBytes[i]);
        }
        return n;
    }

    @Override
    public void close(long nowNs, int connectionId) {
        Conn c = conn(connectionId);
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

    private Conn conn(int id) {
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

    private Conn newConn(long peer) {
        if (connCount == conns.length) {
            conns = Arrays.copyOf(conns, connCount * 2);
        }
        Conn c = new Conn(connCount, peer);
        if (gbn.dcqcn() != null) {
            c.rate = new DcqcnRate(gbn.dcqcn(), gbn.lineRateBitsPerSecond());
        }
        conns[connCount++] = c;
        byPeer.put(peer, c);
        return c;
    }

    private void shutDown(Conn c) {
        c.closed = true;
        for (int i = 0; i < c.count; i++) {
            Work w = c.work(i);
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
            for (Recv r : q) {
                complete(c, r.workId, WorkKind.RECV, CompletionStatus.CONNECTION_CLOSED, 0);
            }
            q.clear();
        });
        c.pendingWork = 0;
        counters.increment(Counter.CONNECTIONS_CLOSED);
    }

    private void complete(Conn c, long workId, WorkKind kind, CompletionStatus status, long bytes) {
        if (cCount == cConn.length) {
            int n = cConn.length * 2;
            int[] conn = new int[n];
            long[] work = new long[n];
            byte[] kinds = new byte[n];
            byte[] st = new byte[n];
            long[] b = new long[n];
            for (int i = 0; i < cCount; i++) {
                int j = (cHead + i) & (cConn.length - 1);
                conn[i] = cConn[j];
                work[i] = cWork[j];
                kinds[i] = cKind[j];
                st[i] = cStatus[j];
                b[i] = cBytes[j];
            }
            cConn = conn;
            cWork = work;
            cKind = kinds;
            cStatus = st;
            cBytes = b;
            cHead = 0;
        }
        int j = (cHead + cCount) & (cConn.length - 1);
        cConn[j] = c.id;
        cWork[j] = workId;
        cKind[j] = (byte) kind.ordinal();
        cStatus[j] = (byte) status.ordinal();
        cBytes[j] = bytes;
        cCount++;
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
        Conn c = byPeer.get(source);
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
                if (length != CONTROL_BYTES) {
                    drop(DropReason.BAD_LENGTH);
                } else if (c == null) {
                    drop(DropReason.UNKNOWN_CONNECTION);
                } else if (!c.closed) {
                    counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                    establish(c);
                }
            }
            case T_CLOSE -> {
                if (length != CONTROL_BYTES) {
                    drop(DropReason.BAD_LENGTH);
                } else if (c == null) {
                    drop(DropReason.UNKNOWN_CONNECTION);
                } else if (!c.closed) {
                    counters.increment(Counter.CONTROL_PACKETS_RECEIVED);
                    shutDown(c);
                }
            }
            default -> drop(DropReason.UNKNOWN_TYPE);
        }
    }

    private void establish(Conn c) {
        if (!c.established) {
            c.established = true;
            c.helloDeadlineNs = Long.MAX_VALUE;
            counters.increment(Counter.CONNECTIONS_OPENED);
        }
    }

    private void onData(Conn c, long nowNs, DirectBuffer buffer, int offset, int length, byte[] array, int base,
                        int psn) {
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
            reply(c, T_ACK);
            return;
        }
        if (diff > 0) {
            outOfOrderDiscarded++;
            if (!c.nakSent) {
                c.nakSent = true;
                reply(c, T_NAK);
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
            ArrayDeque<Recv> q = c.recvs.get(target);
            Recv r = q == null ? null : q.peek();
            if (r == null) {
                if ((flags & F_FIRST) == 0) {
                    drop(DropReason.UNEXPECTED);
                    return;
                }
                counters.increment(Counter.RNR_SENT);
                reply(c, T_RNR);
                return;
            }
            long fits = Math.min(payload, Math.max(0, r.capacity - messageOffset));
            if (fits > 0) {
                MemorySegment.copy(array, src, r.memory, ValueLayout.JAVA_BYTE, r.offset + messageOffset, (int) fits);
                counters.add(Counter.PAYLOAD_BYTES_PLACED, fits);
            }
            if ((flags & F_LAST) != 0) {
                q.poll();
                c.pendingWork--;
                boolean truncated = messageLength > r.capacity;
                complete(c, r.workId, WorkKind.RECV, truncated ? CompletionStatus.TRUNCATED : CompletionStatus.OK,
                        Math.min(messageLength, r.capacity));
            }
        } else {
            MemorySegment region = target > 0 && target < regionCount && regionWritable[target] ? regions[target] : null;
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
            reply(c, T_ACK);
        } else if (c.ackDeadlineNs == Long.MAX_VALUE) {
            c.ackDeadlineNs = nowNs + config.delayedAckNs();
        }
    }

    /** Queues a control reply; RNR beats NAK beats ACK (each also acknowledges everything before expected). */
    private static void reply(Conn c, int type) {
        if (c.control == 0 || rank(type) > rank(c.control)) {
            c.control = type;
        }
    }

    private static int rank(int type) {
        return switch (type) {
            case T_RNR -> 3;
            case T_NAK -> 2;
            default -> 1;
        };
    }

    private void onAck(Conn c, long nowNs, int type, int psn) {
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
                Work w = c.work(0);
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
                seek(c);
            }
            c.rtoDeadlineNs = c.una < c.highestSent ? nowNs + gbn.rtoNs() : Long.MAX_VALUE;
        }
        switch (type) {
            case T_ACK -> {
                if (!progress && c.una < c.highestSent && ++c.dupAcks == gbn.dupAckThreshold()) {
                    goBack(c, nowNs, Counter.RETRANSMITS_SACK);
                }
            }
            case T_NAK -> {
                if (!c.wentBack) {
                    goBack(c, nowNs, Counter.RETRANSMITS_SACK);
                }
            }
            case T_RNR -> {
                counters.increment(Counter.RNR_RECEIVED);
                c.rnrUntilNs = nowNs + config.rnrRetryNs();
                c.rnrWaiting = true;
                goBack(c, nowNs, Counter.RETRANSMITS_SACK);
                c.rtoDeadlineNs = Long.MAX_VALUE;
            }
            default -> {
            }
        }
    }

    private void goBack(Conn c, long nowNs, Counter reason) {
        c.nxt = c.una;
        c.wentBack = true;
        c.retransmitReason = reason;
        seek(c);
        c.rtoDeadlineNs = nowNs + gbn.rtoNs();
    }

    /** Points the cursor at the work holding PSN nxt. */
    private static void seek(Conn c) {
        int i = 0;
        while (i < c.count) {
            Work w = c.work(i);
            if (c.nxt < w.firstPsn + w.packets) {
                break;
            }
            i++;
        }
        c.cursor = i;
    }

    @Override
    public void onTimeout(long nowNs) {
        for (int i = 0; i < connCount; i++) {
            Conn c = conns[i];
            if (c.closed) {
                continue;
            }
            if (!c.established && c.helloDeadlineNs <= nowNs) {
                c.helloDue = true;
                c.helloDeadlineNs = Long.MAX_VALUE;
            }
            if (c.ackDeadlineNs <= nowNs) {
                reply(c, T_ACK);
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
                    goBack(c, nowNs, Counter.RETRANSMITS_RTO);
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
            Conn c = conns[i];
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
            if (femtosPerByte != 0 && windowOpen(c)) {
                // The wire (or the connection's own rate) frees up: wake when the next packet may go.
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
            Conn c = conns[i];
            if (c.closeDue) {
                c.closeDue = false;
                sent += control(sink, c, T_CLOSE, 0);
            }
            if (c.closed) {
                continue;
            }
            if (c.helloDue) {
                c.helloDue = false;
                c.helloDeadlineNs = nowNs + gbn.rtoNs();
                sent += control(sink, c, T_HELLO, 0);
            }
            if (c.helloAckDue) {
                c.helloAckDue = false;
                sent += control(sink, c, T_HELLO_ACK, 0);
            }
            if (c.cnpDue) {
                c.cnpDue = false;
                sent += control(sink, c, T_CNP, 0);
            }
            if (c.control != 0) {
                int type = c.control;
                c.control = 0;
                c.unacked = 0;
                c.ackDeadlineNs = Long.MAX_VALUE;
                sent += control(sink, c, type, (int) c.expected);
            }
        }
        // Data: round-robin over connections, one packet at a time, as long as the (paced) wire allows.
        int idle = 0;
        for (int k = nextConn; idle < connCount && wireAllows(nowNs); k = (k + 1) % connCount) {
            Conn c = conns[k];
            if (canSend(c, nowNs)) {
                sendData(sink, c, nowNs);
                sent++;
                idle = 0;
                nextConn = (k + 1) % connCount;
            } else {
                idle++;
            }
        }
        return sent;
    }

    /** @return whether the connection has data its window lets go (pacing aside) */
    private boolean windowOpen(Conn c) {
        return c.established && !c.closed && !c.rnrWaiting && c.nxt < Math.min(c.end, c.una + gbn.windowPackets());
    }

    private boolean canSend(Conn c, long nowNs) {
        return windowOpen(c) && (c.rate == null || !c.rate.limited()
                || c.nextSendFs <= (nowNs + gbn.burstNs()) * 1_000_000L);
    }

    private boolean wireAllows(long nowNs) {
        return femtosPerByte == 0 || wireFreeFs <= (nowNs + gbn.burstNs()) * 1_000_000L;
    }

    private int control(TransmitSink sink, Conn c, int type, int psn) {
        tx.putShort(0, (short) MAGIC, LE);
        tx.putByte(2, (byte) type);
        tx.putByte(3, (byte) 0);
        tx.putInt(4, psn, LE);
        crc.reset();
        crc.update(txBytes, 0, 8);
        tx.putInt(8, (int) crc.getValue(), LE);
        counters.increment(type == T_ACK ? Counter.ACK_PACKETS_SENT : Counter.CONTROL_PACKETS_SENT);
        sink.transmit(c.peer, 0, tx, 0, CONTROL_BYTES);
        return 1;
    }

    private void sendData(TransmitSink sink, Conn c, long nowNs) {
        Work w = c.work(c.cursor);
        long index = c.nxt - w.firstPsn;
        long messageOffset = index * payloadBytes;
        int payload = (int) Math.min(payloadBytes, w.length - messageOffset);
        int flags = (w.send ? F_SEND : 0) | (index == 0 ? F_FIRST : 0) | (index == w.packets - 1 ? F_LAST : 0);
        tx.putShort(0, (short) MAGIC, LE);
        tx.putByte(2, (byte) T_DATA);
        tx.putByte(3, (byte) flags);
        tx.putInt(4, (int) c.nxt, LE);
        tx.putInt(8, w.target, LE);
        tx.putInt(12, payload, LE);
        tx.putLong(16, messageOffset, LE);
        tx.putLong(24, w.length, LE);
        tx.putLong(32, w.remoteBase, LE);
        if (payload > 0) {
            MemorySegment.copy(w.local, w.offset + messageOffset, txSegment, DATA_HEADER_BYTES, payload);
        }
        int len = DATA_HEADER_BYTES + payload;
        crc.reset();
        crc.update(txBytes, 0, len);
        tx.putInt(len, (int) crc.getValue(), LE);
        counters.increment(Counter.DATA_PACKETS_SENT);
        counters.add(Counter.PAYLOAD_BYTES_SENT, payload);
        if (c.nxt < c.highestSent) {
            counters.increment(c.retransmitReason);
        } else {
            c.highestSent = c.nxt + 1;
        }
        if (c.rtoDeadlineNs == Long.MAX_VALUE) {
            c.rtoDeadlineNs = nowNs + gbn.rtoNs();
        }
        c.nxt++;
        if (index == w.packets - 1) {
            c.cursor++;
        }
        long wireBytes = len + CRC_BYTES + (long) gbn.wireOverheadBytes();
        if (femtosPerByte != 0) {
            wireFreeFs = Math.max(wireFreeFs, nowNs * 1_000_000L) + wireBytes * femtosPerByte;
        }
        if (c.rate != null) {
            if (c.rate.limited()) {
                c.nextSendFs = Math.max(c.nextSendFs, nowNs * 1_000_000L)
                        + Math.round(wireBytes * 8e15 / c.rate.rateBitsPerSecond());
                c.rate.onSent(wireBytes);
            } else {
                c.nextSendFs = nowNs * 1_000_000L;
            }
        }
        sink.transmit(c.peer, 0, tx, 0, len + CRC_BYTES);
    }
}
