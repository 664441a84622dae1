package io.jccl.metaroce.protocol;

import io.jccl.metaroce.protocol.conn.Connection;
import io.jccl.metaroce.protocol.wire.AckFlyweight;
import io.jccl.metaroce.protocol.wire.CloseFlyweight;
import io.jccl.metaroce.protocol.wire.Crc32c;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import io.jccl.metaroce.protocol.wire.HandshakeAcceptFlyweight;
import io.jccl.metaroce.protocol.wire.HandshakeCrypto;
import io.jccl.metaroce.protocol.wire.HandshakeInitFlyweight;
import io.jccl.metaroce.protocol.wire.HeaderFlyweight;
import io.jccl.metaroce.protocol.wire.PacketFlyweights;
import io.jccl.metaroce.protocol.wire.PacketType;
import io.jccl.metaroce.protocol.wire.PacketValidator;
import io.jccl.metaroce.protocol.wire.ProbeFlyweight;
import io.jccl.metaroce.protocol.wire.RnrFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Feeds a fuzzer's bytes, as datagrams and timer advances, into a live MetaRoCE connection between two endpoints
 * (see {@link ConnectionFuzzTest}), and checks what must hold whatever arrives.
 *
 * <p><b>Per input</b>, from the same state every time: two {@link Endpoint}s with fixed seeds and {@link #CONFIG}
 * (4 paths, 256-byte packets, so that small messages span several packets) shake hands over a virtual-time network
 * (each datagram takes {@link #DELAY_NS}). Each registers a 2 KiB region for remote WRITEs and posts receives into
 * slots of one native segment, every region and slot fenced by guard bytes, all of it filled with a known pattern.
 * Then the legitimate work starts: A writes 1000 bytes into B's region and sends on streams 1 (700 bytes), 2 (600,
 * into a 256-byte receive: truncated), 3 (300, no receive yet: receiver-not-ready) and 4 (empty); B writes 700 bytes
 * into A's region and sends 1000 on stream 1. About 20 DATA packets are then in flight.
 *
 * <p><b>The input</b> is a list of operations, each an op byte and its operands (bytes read past the end are 0;
 * see {@link Script} for the encoding). While they run the network is frozen: legitimate packets move only when an
 * operation says so, and time advances only fire timers. Operations: deliver the oldest legitimate packet in flight
 * or any other (reordering), drop one, duplicate one, advance time, replay a recent packet (possibly to the wrong
 * endpoint), <em>forge</em> a packet of any type from a template whose fields come from the input (the real
 * connection id, session tag and path generation patched in, or not; the CRC recomputed, or not; handshakes signed
 * with the real key, or not), mutate bytes of a real recent packet, send raw bytes, run the network for a while, and
 * verbs (post a receive, close, deregister, connect elsewhere, post more work). A datagram is handed over in a heap
 * or an off-heap buffer, at an offset, with an exact or a larger capacity. After the operations the network runs
 * cleanly (every packet delivered in order) for up to {@link #SETTLE_NS} of virtual time.
 *
 * <p><b>Checks</b> (an {@link AssertionError} names the one that failed):
 * <ul>
 *   <li>no Engine or Verbs call throws;</li>
 *   <li>no byte outside the region and the posted receive ranges changes; a receive's bytes beyond the message it
 *       completed with do not change, a truncated receive changes nothing, and a completed receive or a deregistered
 *       region is not written any more;</li>
 *   <li>timers make progress: firing timers at one instant more than {@link #SPIN_LIMIT} times is a livelock;</li>
 *   <li>every completion has a work id that was posted, on that connection and of that kind, and comes once; OK
 *       completions report the posted length (a receive: at most its capacity); once a connection is closed, all its
 *       work has completed;</li>
 *   <li>when nothing authenticated was forged and no verb disturbed the work (the input only lost, delayed,
 *       duplicated or reordered real packets, or sent packets that fail authentication), all legitimate work
 *       completes during the clean run, with the expected status (or connection-closed, when the fuzzer starved the
 *       connection until it failed; a receive may also wait for ever when only the peer's connection failed, see
 *       {@link #legitDone}), and every OK transfer delivered exactly the source bytes.</li>
 * </ul>
 */
final class ConnectionFuzzHarness {
    /** The handshake key of both endpoints; forged handshakes are signed with it when the input says so. */
    static final byte[] KEY = "connection fuzz handshake key 32".getBytes(StandardCharsets.US_ASCII);
    /**
     * The defaults, but 4 paths, 256-byte packets, 64 pending items, a 5 ms RTO cap and a 20 ms dead-connection
     * limit, so that path failure, probing and connection death happen within a short virtual time.
     */
    static final EndpointConfig CONFIG = new EndpointConfig(4, 256, 4, 50_000, 5_000_000, 4, 20_000, 12.5e9, 2,
            1_000_000, 2, 20_000_000, 64, 50_000, KEY);
    static final long DELAY_NS = 5_000;
    /**
     * How long the clean run at the end may take (virtual), and how many events: until the legitimate work is done
     * (it must be, well within this) when the input forged nothing authenticated, else a short run (nothing to wait
     * for: an unanswered SEND, say, is retried every 50 us for ever) that still looks for exceptions and livelocks.
     */
    static final long SETTLE_NS = 200_000_000;
    static final int SETTLE_STEPS = 50_000;
    static final long TAINTED_SETTLE_NS = 25_000_000;
    static final int TAINTED_SETTLE_STEPS = 400;
    /** Timer firings at one instant that count as a livelock. */
    static final int SPIN_LIMIT = 64;
    static final int MAX_OPS = 128;
    /** Events (timer firings, deliveries) the operations may cause in all, and one operation at most. */
    static final int OPS_STEPS = 2048;
    static final int OP_STEPS = 256;
    static final int MAX_IN_FLIGHT = 512;
    static final int HISTORY = 32;

    static final int[] TYPES = {PacketType.WRITE, PacketType.SEND, PacketType.ACK, PacketType.HANDSHAKE_INIT,
            PacketType.HANDSHAKE_ACCEPT, PacketType.PROBE, PacketType.PROBE_REPLY, PacketType.CLOSE, PacketType.RNR};

    // ---- Memory layout of each endpoint's segment: guard, region, guard, slot 0, guard, slot 1, ..., guard ----
    static final int GUARD = 64;
    static final int REGION = 2048;
    static final int[] SLOT_CAPACITY = {1024, 256, 1024, 512, 512, 300};
    static final int REGION_AT = GUARD;
    static final int[] SLOT_AT = new int[SLOT_CAPACITY.length];
    static final int MEMORY;
    static final int SOURCE = 4096;

    static {
        int at = REGION_AT + REGION + GUARD;
        for (int i = 0; i < SLOT_CAPACITY.length; i++) {
            SLOT_AT[i] = at;
            at += SLOT_CAPACITY[i] + GUARD;
        }
        MEMORY = at;
    }

    /** The legitimate work and what it must end as. */
    record Legit(int node, WorkKind kind, int stream, int srcOffset, int length, int slot, int remoteOffset,
                 CompletionStatus expected) {
    }

    static final List<Legit> LEGIT = List.of(
            // Receives first (slot 2, stream 3, is posted later: by an operation or when the clean run starts).
            new Legit(1, WorkKind.RECV, 1, 1000, 700, 0, 0, CompletionStatus.OK),
            new Legit(1, WorkKind.RECV, 2, 100, 600, 1, 0, CompletionStatus.TRUNCATED),
            new Legit(1, WorkKind.RECV, 4, 0, 0, 3, 0, CompletionStatus.OK),
            new Legit(0, WorkKind.RECV, 1, 700, 1000, 0, 0, CompletionStatus.OK),
            new Legit(0, WorkKind.WRITE, -1, 0, 1000, -1, 300, CompletionStatus.OK),
            new Legit(0, WorkKind.SEND, 1, 1000, 700, -1, 0, CompletionStatus.OK),
            new Legit(0, WorkKind.SEND, 2, 100, 600, -1, 0, CompletionStatus.OK),
            new Legit(0, WorkKind.SEND, 3, 2000, 300, -1, 0, CompletionStatus.OK),
            new Legit(0, WorkKind.SEND, 4, 0, 0, -1, 0, CompletionStatus.OK),
            new Legit(1, WorkKind.WRITE, -1, 0, 700, -1, 1000, CompletionStatus.OK),
            new Legit(1, WorkKind.SEND, 1, 700, 1000, -1, 0, CompletionStatus.OK));
    /** The immediate node 0's legitimate WRITE carries (a WRITE with immediate); node 1 must report it once. */
    static final int LEGIT_IMMEDIATE = 0x5EED_1D;
    /** The receive posted late: node 1, stream 3, slot 2, for node 0's 300 bytes from source offset 2000. */
    static final Legit LATE_RECV = new Legit(1, WorkKind.RECV, 3, 2000, 300, 2, 0, CompletionStatus.OK);

    // ---- Reused across inputs ----
    private final MemorySegment[] memory = new MemorySegment[2];
    private final byte[][] pristine = new byte[2][];
    private final MemorySegment[] source = new MemorySegment[2];
    private final MemorySegment nativeScratch;
    private final UnsafeBuffer heapView = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer nativeView = new UnsafeBuffer(0, 0);
    private final byte[] heapScratch = new byte[DataFlyweight.MAX_FRAME_LENGTH + 64];
    private final byte[] forgeBytes = new byte[DataFlyweight.MAX_FRAME_LENGTH + 64];
    private final UnsafeBuffer forge = new UnsafeBuffer(forgeBytes);
    private final byte[][][] slotSnapshot = new byte[2][SLOT_CAPACITY.length][];
    private final byte[][] regionSnapshot = {new byte[REGION], new byte[REGION]};
    private final PacketValidator validator = new PacketValidator();
    private final Crc32c crc = new Crc32c();
    private final HandshakeCrypto crypto = new HandshakeCrypto(KEY);
    private final HeaderFlyweight header = new HeaderFlyweight();
    /** One flyweight per packet type, over the packets the harness forges. */
    private final PacketFlyweights fly = new PacketFlyweights();

    // ---- Per input ----
    private final Endpoint[] nodes = new Endpoint[2];
    private final int[] mainConnection = new int[2];
    private final int[] regionKey = new int[2];
    private final boolean[] regionFrozen = new boolean[2];
    private final long[][] slotWork = new long[2][SLOT_CAPACITY.length];   // 0: never posted, >0 posted, <0 frozen
    private final List<Map<Long, Work>> works = List.of(new HashMap<>(), new HashMap<>());
    /** Per node: the completions of its {@link #works}, by work id. */
    private final List<Map<Long, Completed>> completed = List.of(new HashMap<>(), new HashMap<>());
    private final long[] legitIds = new long[LEGIT.size() + 1];
    /** How often each node reported {@link #LEGIT_IMMEDIATE}. */
    private final int[] legitImmediateReports = new int[2];
    private final ArrayList<Packet> inFlight = new ArrayList<>();
    private final ArrayDeque<Packet> history = new ArrayDeque<>();
    private final Sink sink = new Sink();
    private long now;
    private int opsSteps;
    private long spinAt;
    private int spins;
    private boolean tainted;
    private boolean latePosted;
    private In in;

    /** Posted work, as the harness remembers it. */
    private record Work(long id, int node, int connection, WorkKind kind, long length, int slot) {
    }

    /** How posted work completed (once). */
    private record Completed(CompletionStatus status, long bytes) {
    }

    /** A datagram the endpoints sent: to an endpoint of the harness (0, 1) or to a stranger (-1). */
    record Packet(long at, int from, int to, int path, byte[] bytes) {
    }

    private final class Sink implements TransmitSink {
        int from;

        @Override
        public void transmit(long destination, int pathIndex, DirectBuffer buffer, int offset, int length) {
            byte[] copy = new byte[length];
            buffer.getBytes(offset, copy);
            int to = destination == 1 - from ? (int) destination : -1;
            Packet p = new Packet(now + DELAY_NS, from, to, pathIndex, copy);
            if (history.size() == HISTORY) {
                history.removeFirst();
            }
            history.addLast(p);
            if (to >= 0 && inFlight.size() < MAX_IN_FLIGHT) {
                inFlight.add(p);
            }
        }
    }

    ConnectionFuzzHarness() {
        Arena arena = Arena.ofAuto();
        for (int n = 0; n < 2; n++) {
            memory[n] = arena.allocate(MEMORY, 64);
            pristine[n] = new byte[MEMORY];
            for (int i = 0; i < MEMORY; i++) {
                pristine[n][i] = (byte) (i * 13 + n * 101 + 7);
            }
            MemorySegment src = arena.allocate(SOURCE, 64);
            for (int i = 0; i < SOURCE; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + n * 59 + 3 + (i >>> 8)));
            }
            source[n] = src.asReadOnly();
            for (int s = 0; s < SLOT_CAPACITY.length; s++) {
                slotSnapshot[n][s] = new byte[SLOT_CAPACITY[s]];
            }
        }
        nativeScratch = arena.allocate(DataFlyweight.MAX_FRAME_LENGTH + 64, 64);
    }

    /** What one input did, for tests of the harness itself. */
    record Outcome(boolean tainted, Counters a, Counters b, boolean legitDone) {
    }

    /**
     * Runs one input from the initial state.
     *
     * @param input the fuzzer's bytes
     * @return what happened (assertion failures are thrown)
     */
    Outcome run(byte[] input) {
        setUp();
        in = new In(input);
        for (int op = 0; op < MAX_OPS && in.more(); op++) {
            operation(in.u8());
        }
        settle();
        checkEnd();
        return new Outcome(tainted, nodes[0].counters(), nodes[1].counters(), legitDone());
    }

    // ---- Set-up ----

    private void setUp() {
        now = 0;
        opsSteps = 0;
        spinAt = -1;
        spins = 0;
        tainted = false;
        latePosted = false;
        inFlight.clear();
        history.clear();
        for (int n = 0; n < 2; n++) {
            MemorySegment.copy(pristine[n], 0, memory[n], ValueLayout.JAVA_BYTE, 0, MEMORY);
            nodes[n] = new Endpoint(CONFIG, new SplittableRandom(1000 + n));
            regionKey[n] = nodes[n].registerRegion(memory[n].asSlice(REGION_AT, REGION), true);
            regionFrozen[n] = false;
            java.util.Arrays.fill(slotWork[n], 0);
            works.get(n).clear();
            completed.get(n).clear();
            legitImmediateReports[n] = 0;
        }
        mainConnection[0] = nodes[0].connect(now, 1);
        for (int i = 0; i < 16 && !nodes[0].isEstablished(mainConnection[0]); i++) {
            step(Long.MAX_VALUE, true);
        }
        mainConnection[1] = nodes[1].connectionTo(0);
        check(nodes[0].isEstablished(mainConnection[0]) && nodes[1].isEstablished(mainConnection[1]),
                "set-up: the handshake completes");
        for (int i = 0; i < LEGIT.size(); i++) {
            legitIds[i] = postLegit(LEGIT.get(i));
        }
        legitIds[LEGIT.size()] = 0;
        pump(0);
        pump(1);
    }

    private long postLegit(Legit l) {
        int n = l.node();
        Endpoint e = nodes[n];
        int c = mainConnection[n];
        long id = switch (l.kind()) {
            case RECV -> postRecv(n, c, l.stream(), l.slot());
            case WRITE -> track(n, c, WorkKind.WRITE, l.length(), -1, n == 0
                    ? e.postWriteImmediate(c, regionKey[1 - n], l.remoteOffset(), source[n], l.srcOffset(), l.length(),
                    LEGIT_IMMEDIATE)
                    : e.postWrite(c, regionKey[1 - n], l.remoteOffset(), source[n], l.srcOffset(), l.length()));
            case SEND -> track(n, c, WorkKind.SEND, l.length(), -1,
                    e.postSend(c, l.stream(), source[n], l.srcOffset(), l.length()));
            case IMMEDIATE -> throw new IllegalArgumentException("an immediate is reported, never posted");
        };
        check(id > 0, "set-up: work is accepted");
        return id;
    }

    private long track(int node, int connection, WorkKind kind, long length, int slot, long id) {
        if (id != Verbs.QUEUE_FULL) {
            check(id > 0, "work ids are positive");
            check(works.get(node).put(id, new Work(id, node, connection, kind, length, slot)) == null,
                    "a work id is handed out once");
        }
        return id;
    }

    private long postRecv(int n, int c, int stream, int slot) {
        if (slotWork[n][slot] > 0) {
            return Verbs.QUEUE_FULL;   // one receive per slot at a time
        }
        checkSlotFrozen(n, slot);
        MemorySegment.copy(memory[n], ValueLayout.JAVA_BYTE, SLOT_AT[slot], slotSnapshot[n][slot], 0,
                SLOT_CAPACITY[slot]);
        long id = track(n, c, WorkKind.RECV, SLOT_CAPACITY[slot], slot,
                nodes[n].postRecv(c, stream, memory[n], SLOT_AT[slot], SLOT_CAPACITY[slot]));
        if (id > 0) {
            slotWork[n][slot] = id;
        }
        drainCompletions(n);   // a receive posted on a closed connection completes at once
        return id;
    }

    // ---- The network ----

    private void pump(int n) {
        sink.from = n;
        nodes[n].pollTransmit(now, sink);
        drainCompletions(n);
    }

    /**
     * One event: the earliest of the next timer and (when {@code deliver}) the oldest packet in flight, unless it is
     * after {@code limit}.
     *
     * @return false when there was none
     */
    private boolean step(long limit, boolean deliver) {
        long timer = Long.MAX_VALUE;
        int timerNode = -1;
        for (int n = 0; n < 2; n++) {
            long t = nodes[n].nextTimeoutNs();
            if (t < timer) {
                timer = t;
                timerNode = n;
            }
        }
        Packet p = deliver && !inFlight.isEmpty() ? inFlight.getFirst() : null;
        if (p != null && p.at() <= timer) {
            if (Math.max(now, p.at()) > limit) {
                return false;
            }
            inFlight.removeFirst();
            now = Math.max(now, p.at());
            deliver(p.to(), p.from(), p.path(), p.bytes(), p.bytes().length, 0, false);
            return true;
        }
        if (timerNode < 0 || Math.max(now, timer) > limit) {
            return false;
        }
        now = Math.max(now, timer);
        if (now == spinAt) {
            if (++spins > SPIN_LIMIT) {
                throw new AssertionError("livelock: timers fired " + spins + " times at " + now
                        + " ns and endpoint " + timerNode + " is still due at " + timer + "\n" + nodes[0].counters()
                        + "--\n" + nodes[1].counters());
            }
        } else {
            spinAt = now;
            spins = 1;
        }
        nodes[timerNode].onTimeout(now);
        pump(timerNode);
        return true;
    }

    /**
     * Fires timers (and delivers, if asked) up to {@code until}: at most {@link #OP_STEPS} events, and only while
     * the operations' budget of {@link #OPS_STEPS} lasts (then time stands still until the clean run).
     */
    private void runUntil(long until, boolean deliver) {
        for (int i = 0; i < OP_STEPS && opsSteps < OPS_STEPS; i++, opsSteps++) {
            if (!step(until, deliver)) {
                now = Math.max(now, until);
                return;
            }
        }
    }

    /**
     * Hands a datagram to an endpoint in one of four kinds of buffer: the array itself; a copy at an odd offset of
     * a larger array; off heap with the capacity exactly the datagram (as a driver that wraps each received
     * datagram would); off heap at an offset of a larger buffer.
     */
    private void deliver(int to, long from, int path, byte[] bytes, int length, int bufferKind, boolean ecn) {
        DirectBuffer buffer;
        int offset;
        switch (bufferKind & 3) {
            case 0 -> {
                heapView.wrap(bytes, 0, length);
                buffer = heapView;
                offset = 0;
            }
            case 1 -> {
                System.arraycopy(bytes, 0, heapScratch, 5, length);
                heapView.wrap(heapScratch);
                buffer = heapView;
                offset = 5;
            }
            case 2 -> {
                MemorySegment.copy(bytes, 0, nativeScratch, ValueLayout.JAVA_BYTE, 0, length);
                nativeView.wrap(nativeScratch.address(), length);
                buffer = nativeView;
                offset = 0;
            }
            default -> {
                MemorySegment.copy(bytes, 0, nativeScratch, ValueLayout.JAVA_BYTE, 3, length);
                nativeView.wrap(nativeScratch.address(), (int) nativeScratch.byteSize());
                buffer = nativeView;
                offset = 3;
            }
        }
        nodes[to].onDatagram(now, from, path, buffer, offset, length, ecn);
        drainCompletions(to);
        pump(to);
    }

    // ---- Operations ----

    private void operation(int op) {
        int options = op >>> 4;
        switch (op & 15) {
            case 0, 1, 2 -> deliverInFlight(0, options);
            case 3 -> deliverInFlight(in.u8(), options);
            case 4 -> {
                if (!inFlight.isEmpty()) {
                    inFlight.remove(in.u8() % inFlight.size());
                }
            }
            case 5 -> runUntil(now + delay(in.u8()), false);
            case 6 -> replay(options);
            case 7, 8, 9, 10 -> forge(options);
            case 11, 12 -> mutate(options);
            case 13 -> raw(options);
            case 14 -> verb(in.u8());
            default -> runUntil(now + delay(in.u8()), true);
        }
    }

    /** 2^8 ns to about 2^27 ns (134 ms), with the low bits of {@code b} spreading it. */
    private static long delay(int b) {
        return (long) ((b & 7) + 8) << ((b >>> 3) + 5);
    }

    /** Delivers in-flight packet {@code k} (0: the oldest), after the timers due until it arrives. */
    private void deliverInFlight(int k, int options) {
        if (inFlight.isEmpty()) {
            return;
        }
        int at = k % inFlight.size();
        Packet p = inFlight.get(at);
        runUntil(p.at(), false);
        boolean keep = (options & 8) != 0;   // the network duplicates it: a copy arrives now, the packet later
        if (!keep) {
            inFlight.remove(p);
        }
        deliver(p.to(), p.from(), p.path(), p.bytes(), p.bytes().length, options, (options & 4) != 0);
    }

    private Packet recent(int k) {
        if (history.isEmpty()) {
            return null;
        }
        int i = history.size() - 1 - k % history.size();
        for (Packet p : history) {
            if (i-- == 0) {
                return p;
            }
        }
        throw new IllegalStateException();
    }

    /** Delivers a recent packet again, as it was: to its endpoint (a late duplicate) or to the other one. */
    private void replay(int options) {
        Packet p = recent(in.u8());
        if (p == null) {
            return;
        }
        int to = p.to();
        if ((options & 8) != 0 || to < 0) {
            to = to < 0 ? p.from() ^ (options & 1) : 1 - to;
            System.arraycopy(p.bytes(), 0, forgeBytes, 0, p.bytes().length);
            send(to, 1 - to, p.bytes().length, options & 3, (options & 4) != 0);
            return;
        }
        deliver(to, p.from(), p.path(), p.bytes(), p.bytes().length, options & 3, (options & 4) != 0);
    }

    /** A recent real packet with up to 8 bytes (or 32-bit words) changed, its CRC recomputed unless told not to. */
    private void mutate(int options) {
        Packet p = recent(in.u8());
        if (p == null) {
            return;
        }
        int length = p.bytes().length;
        System.arraycopy(p.bytes(), 0, forgeBytes, 0, length);
        int edits = in.u8();
        for (int e = 0; e < (edits & 7) + 1; e++) {
            int at = in.u8() % length;
            if ((edits & 8) != 0 && at + 4 <= length) {
                forge.putInt(at, in.u32());
            } else {
                forgeBytes[at] = (byte) in.u8();
            }
        }
        if ((edits & 16) == 0 && length >= Crc32c.LENGTH) {
            crc.finish(forge, 0, length - Crc32c.LENGTH);
        }
        int to = p.to() < 0 ? p.from() : p.to();
        if ((edits & 32) != 0) {
            to = 1 - to;
        }
        send(to, 1 - to, length, options & 3, (options & 4) != 0);
    }

    /** Up to 511 raw bytes from the input, the last four made a valid CRC unless told not to. */
    private void raw(int options) {
        int length = in.u8() | (options & 1) << 8;
        for (int i = 0; i < length; i++) {
            forgeBytes[i] = (byte) in.u8();
        }
        if ((options & 2) == 0 && length >= HeaderFlyweight.HEADER_LENGTH + Crc32c.LENGTH) {
            crc.finish(forge, 0, length - Crc32c.LENGTH);
        }
        int to = (options >>> 2) & 1;
        send(to, (options & 8) != 0 ? 2 : 1 - to, length, in.u8(), false);
    }

    /** Hands the datagram in {@link #forgeBytes} to endpoint {@code to}, first noting whether it authenticates. */
    private void send(int to, long from, int length, int bufferKind, boolean ecn) {
        forge.wrap(forgeBytes, 0, length);
        if (authenticates(to, forge, length)) {
            tainted = true;
        }
        forge.wrap(forgeBytes);
        deliver(to, from, 0, forgeBytes, length, bufferKind, ecn);
    }

    /**
     * Whether a datagram could change the endpoint's connections: structurally valid and a signed INIT, or an
     * ACCEPT for a connection, or carrying a connection's id and session tag.
     */
    private boolean authenticates(int to, DirectBuffer buffer, int length) {
        if (validator.check(buffer, 0, length) != null) {
            return false;
        }
        header.wrap(buffer, 0);
        if (header.type() == PacketType.HANDSHAKE_INIT) {
            return crypto.verifyInit(buffer, 0);
        }
        Connection c = nodes[to].connection(header.connectionId());
        return c != null && (header.type() == PacketType.HANDSHAKE_ACCEPT || header.sessionTag() == c.sessionTag());
    }

    /** A connection of endpoint {@code n}: its main one, or one with a stranger (2, 3) if there is one. */
    private Connection connectionOf(int n, int which) {
        int id = which == 1 ? nodes[n].connectionTo(2) : which == 2 ? nodes[n].connectionTo(3) : -1;
        Connection c = id < 0 ? null : nodes[n].connection(id);
        return c != null ? c : nodes[n].connection(mainConnection[n]);
    }

    /** A small number (usually; larger ones from the next 2 or 4 bytes). */
    private int small() {
        int b = in.u8();
        return b < 0xE0 ? b : b < 0xF0 ? in.u16() : in.u32();
    }

    /** A clock value: usually a little before now; sometimes any 64 bits. */
    private long clock() {
        int b = in.u8();
        return b == 0xFF ? in.u64() : now - (long) b * 500;
    }

    private static long nonceWord(byte[] nonce, int at) {
        long word = 0;
        for (int i = 7; i >= 0; i--) {
            word = (word << 8) | (nonce[at + i] & 0xFF);
        }
        return word;
    }

    /**
     * A packet of any type, built from a valid template with fields from the input (see {@link Script#forge} for
     * the control bits: the target endpoint and connection, the generation (real, next, previous, any), whether the
     * real connection id and session tag are patched in, whether the CRC is made right, ECN, a stranger as the
     * source, the buffer kind).
     */
    private void forge(int options) {
        int c1 = in.u8();
        int c2 = in.u8();
        int type = TYPES[in.u8() % TYPES.length];
        int to = c1 & 1;
        Connection c = connectionOf(to, c2 & 3);
        int paths = c.paths();
        int path = (c2 & 4) != 0 ? in.u8() & 63 : in.u8() % (paths + 1);
        int known = Math.min(path, paths - 1);
        boolean senderSide = type == PacketType.ACK || type == PacketType.PROBE_REPLY;
        int realGeneration = senderSide ? c.senderPath(known).generation() : c.receiverPath(known).generation();
        int generation = switch ((c1 >>> 1) & 3) {
            case 0 -> realGeneration;
            case 1 -> realGeneration + 1;
            case 2 -> realGeneration - 1;
            default -> in.u16();
        };
        int connection = (c1 & 8) == 0 ? c.localId : in.u32();
        int tag = (c1 & 16) == 0 ? c.sessionTag() : in.u32();
        int flags = in.u8();
        if ((c2 & 32) == 0) {
            flags &= PacketType.allowedFlags(type);
        }
        int length = switch (type) {
            case PacketType.WRITE, PacketType.SEND -> forgeData(type, c, flags, path, generation, connection, tag, c2,
                    to);
            case PacketType.ACK -> {
                fly.ack().wrap(forge, 0).putHeader(path, generation, connection, tag)
                        .cumulativePsn(small()).ecnCount(small()).echoTimestampNs(clock());
                int rate = in.u8();
                fly.ack().rateHintBytesPerSecond(switch (rate & 3) {
                    case 0 -> 0;
                    case 1 -> (long) CONFIG.inboundBytesPerSecond() >>> (rate >>> 2);
                    case 2 -> rate >>> 2;
                    default -> in.u64();
                });
                int sack = in.u8();
                for (int w = 0; w < AckFlyweight.SACK_WORDS; w++) {
                    fly.ack().sackWord(w, switch (sack & 3) {
                        case 0 -> 0;
                        case 1 -> w == 0 ? in.u8() : 0;
                        case 2 -> w == 0 ? in.u32() & 0xFFFF_FFFFL : 0;
                        default -> in.u64();
                    });
                }
                yield AckFlyweight.FRAME_LENGTH;
            }
            case PacketType.PROBE, PacketType.PROBE_REPLY -> {
                fly.probe().wrap(forge, 0).putHeader(type, flags, path, generation, connection, tag, 0)
                        .probeSequence(small()).timestampNs(clock());
                yield ProbeFlyweight.FRAME_LENGTH;
            }
            case PacketType.CLOSE -> {
                fly.close().wrap(forge, 0).putHeader(type, flags, path, generation, connection, tag, 0).reason(in.u8());
                yield CloseFlyweight.FRAME_LENGTH;
            }
            case PacketType.RNR -> {
                fly.rnr().wrap(forge, 0).putHeader(type, flags, path, generation, connection, tag, 0)
                        .streamId(small()).messageSequence(small());
                int retry = in.u8();
                fly.rnr().retryAfterNs(retry == 0xFF ? in.u64() : retry * 1000L);
                yield RnrFlyweight.FRAME_LENGTH;
            }
            case PacketType.HANDSHAKE_INIT -> {
                // As the peer (or a stranger) would open a connection: real ids and nonce of the peer's side, or any.
                Connection peer = nodes[1 - to].connection(mainConnection[1 - to]);
                boolean real = (c2 & 64) == 0;
                fly.init().wrap(forge, 0).putHeader(path, generation);
                if ((c1 & 8) != 0) {
                    fly.init().connectionId(connection);
                }
                fly.init().initiatorConnectionId(real ? peer.localId : in.u32())
                        .paths(real ? CONFIG.paths() : in.u8() % 66)
                        .payloadBytes(real ? CONFIG.payloadBytes() : in.u16());
                if (real) {
                    fly.init().putNonce(peer.localNonce(), 0);
                } else {
                    fly.init().nonce(in.u64(), in.u64());
                }
                if ((c2 & 128) == 0) {
                    crypto.signInit(forge, 0);
                }
                yield HandshakeInitFlyweight.FRAME_LENGTH;
            }
            default -> {   // HANDSHAKE_ACCEPT, answering connection c of endpoint `to`
                boolean real = (c2 & 64) == 0;
                fly.accept().wrap(forge, 0).putHeader(path, generation, connection);
                fly.accept().acceptorConnectionId(real ? nodes[1 - to].connection(mainConnection[1 - to]).localId
                                : in.u32())
                        .nonce(in.u64(), in.u64())
                        .grantedSessionTag(real ? c.sessionTag() : in.u32());
                if ((c2 & 128) == 0) {
                    byte[] n = c.localNonce();
                    crypto.signAccept(forge, 0, nonceWord(n, 0), nonceWord(n, 8));
                }
                yield HandshakeAcceptFlyweight.FRAME_LENGTH;
            }
        };
        if ((c1 & 32) == 0) {
            crc.finish(forge, 0, length - Crc32c.LENGTH);
        }
        long from = (options & 4) == 0 ? 1 - to : 2 + (options >>> 3);
        send(to, from, length, options & 3, (c1 & 64) != 0);
    }

    /** A WRITE or SEND: chunk offsets on the connection's packet size and the matching payload, unless told not. */
    private int forgeData(int type, Connection c, int flags, int path, int generation, int connection, int tag,
                          int c2, int to) {
        boolean write = type == PacketType.WRITE;
        int psn = small();
        long timestamp = clock();
        int message = small();
        int target = write ? ((c2 & 64) == 0 ? regionKey[to] : in.u32()) : small();
        int shape = in.u8();
        long messageLength = (shape & 1) == 0 ? in.u16() % 3072 : in.u64() >>> (in.u8() & 63);
        int pb = c.payloadBytes();
        long offset = (shape & 2) == 0 ? (long) small() * pb : in.u64();
        long base = !write ? 0 : (shape & 4) == 0 ? in.u16() % (REGION + 256) : in.u64();
        if ((shape & 8) != 0) {
            base = in.u64();   // any base, a SEND's too (a field check)
        }
        long exact = Math.min(pb, messageLength - offset);
        int payload = (shape & 16) == 0 && exact >= 0 && exact <= HeaderFlyweight.MAX_PAYLOAD_LENGTH
                ? (int) exact : in.u16() % 1100;
        fly.data().wrap(forge, 0).putHeader(type, flags, path, generation, connection, tag, payload)
                .psn(psn).timestampNs(timestamp).message(message).target(target)
                .messageOffset(offset).messageLength(messageLength).base(base);
        byte fill = (byte) (0xA0 | shape >>> 5);
        java.util.Arrays.fill(forgeBytes, DataFlyweight.PAYLOAD_FIELD_OFFSET,
                DataFlyweight.PAYLOAD_FIELD_OFFSET + payload, fill);
        return DataFlyweight.DATA_HEADER_LENGTH + payload + Crc32c.LENGTH;
    }

    /** Verbs: the late receive (legitimate), or others that disturb the legitimate work (they taint the input). */
    private void verb(int v) {
        int n = v & 1;
        int c = mainConnection[n];
        switch ((v >>> 1) & 7) {
            case 0 -> postLate();
            case 1 -> {
                tainted = true;
                postRecv(n, c, in.u8() % 6, 4 + (v >>> 4 & 1));
            }
            case 2 -> {
                tainted = true;
                nodes[n].close(now, c);
                drainCompletions(n);
                pump(n);
            }
            case 3 -> {
                tainted = true;
                if (!regionFrozen[n]) {
                    nodes[n].deregisterRegion(regionKey[n]);
                    regionFrozen[n] = true;
                    MemorySegment.copy(memory[n], ValueLayout.JAVA_BYTE, REGION_AT, regionSnapshot[n], 0, REGION);
                }
            }
            case 4 -> {
                nodes[n].connect(now, 2 + (v >>> 4 & 1));   // a connection elsewhere: must not disturb this one
                pump(n);
            }
            case 5 -> {
                tainted = true;
                int length = in.u16() % 1200;
                track(n, c, WorkKind.SEND, length, -1,
                        nodes[n].postSend(c, in.u8() % 6, source[n], in.u8(), length));
                drainCompletions(n);
                pump(n);
            }
            case 6 -> {
                tainted = true;
                int length = in.u16() % 1500;
                int key = (v & 32) == 0 ? regionKey[1 - n] : in.u32();
                track(n, c, WorkKind.WRITE, length, -1,
                        nodes[n].postWrite(c, key, in.u16() % (REGION + 64), source[n], in.u8(), length));
                drainCompletions(n);
                pump(n);
            }
            default -> {
                Connection other = connectionOf(n, 1 + (v >>> 4 & 1));
                if (other.localId != c) {
                    nodes[n].close(now, other.localId);   // closing a stranger's connection must not disturb this one
                    pump(n);
                }
            }
        }
    }

    private void postLate() {
        if (!latePosted) {
            latePosted = true;
            legitIds[LEGIT.size()] = postRecv(1, mainConnection[1], LATE_RECV.stream(), LATE_RECV.slot());
            check(legitIds[LEGIT.size()] > 0 || nodes[1].connection(mainConnection[1]).pendingWork()
                    >= CONFIG.maxPendingWork(), "the late receive is accepted");
            pump(1);
        }
    }

    // ---- Completions ----

    private void drainCompletions(int n) {
        nodes[n].pollCompletions((connection, workId, kind, status, bytes) -> {
            if (kind == WorkKind.IMMEDIATE) {
                immediateReported(n, workId, status, bytes);
                return;
            }
            Work w = works.get(n).get(workId);
            check(w != null, "endpoint " + n + ": completion of unknown work " + workId);
            check(completed.get(n).put(workId, new Completed(status, bytes)) == null,
                    "work " + workId + " completes once (again as " + status + ")");
            check(w.connection() == connection && w.kind() == kind, "work " + workId + " completes as posted");
            switch (status) {
                case OK -> check(w.length() < 0 || (kind == WorkKind.RECV ? bytes <= w.length() : bytes == w.length()),
                        "OK " + kind + " " + workId + " reports " + bytes + " bytes of " + w.length());
                default -> check(bytes == 0, status + " reports no bytes");
            }
            check(status != CompletionStatus.TRUNCATED || kind == WorkKind.RECV, "only receives truncate");
            if (w.slot() >= 0) {
                receiveCompleted(n, w, status, bytes);
            }
        });
    }

    /**
     * A peer's WRITE with immediate is in place: the legitimate one is reported once, with its length, its bytes all
     * there at that moment, unless the input is tainted (a forger knowing the session may complete WRITEs of its
     * own, with any immediate, and a posted WRITE may overwrite the region); any report is OK and 32 bits.
     */
    private void immediateReported(int n, long immediate, CompletionStatus status, long bytes) {
        check(status == CompletionStatus.OK && immediate >= 0 && immediate <= 0xFFFF_FFFFL && bytes >= 0,
                "endpoint " + n + ": an immediate is reported OK, as 32 unsigned bits (" + status + ", " + immediate
                        + ", " + bytes + " bytes)");
        if (immediate != LEGIT_IMMEDIATE || n != 1 || tainted) {
            return;   // an authenticated forgery or a disturbing verb may write the region or report this value too
        }
        check(++legitImmediateReports[n] == 1, "the legitimate WRITE's immediate is reported once");
        for (Legit l : LEGIT) {
            if (l.kind() == WorkKind.WRITE && l.node() == 0) {
                check(bytes == l.length(), "the immediate reports the WRITE's " + l.length() + " bytes, not " + bytes);
                check(memory[1].asSlice(REGION_AT + l.remoteOffset(), l.length())
                                .mismatch(source[0].asSlice(l.srcOffset(), l.length())) < 0,
                        "the immediate is reported only once every byte of its WRITE is in place");
            }
        }
    }

    /** @return how node {@code n}'s work {@code id} completed; null while it has not */
    private CompletionStatus statusOf(int n, long id) {
        Completed c = completed.get(n).get(id);
        return c == null ? null : c.status();
    }

    private void receiveCompleted(int n, Work w, CompletionStatus status, long bytes) {
        int slot = w.slot();
        byte[] snap = slotSnapshot[n][slot];
        int at = SLOT_AT[slot];
        long from = switch (status) {
            case OK -> bytes;
            case TRUNCATED -> 0;
            case CONNECTION_CLOSED, PEER_DONE, CANCELLED -> SLOT_CAPACITY[slot];
        };
        long differs = MemorySegment.mismatch(memory[n], at + from, at + SLOT_CAPACITY[slot],
                MemorySegment.ofArray(snap), from, SLOT_CAPACITY[slot]);
        check(differs < 0, "endpoint " + n + " slot " + slot + ": a " + status + " receive of " + bytes
                + " bytes changed byte " + (from + differs));
        MemorySegment.copy(memory[n], ValueLayout.JAVA_BYTE, at, snap, 0, SLOT_CAPACITY[slot]);
        slotWork[n][slot] = -1;   // frozen: must not change until posted again
    }

    private void checkSlotFrozen(int n, int slot) {
        int at = SLOT_AT[slot];
        MemorySegment expected = slotWork[n][slot] < 0 ? MemorySegment.ofArray(slotSnapshot[n][slot])
                : MemorySegment.ofArray(pristine[n]).asSlice(at, SLOT_CAPACITY[slot]);
        long differs = MemorySegment.mismatch(memory[n], at, at + SLOT_CAPACITY[slot], expected, 0,
                SLOT_CAPACITY[slot]);
        check(differs < 0, "endpoint " + n + " slot " + slot + " changed at " + differs + " while no receive was "
                + "posted into it");
    }

    // ---- The end ----

    /**
     * Whether all legitimate work has completed. A receive may stay pending when the peer's connection failed (its
     * dead-connection timer) while this side's did not: a failing connection does not tell its peer, and a side
     * with nothing outstanding cannot notice that the peer is gone.
     */
    private boolean legitDone() {
        for (int i = 0; i <= LEGIT.size(); i++) {
            Legit l = i < LEGIT.size() ? LEGIT.get(i) : LATE_RECV;
            int n = l.node();
            long id = legitIds[i];
            if (id > 0 && statusOf(n, id) == null && !(l.kind() == WorkKind.RECV
                    && nodes[1 - n].connection(mainConnection[1 - n]).state() == Connection.State.CLOSED)) {
                return false;
            }
        }
        return true;
    }

    private void settle() {
        postLate();
        long end = now + (tainted ? TAINTED_SETTLE_NS : SETTLE_NS);
        int steps = tainted ? TAINTED_SETTLE_STEPS : SETTLE_STEPS;
        for (int i = 0; i < steps; i++) {
            if (!tainted && legitDone()) {
                return;
            }
            if (!step(end, true)) {
                return;
            }
        }
    }

    private void checkEnd() {
        for (int n = 0; n < 2; n++) {
            drainCompletions(n);
            checkGuards(n);
            for (int s = 0; s < SLOT_CAPACITY.length; s++) {
                if (slotWork[n][s] <= 0) {
                    checkSlotFrozen(n, s);
                }
            }
            if (regionFrozen[n]) {
                long differs = MemorySegment.mismatch(memory[n], REGION_AT, REGION_AT + REGION,
                        MemorySegment.ofArray(regionSnapshot[n]), 0, REGION);
                check(differs < 0, "endpoint " + n + ": the region changed at " + differs + " after deregistration");
            }
            for (Work w : works.get(n).values()) {
                Connection c = nodes[n].connection(w.connection());
                check(c.pendingWork() >= 0 && c.pendingWork() <= CONFIG.maxPendingWork(), "pending work in range");
                check(statusOf(n, w.id()) != null || c.state() != Connection.State.CLOSED,
                        "endpoint " + n + ": work of a closed connection has not completed");
            }
        }
        if (!tainted) {
            checkLegit();
        }
    }

    private void checkGuards(int n) {
        MemorySegment expected = MemorySegment.ofArray(pristine[n]);
        int from = 0;
        int[] starts = new int[SLOT_CAPACITY.length + 1];
        int[] ends = new int[SLOT_CAPACITY.length + 1];
        starts[0] = REGION_AT;
        ends[0] = REGION_AT + REGION;
        for (int s = 0; s < SLOT_CAPACITY.length; s++) {
            starts[s + 1] = SLOT_AT[s];
            ends[s + 1] = SLOT_AT[s] + SLOT_CAPACITY[s];
        }
        for (int k = 0; k <= SLOT_CAPACITY.length; k++) {
            long differs = MemorySegment.mismatch(memory[n], from, starts[k], expected, from, starts[k]);
            check(differs < 0, "endpoint " + n + ": guard byte " + (from + differs) + " changed");
            from = ends[k];
        }
        long differs = MemorySegment.mismatch(memory[n], from, MEMORY, expected, from, MEMORY);
        check(differs < 0, "endpoint " + n + ": guard byte " + (from + differs) + " changed");
    }

    /** Nothing disturbed the legitimate work: it all completed, as expected (or closed), with the right bytes. */
    private void checkLegit() {
        check(legitDone(), "legitimate work did not complete within " + SETTLE_NS + " ns of clean delivery\n"
                + nodes[0].counters() + "--\n" + nodes[1].counters());
        for (int i = 0; i <= LEGIT.size(); i++) {
            Legit l = i < LEGIT.size() ? LEGIT.get(i) : LATE_RECV;
            long id = legitIds[i];
            if (id <= 0) {
                continue;
            }
            int n = l.node();
            Completed done = completed.get(n).get(id);
            if (done == null) {
                continue;   // a receive whose peer failed (see legitDone)
            }
            check(done.status() == l.expected() || done.status() == CompletionStatus.CONNECTION_CLOSED,
                    "legitimate " + l + " ended " + done.status());
            if (done.status() != CompletionStatus.OK) {
                continue;
            }
            MemorySegment src = source[l.kind() == WorkKind.RECV ? 1 - n : n].asSlice(l.srcOffset(), l.length());
            switch (l.kind()) {
                case RECV -> {
                    check(done.bytes() == l.length(), "legitimate " + l + " received " + done.bytes() + " bytes");
                    check(memory[n].asSlice(SLOT_AT[l.slot()], l.length()).mismatch(src) < 0,
                            "legitimate " + l + ": the received bytes differ");
                }
                case WRITE -> {
                    check(memory[1 - n].asSlice(REGION_AT + l.remoteOffset(), l.length()).mismatch(src) < 0,
                            "legitimate " + l + ": the written bytes differ");
                    if (n == 0) {
                        // Acknowledged means placed, and the immediate is reported on placement.
                        drainCompletions(1);
                        check(legitImmediateReports[1] == 1, "legitimate " + l + " completed OK, its immediate was "
                                + "reported " + legitImmediateReports[1] + " times");
                    }
                }
                case SEND -> {
                    // Acknowledged means placed: the matching receive has completed.
                    for (int j = 0; j <= LEGIT.size(); j++) {
                        Legit r = j < LEGIT.size() ? LEGIT.get(j) : LATE_RECV;
                        if (r.kind() == WorkKind.RECV && r.node() == 1 - n && r.stream() == l.stream()
                                && legitIds[j] > 0) {
                            check(statusOf(1 - n, legitIds[j]) == r.expected(),
                                    "legitimate " + l + " completed OK, its receive did not");
                        }
                    }
                }
            }
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    // ---- Input ----

    /** Reads the input front to back; past its end every read is 0. */
    static final class In {
        private final byte[] bytes;
        private int at;

        In(byte[] bytes) {
            this.bytes = bytes;
        }

        boolean more() {
            return at < bytes.length;
        }

        int u8() {
            return at < bytes.length ? bytes[at++] & 0xFF : 0;
        }

        int u16() {
            return u8() | u8() << 8;
        }

        int u32() {
            return u16() | u16() << 16;
        }

        long u64() {
            return (u32() & 0xFFFF_FFFFL) | (long) u32() << 32;
        }
    }

    /** Writes inputs (for the seed corpus and tests): the operations above, in their encoding. */
    static final class Script {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Script raw(int... bytes) {
            for (int b : bytes) {
                out.write(b);
            }
            return this;
        }

        Script u16(int v) {
            return raw(v & 0xFF, v >>> 8 & 0xFF);
        }

        Script u32(int v) {
            return u16(v & 0xFFFF).u16(v >>> 16);
        }

        Script u64(long v) {
            return u32((int) v).u32((int) (v >>> 32));
        }

        /** Delivers the oldest packet in flight; options: buffer kind (bits 0-1), ECN (4), keep a copy (8). */
        Script deliver(int options) {
            return raw(options << 4);
        }

        Script deliver(int count, int options) {
            for (int i = 0; i < count; i++) {
                deliver(options);
            }
            return this;
        }

        /** Delivers in-flight packet k (reordering); options as for {@link #deliver(int)}. */
        Script deliverAt(int k, int options) {
            return raw(3 | options << 4, k);
        }

        /** A value for {@code small()}: one byte below 0xE0, else 0xF0 and 32 bits. */
        Script small(int v) {
            return v >= 0 && v < 0xE0 ? raw(v) : raw(0xF0).u32(v);
        }

        Script drop(int k) {
            return raw(4, k);
        }

        /** Fires timers for {@code delay(b)} ns with the network frozen. */
        Script advance(int b) {
            return raw(5, b);
        }

        /** Runs the network (delivering) for {@code delay(b)} ns. */
        Script run(int b) {
            return raw(15, b);
        }

        Script replay(int k, int options) {
            return raw(6 | options << 4, k);
        }

        Script verb(int v) {
            return raw(14, v);
        }

        /**
         * A recent packet (k: 0 the latest) with edits: bits 0-2 of {@code edits} their number less one, bit 3 each
         * a 32-bit word, bit 4 the CRC left wrong, bit 5 to the other endpoint; then (position, value) per edit.
         */
        Script mutate(int k, int edits, int... positionsAndValues) {
            raw(11, k, edits);
            for (int i = 0; i < positionsAndValues.length; i += 2) {
                raw(positionsAndValues[i]);
                if ((edits & 8) != 0) {
                    u32(positionsAndValues[i + 1]);
                } else {
                    raw(positionsAndValues[i + 1]);
                }
            }
            return this;
        }

        /** Raw bytes (at most 255 here) to endpoint {@code to}, the last four made a valid CRC. */
        Script rawDatagram(int to, byte[] datagram) {
            raw(13 | (to << 2) << 4, datagram.length);
            for (byte b : datagram) {
                raw(b & 0xFF);
            }
            return raw(0);
        }

        /**
         * The start of a forged packet: the op byte (options: bits 0-1 the buffer kind, bit 2 a stranger as the
         * source, bit 3 stranger 3 rather than 2); c1 (bit 0 the endpoint, bits 1-2 the generation real / next /
         * previous / any, 3 any connection id, 4 any session tag, 5 the CRC left wrong, 6 ECN); c2 (bits 0-1 which
         * connection, 2 any path id, 5 any flags, 6 handshakes: not the real ids, WRITE: any key, 7 handshakes
         * unsigned); the type (index into TYPES); the path byte. The caller appends what the chosen bits need
         * (generation, connection id, tag), the flags byte and the type's fields.
         */
        Script forge(int options, int c1, int c2, int typeIndex, int path) {
            return raw(7 | options << 4, c1, c2, typeIndex, path);
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
