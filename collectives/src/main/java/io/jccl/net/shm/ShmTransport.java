package io.jccl.net.shm;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.BoxPeer;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetProperties;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.TransportContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * One rank's shm transport: its segment (rings of the connections into it, doorbell, registered heap), its listeners,
 * connection attempts and connections, and the mappings of its peers' segments. No thread of its own: everything
 * moves inside {@link io.jccl.net.NetRequest#test()}; an idle caller can sleep on the segment's doorbell
 * ({@link #awaitProgress}).
 */
final class ShmTransport implements NetTransport {
    private static final Logger LOG = JcclLog.logger(Subsystem.SHM, ShmTransport.class);
    /** The startup decision and refused probes: INIT|SHM, shown with {@code JCCL_DEBUG=INFO} by default. */
    private static final Logger INIT_LOG = JcclLog.logger(EnumSet.of(Subsystem.INIT, Subsystem.SHM),
            ShmTransport.class);
    private static final VarHandle LONG = Layouts.LONG;
    /** Bandwidth reported to the tuner: about one memory copy per byte, a round figure. */
    static final long SPEED_MBPS = 64_000;
    /** Small-message latency reported to the tuner: a store and a poll on shared memory. */
    static final double LATENCY_US = 1.0;
    static final long MAX_MESSAGE_BYTES = 1L << 40;
    private static final NetProperties PROPERTIES = new NetProperties(ShmTransportProvider.NAME, SPEED_MBPS,
            LATENCY_US, ShmConnection.MAX_INFLIGHT_REQUESTS, MAX_MESSAGE_BYTES, false);
    /** Lines logged once per JVM: the startup decision, refused probes. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private final TransportContext context;
    private final ShmOptions options;
    private final long connectTimeoutNs;
    private final boolean allowsCrossMemory;
    private final Segment own;
    private final Arena arena;
    private final RegisteredHeap heap;
    private final Scratch waitScratch;
    private final Scratch wakeScratch;
    private final Map<String, Peer> peers = new HashMap<>();
    private final Set<Object> resources = ConcurrentHashMap.newKeySet();
    private volatile ShmConnection[] connections = new ShmConnection[0];
    private long listenerIds;
    private volatile boolean closed;
    private volatile boolean wakeRequested;
    /** The peers' box lines ({@link #boxSum}) as each thread saw them when it last came to sleep. */
    private final ThreadLocal<long[]> boxesSeen = ThreadLocal.withInitial(() -> new long[1]);

    /**
     * @param context the rank's context
     * @throws IllegalArgumentException when an option is invalid
     * @throws NetException             when the segment cannot be created, or {@code JCCL_SHM_LARGE=cma} and
     *                                  cross-memory attach is refused
     */
    ShmTransport(TransportContext context) {
        this.context = Objects.requireNonNull(context, "context");
        this.connectTimeoutNs = context.connectTimeoutNanos();
        this.options = ShmOptions.parse(context.options());
        String unavailable = LinuxCalls.Native.unavailableReason();
        if (unavailable != null) {
            throw new NetException(NetException.Reason.IO_ERROR, "shm transport unavailable: " + unavailable);
        }
        String decision;
        if (options.large() == ShmOptions.Large.RING) {
            allowsCrossMemory = false;
            decision = "pipelined copy through " + bytes(options.ringBytes()) + " rings (" + ShmOptions.LARGE
                    + "=ring)";
        } else {
            CrossMemory.Availability cma = CrossMemory.check();
            if (!cma.usable() && options.large() == ShmOptions.Large.CMA) {
                throw new NetException(NetException.Reason.IO_ERROR, ShmOptions.LARGE + "=cma but process_vm_readv"
                        + " is refused: " + cma.reason());
            }
            allowsCrossMemory = cma.usable() && (options.large() == ShmOptions.Large.CMA
                    || options.singleCopyMaxBytes() > 0);
            String done = cma.reason().isEmpty() ? "" : "; " + cma.reason();
            if (!cma.usable()) {
                decision = "pipelined copy through " + bytes(options.ringBytes()) + " rings: process_vm_readv refused ("
                        + cma.reason() + ")";
            } else if (options.large() == ShmOptions.Large.CMA) {
                decision = "cross-memory attach (" + ShmOptions.LARGE + "=cma" + done + ")";
            } else if (options.singleCopyMaxBytes() == 0) {
                decision = "pipelined copy through " + bytes(options.ringBytes()) + " rings ("
                        + ShmOptions.SINGLE_COPY_BYTES + "=0" + done + ")";
            } else {
                decision = "cross-memory attach where asked (out-of-place all-reduces of 2 ranks up to "
                        + bytes(options.singleCopyMaxBytes()) + " per rank, " + ShmOptions.SINGLE_COPY_BYTES
                        + "), else pipelined copy through "
                        + bytes(options.ringBytes()) + " rings" + (done.isEmpty() ? "" : " (" + done.substring(2)
                        + ")");
            }
        }
        this.own = Segment.create(Layout.slotsFor(context.size()), options.ringBytes(), options.registeredBytes());
        this.arena = Arena.ofShared();
        this.heap = new RegisteredHeap(own.memory.address() + own.heapOffset, own.heapBytes);
        this.waitScratch = new Scratch(arena);
        this.wakeScratch = new Scratch(arena);
        logOnce("shm: messages over " + options.eagerBytes() + " bytes by " + decision + "; shorter ones through "
                + bytes(options.ringBytes()) + " rings, up to " + Records.FAST_BOX_PAYLOAD
                + " bytes in one cache line; registered memory " + bytes(options.registeredBytes()) + " per rank");
    }

    private static void logOnce(String line) {
        if (LOGGED.add(line)) {
            INIT_LOG.info(line);
        }
    }

    static String bytes(long n) {
        if (n >= 1L << 30 && n % (1L << 30) == 0) {
            return (n >> 30) + " GiB";
        }
        if (n >= 1 << 20 && n % (1 << 20) == 0) {
            return (n >> 20) + " MiB";
        }
        if (n >= 1 << 10 && n % (1 << 10) == 0) {
            return (n >> 10) + " KiB";
        }
        return n + " bytes";
    }

    @Override
    public NetProperties properties() {
        return PROPERTIES;
    }

    @Override
    public synchronized Listener listen(ProgressSignal signal) {
        checkOpen();
        int id = 1;
        while (id <= Layout.MAX_LISTENERS && (listenerIds & (1L << id)) != 0) {
            id++;
        }
        if (id > Layout.MAX_LISTENERS) {
            throw new NetException(NetException.Reason.IO_ERROR, this + " has " + Layout.MAX_LISTENERS
                    + " listeners open already");
        }
        listenerIds |= 1L << id;
        LONG.getAndBitwiseOr(own.memory, Layout.H_LISTENERS, 1L << id);
        ShmListener listener = new ShmListener(this, id, new ShmHandle(id, own.pid, own.fd, own.bytes, own.token(),
                rank()));
        resources.add(listener);
        return listener;
    }

    synchronized void forgetListener(ShmListener listener) {
        listenerIds &= ~(1L << listener.id());
        resources.remove(listener);
    }

    @Override
    public PendingConnect connect(byte[] peerHandle, ProgressSignal signal) {
        checkOpen();
        ShmHandle handle = ShmHandle.decode(peerHandle);
        Peer peer = acquirePeer(handle.pid(), handle.fd(), handle.segmentBytes(), handle.token().bytes());
        ShmPendingConnect pending = new ShmPendingConnect(this, handle, peer, connectTimeoutNs);
        resources.add(pending);
        if (closed) {
            pending.cancel();
            throw new NetException(NetException.Reason.CLOSED, this + " is closed");
        }
        return pending;
    }

    /** Maps a peer's segment, or takes another reference to a mapping this transport holds. */
    synchronized Peer acquirePeer(long pid, long fd, long bytes, byte[] token) {
        checkOpen();
        String key = pid + "/" + fd + "/" + HexFormat.of().formatHex(token);
        Peer peer = peers.get(key);
        if (peer == null) {
            peer = Peer.of(Segment.map(pid, fd, bytes, token));
            peers.put(key, peer);
        }
        peer.references++;
        return peer;
    }

    /** Drops a reference taken by {@link #acquirePeer}; the last one unmaps. */
    synchronized void releasePeer(Peer peer) {
        if (--peer.references == 0) {
            peers.values().remove(peer);
            peer.close();
        }
    }

    /** Wraps an accepted slot of a peer's segment; takes over the attempt's reference to the peer. */
    ShmSendConnection openSend(MemorySegment slot, Peer peer, int peerRank, int mode) {
        ShmSendConnection c = new ShmSendConnection(this, "shm send connection rank " + rank() + " -> rank "
                + peerRank + " (pid " + peer.pid + ")", slot, peer, peerRank, mode, options,
                own.memory.address() + own.heapOffset, own.heapBytes);
        add(c);
        return c;
    }

    /** Wraps a slot of this rank's segment that a peer connected through; takes over the listener's reference. */
    ShmRecvConnection openRecv(MemorySegment slot, Peer peer, int peerRank, int mode) {
        ShmRecvConnection c = new ShmRecvConnection(this, "shm receive connection rank " + rank() + " <- rank "
                + peerRank + " (pid " + peer.pid + ")", slot, peer, peerRank, mode);
        add(c);
        return c;
    }

    private synchronized void add(ShmConnection c) {
        if (closed) {
            c.close();
            throw new NetException(NetException.Reason.CLOSED, this + " is closed");
        }
        ShmConnection[] now = Arrays.copyOf(connections, connections.length + 1);
        now[now.length - 1] = c;
        connections = now;
    }

    /** Stops tracking a connection or attempt that closed itself; a connection releases its peer. */
    void forget(Object resource) {
        resources.remove(resource);
        if (resource instanceof ShmConnection c) {
            synchronized (this) {
                List<ShmConnection> now = new ArrayList<>(Arrays.asList(connections));
                if (now.remove(c)) {
                    connections = now.toArray(ShmConnection[]::new);
                    releasePeer(c.peer);
                }
            }
        }
    }

    Scratch newScratch() {
        return new Scratch(arena);
    }

    /** @return native memory for cross-memory reads into heap receives, freed with the transport */
    MemorySegment bounceBuffer(long bytes) {
        return arena.allocate(bytes, Layout.PAGE);
    }

    Segment ownSegment() {
        return own;
    }

    boolean ownSegmentOpen() {
        return own.isOpen();
    }

    ShmOptions options() {
        return options;
    }

    boolean allowsCrossMemory() {
        return allowsCrossMemory;
    }

    int rank() {
        return context.self().rank();
    }

    void noteRefusedCrossMemory(int peerRank, long pid, String why) {
        logOnce("shm: process_vm_readv of rank " + peerRank + " (pid " + pid + ") refused (" + why + "): its messages"
                + " to rank " + rank() + " take the pipelined copy through the ring");
    }

    @Override
    public MemorySegment allocateMemory(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes must be at least 1, not " + bytes);
        }
        checkOpen();
        if (heap.bytes() == 0) {
            return null;
        }
        MemorySegment segment = heap.allocate(bytes);
        if (segment == null) {
            throw new NetException(NetException.Reason.IO_ERROR, "the shm registered memory of rank " + rank() + " ("
                    + bytes(heap.bytes()) + ", " + ShmOptions.REGISTERED_BYTES + ") has no free block of " + bytes
                    + " bytes");
        }
        return segment;
    }

    @Override
    public boolean freeMemory(MemorySegment segment) {
        return segment != null && heap.free(segment);
    }

    @Override
    public boolean awaitProgress(long timeoutNs) {
        if (closed) {
            return true;
        }
        if (timeoutNs <= 0) {
            return true;
        }
        MemorySegment m = own.memory;
        int seen = Doorbell.enter(m);
        try {
            if (wakeRequested) {
                return true;
            }
            long boxes = 0;
            for (ShmConnection c : connections) {
                if (c.hasNews()) {
                    return true;
                }
                if (c instanceof ShmSendConnection s) {
                    boxes += boxSum(s.peerBoxLines());
                }
            }
            long[] seenByThisThread = boxesSeen.get();
            if (boxes != seenByThisThread[0]) {
                // A peer wrote its box lines since this thread last slept here, so maybe since its waiter last looked.
                seenByThisThread[0] = boxes;
                return true;
            }
            Doorbell.sleep(m, seen, timeoutNs, waitScratch);
        } catch (IllegalStateException e) {
            return true;   // closed under us
        } finally {
            wakeRequested = false;
            try {
                Doorbell.leave(m);
            } catch (IllegalStateException ignored) {
                // closed under us
            }
        }
        return true;
    }

    /**
     * @return the sum of the words of a peer's box lines: its writes only ever raise their call numbers, so the sum
     *         moves whenever the peer published something a waiter here may wait for
     */
    private static long boxSum(MemorySegment lines) {
        long sum = 0;
        for (long at = 0; at < BoxPeer.BOX_BYTES; at += Layout.LINE) {
            sum += (long) LONG.getAcquire(lines, at);
        }
        return sum;
    }

    @Override
    public MemorySegment boxLines() {
        return own.memory.asSlice(Layout.H_BOX, BoxPeer.BOX_BYTES);
    }

    @Override
    public void wakeUp() {
        wakeRequested = true;
        try {
            Doorbell.ringIfAsleep(own.memory, wakeScratch);
        } catch (IllegalStateException ignored) {
            // closed
        }
    }

    /**
     * Tests: steps the receiving connections that the calling thread drives and that have receives posted, as the
     * receiving rank's own executor would (a descriptor send completes only when its receiver copies it).
     */
    void stepReceivesOfThisThread() {
        Thread me = Thread.currentThread();
        for (ShmConnection c : connections) {
            if (c instanceof ShmRecvConnection && c.driver == me && c.hasPending()) {
                c.progress();
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, this + " is closed");
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        wakeUp();   // a thread asleep on the doorbell looks again and finds the transport closed
        for (Object r : List.copyOf(resources)) {
            try {
                if (r instanceof Listener l) {
                    l.close();
                } else if (r instanceof PendingConnect p) {
                    p.cancel();
                }
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        for (ShmConnection c : connections) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        boolean heapReleased = heap.close();
        synchronized (this) {
            for (Peer p : List.copyOf(peers.values())) {
                p.close();
            }
            peers.clear();
        }
        if (heapReleased) {
            own.close();
        } else {
            LOG.warn("{}: registered memory still in use by another thread; its segment stays mapped", this);
        }
        try {
            arena.close();
        } catch (IllegalStateException e) {
            LOG.debug("{}: a system call still uses its scratch memory; left to the garbage collector", this);
        }
    }

    @Override
    public String toString() {
        return "shm transport of rank " + rank();
    }
}
