package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import org.agrona.collections.Long2LongHashMap;

import java.util.Arrays;

/**
 * The simulated network between the {@link Simulator}'s nodes: queues, routes, impairments and failures (the
 * topology is described in {@link FabricConfig}).
 *
 * <h2>Paths and routes</h2>
 * A node sends each datagram on a path index (the sending endpoint's socket, i.e. its UDP source port). For each
 * ordered node pair (S, D) the fabric has {@link FabricConfig#routesPerPair()} routes, each its own queue with its own
 * impairments and black-hole schedule, standing for one ECMP choice through the switches. Path {@code p} of (S, D)
 * starts on route {@code p % routesPerPair}, so with enough routes every path has a route of its own. When S's
 * engine calls {@link io.jccl.metaroce.protocol.TransmitSink#reroute reroute(D, p, generation)} (it took a new source
 * port), the path moves to route {@code hash(seed, S, D, p, generation) % routesPerPair}, or to the next route when
 * that is the one it is on: a reroute always leaves the current route, as a new source port re-hashes ECMP, and may
 * land on a route shared with another path or on another bad one (then the engine reroutes again). Packets already
 * in flight keep the route they were sent on. The reverse direction (D to S) has routes of its own, moved only by D's
 * reroutes.
 *
 * <h2>Failures</h2>
 * {@link #blackHole} makes a route drop everything during a time window (a silent link failure); {@link #allPathsDown}
 * makes every route of a pair drop everything during a window (a node or plane failure). Both are checked when a
 * packet reaches the route.
 */
public final class Fabric {
    private final FabricConfig config;
    private final long seed;
    private final EventQueue queue;
    final PacketPool pool;
    private final long[] counters = new long[FabricCounter.values().length];
    private final int wireOverhead;

    private int nodeCount;
    private long[] nodeIds = new long[0];
    private final Long2LongHashMap indexOfId = new Long2LongHashMap(-1);
    private Link[] sourcePorts = new Link[0];
    private Link[] destinationPorts = new Link[0];
    /** Route state per ordered pair, [src * pairStride + dst], created on first use. */
    private Pair[] pairs = new Pair[0];
    private int pairStride;
    private Link[] links = new Link[16];
    private int linkCount;
    private DeliveryObserver observer;
    private RerouteObserver rerouteObserver;

    /** Per ordered node pair: its routes and which route each path is on. */
    private static final class Pair {
        final int src;
        final int dst;
        final int[] routeLink;
        final int[] routeOfPath = new int[PATH_LIMIT];
        /** When every route of the pair is down. */
        final TimeWindows down = new TimeWindows();

        Pair(int src, int dst, int routes) {
            this.src = src;
            this.dst = dst;
            routeLink = new int[routes];
            Arrays.fill(routeLink, -1);
            for (int p = 0; p < PATH_LIMIT; p++) {
                routeOfPath[p] = p % routes;
            }
        }
    }

    /** Path indexes a node may send on: 0 to 63 (MetaRoCE's most paths per connection). */
    public static final int PATH_LIMIT = 64;

    Fabric(FabricConfig config, long seed, EventQueue queue) {
        this.config = config;
        this.seed = seed;
        this.queue = queue;
        this.wireOverhead = config.wireOverheadBytes();
        this.pool = new PacketPool(config.maxDatagramBytes(), 256);
    }

    /** @return the configuration */
    public FabricConfig config() {
        return config;
    }

    /** @return the value of a counter */
    public long count(FabricCounter c) {
        return counters[c.ordinal()];
    }

    /** @return datagrams dropped by the fabric, for any reason */
    public long totalDrops() {
        return count(FabricCounter.DROPPED_QUEUE_FULL) + count(FabricCounter.DROPPED_RANDOM_LOSS)
                + count(FabricCounter.DROPPED_BURST_LOSS) + count(FabricCounter.DROPPED_BLACK_HOLE)
                + count(FabricCounter.DROPPED_ALL_PATHS_DOWN) + count(FabricCounter.DROPPED_UNKNOWN_DESTINATION);
    }

    /** @return packets in flight (queued, propagating or held back) */
    public int packetsInFlight() {
        return pool.inUse();
    }

    /** @return packet slots created so far (the pool's high-water mark) */
    public int packetSlots() {
        return pool.capacity();
    }

    /** Sets the observer of deliveries (null for none). */
    public void observeDeliveries(DeliveryObserver o) {
        this.observer = o;
    }

    /** Sets the observer of reroutes (null for none). */
    public void observeReroutes(RerouteObserver o) {
        this.rerouteObserver = o;
    }

    /**
     * Sets what one route of an ordered pair does to packets, instead of the configured default.
     *
     * @param source      sending node
     * @param destination receiving node
     * @param route       route index, 0 to routesPerPair-1
     * @param impairments what it does
     */
    public void impair(long source, long destination, int route, Impairments impairments) {
        Link l = routeLink(pair(source, destination), checkRoute(route));
        l.impairments = impairments.isNone() ? null : impairments;
    }

    /**
     * Sets what the route that path {@code path} of an ordered pair is on now (route {@code path} before any
     * reroute) does to packets; a reroute leaves it.
     */
    public void impairPath(long source, long destination, int path, Impairments impairments) {
        impair(source, destination, routeOf(source, destination, path), impairments);
    }

    /** Sets the impairments of every route of an ordered pair. */
    public void impairPair(long source, long destination, Impairments impairments) {
        for (int r = 0; r < config.routesPerPair(); r++) {
            impair(source, destination, r, impairments);
        }
    }

    /**
     * Makes one route of an ordered pair drop every packet that reaches it during {@code [fromNs, untilNs)}.
     *
     * @param source      sending node
     * @param destination receiving node
     * @param route       the route (path p starts on route p)
     * @param fromNs      start (inclusive)
     * @param untilNs     end (exclusive)
     */
    public void blackHole(long source, long destination, int route, long fromNs, long untilNs) {
        checkWindow(fromNs, untilNs);
        routeLink(pair(source, destination), checkRoute(route)).blackHoles.add(fromNs, untilNs);
    }

    /**
     * Black-holes the route path {@code path} of an ordered pair is on now (route {@code path} before any reroute)
     * during {@code [fromNs, untilNs)}: the path's packets vanish until it is rerouted, as when the link under one
     * ECMP choice fails silently.
     */
    public void blackHolePath(long source, long destination, int path, long fromNs, long untilNs) {
        blackHole(source, destination, routeOf(source, destination, path), fromNs, untilNs);
    }

    /**
     * Makes every route between two nodes, both ways, drop every packet during {@code [fromNs, untilNs)}.
     */
    public void allPathsDown(long a, long b, long fromNs, long untilNs) {
        checkWindow(fromNs, untilNs);
        for (Pair p : new Pair[] {pair(a, b), pair(b, a)}) {
            p.down.add(fromNs, untilNs);
        }
    }

    /**
     * @return the route path {@code path} of the ordered pair is on now
     */
    public int routeOf(long source, long destination, int path) {
        return pair(source, destination).routeOfPath[checkPath(path)];
    }

    /** @return bytes queued now in a route's queue */
    public long routeBacklogBytes(long source, long destination, int route, long nowNs) {
        return routeLink(pair(source, destination), checkRoute(route)).backlogBytes(nowNs);
    }

    /** @return bytes queued now at a node's destination port */
    public long destinationBacklogBytes(long node, long nowNs) {
        return destinationPorts[index(node)].backlogBytes(nowNs);
    }

    /** @return packets that reached a route, and how many it dropped (queue full, loss, black hole) */
    public long[] routePacketCounts(long source, long destination, int route) {
        Link l = routeLink(pair(source, destination), checkRoute(route));
        return new long[] {l.packetsIn, l.packetsDropped};
    }

    // ---------------------------------------------------------------------------------------------------------
    // Nodes

    int addNode(long id) {
        if (indexOfId.containsKey(id)) {
            throw new IllegalArgumentException("node " + id + " already exists");
        }
        int idx = nodeCount++;
        nodeIds = Arrays.copyOf(nodeIds, nodeCount);
        nodeIds[idx] = id;
        indexOfId.put(id, idx);
        sourcePorts = Arrays.copyOf(sourcePorts, nodeCount);
        destinationPorts = Arrays.copyOf(destinationPorts, nodeCount);
        sourcePorts[idx] = newLink("source port of node " + id, config.sourcePort(), mix(id, 1, 0, 0), null);
        destinationPorts[idx] = newLink("destination port of node " + id, config.destinationPort(),
                mix(id, 2, 0, 0), null);
        if (nodeCount > pairStride) {
            int stride = Math.max(8, pairStride * 2);
            Pair[] grown = new Pair[stride * stride];
            for (int s = 0; s < pairStride; s++) {
                System.arraycopy(pairs, s * pairStride, grown, s * stride, pairStride);
            }
            pairs = grown;
            pairStride = stride;
        }
        return idx;
    }

    /** @return a node's index, or -1 */
    int indexOrMinus(long id) {
        return (int) indexOfId.get(id);
    }

    private int index(long id) {
        int i = indexOrMinus(id);
        if (i < 0) {
            throw new IllegalArgumentException("no node " + id);
        }
        return i;
    }

    long nodeId(int index) {
        return nodeIds[index];
    }

    private Pair pair(long source, long destination) {
        return pair(index(source), index(destination));
    }

    private Pair pair(int src, int dst) {
        int k = src * pairStride + dst;
        Pair p = pairs[k];
        if (p == null) {
            p = new Pair(src, dst, config.routesPerPair());
            pairs[k] = p;
        }
        return p;
    }

    private int checkRoute(int route) {
        if (route < 0 || route >= config.routesPerPair()) {
            throw new IllegalArgumentException("route " + route + " is not in 0-" + (config.routesPerPair() - 1));
        }
        return route;
    }

    private static int checkPath(int path) {
        if (path < 0 || path >= PATH_LIMIT) {
            throw new IllegalArgumentException("path " + path + " is not in 0-" + (PATH_LIMIT - 1));
        }
        return path;
    }

    private static void checkWindow(long fromNs, long untilNs) {
        if (fromNs < 0 || untilNs < fromNs) {
            throw new IllegalArgumentException("window [" + fromNs + ", " + untilNs + ") is not a time window");
        }
    }

    private Link routeLink(Pair p, int route) {
        int id = p.routeLink[route];
        if (id < 0) {
            long s = nodeIds[p.src];
            long d = nodeIds[p.dst];
            Link l = newLink("route " + route + " from node " + s + " to node " + d, config.route(),
                    mix(s, 3, d, route), config.impairments().isNone() ? null : config.impairments());
            p.routeLink[route] = l.id;
            return l;
        }
        return links[id];
    }

    private Link newLink(String name, LinkConfig lc, long linkSeed, Impairments imp) {
        if (linkCount == links.length) {
            links = Arrays.copyOf(links, linkCount * 2);
        }
        Link l = new Link(linkCount, name, lc, linkSeed);
        l.impairments = imp;
        links[linkCount++] = l;
        return l;
    }

    /** A seed for one link, from the fabric seed and the link's identity (not from creation order). */
    private long mix(long a, long kind, long b, long c) {
        long h = seed;
        h = splitmix(h ^ a);
        h = splitmix(h ^ kind);
        h = splitmix(h ^ b);
        return splitmix(h ^ c);
    }

    static long splitmix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    // ---------------------------------------------------------------------------------------------------------
    // The packet's journey: transmit -> source port -> route -> destination port -> deliver.

    void transmit(int srcIdx, long destination, int path, DirectBuffer buffer, int offset, int length, long nowNs) {
        counters[FabricCounter.TRANSMITTED.ordinal()]++;
        if (length > pool.slotBytes() || length < 0) {
            throw new IllegalStateException("node " + nodeIds[srcIdx] + " sent a datagram of " + length
                    + " bytes; the fabric carries at most maxDatagramBytes=" + pool.slotBytes());
        }
        if (path < 0 || path >= PATH_LIMIT) {
            throw new IllegalStateException("node " + nodeIds[srcIdx] + " sent on path " + path + ", not in 0-"
                    + (PATH_LIMIT - 1));
        }
        int dstIdx = indexOrMinus(destination);
        if (dstIdx < 0) {
            counters[FabricCounter.DROPPED_UNKNOWN_DESTINATION.ordinal()]++;
            return;
        }
        Pair p = pair(srcIdx, dstIdx);
        Link route = routeLink(p, p.routeOfPath[path]);
        Link port = sourcePorts[srcIdx];
        long depart = port.enqueue(nowNs, length + wireOverhead);
        if (depart == Link.DROPPED) {
            counters[FabricCounter.DROPPED_QUEUE_FULL.ordinal()]++;
            return;
        }
        PacketPool pl = pool;
        int h = pl.allocate();
        pl.copyIn(h, buffer, offset, length);
        pl.sourceNode[h] = srcIdx;
        pl.destinationNode[h] = dstIdx;
        pl.pathIndex[h] = path;
        pl.routeLink[h] = route.id;
        if ((depart & Link.MARK) != 0) {
            pl.flags[h] = PacketPool.FLAG_ECN;
        }
        queue.push((depart & ~Link.MARK) + port.delayNs, Simulator.event(Simulator.K_ROUTE, h, 0));
    }

    void reroute(int srcIdx, long destination, int path, int generation, long nowNs) {
        int dstIdx = indexOrMinus(destination);
        if (dstIdx < 0 || path < 0 || path >= PATH_LIMIT) {
            return;
        }
        Pair p = pair(srcIdx, dstIdx);
        int routes = config.routesPerPair();
        int current = p.routeOfPath[path];
        long h = mix(nodeIds[srcIdx], 4, destination, ((long) path << 32) | (generation & 0xFFFFFFFFL));
        int next = (int) Long.remainderUnsigned(h, routes);
        if (next == current && routes > 1) {
            next = (next + 1) % routes;
        }
        p.routeOfPath[path] = next;
        counters[FabricCounter.REROUTES.ordinal()]++;
        if (rerouteObserver != null) {
            rerouteObserver.rerouted(nowNs, nodeIds[srcIdx], destination, path, generation, current, next);
        }
    }

    /** A packet reaches its route: failures, loss, the queue, then corruption, duplication, jitter, reordering. */
    void arriveAtRoute(int h, long nowNs) {
        PacketPool pl = pool;
        Link l = links[pl.routeLink[h]];
        Pair p = pairs[pl.sourceNode[h] * pairStride + pl.destinationNode[h]];
        if (p.down.contains(nowNs)) {
            drop(h, l, FabricCounter.DROPPED_ALL_PATHS_DOWN);
            return;
        }
        if (l.blackHoles.contains(nowNs)) {
            drop(h, l, FabricCounter.DROPPED_BLACK_HOLE);
            return;
        }
        Impairments imp = l.impairments;
        if (imp != null) {
            if (imp.lossRate() > 0 && l.random.nextDouble() < imp.lossRate()) {
                drop(h, l, FabricCounter.DROPPED_RANDOM_LOSS);
                return;
            }
            if (imp.burstGoodToBad() > 0) {
                if (l.burstBad) {
                    if (l.random.nextDouble() < imp.burstBadToGood()) {
                        l.burstBad = false;
                    }
                } else if (l.random.nextDouble() < imp.burstGoodToBad()) {
                    l.burstBad = true;
                }
                if (l.burstBad && l.random.nextDouble() < imp.burstLossInBad()) {
                    drop(h, l, FabricCounter.DROPPED_BURST_LOSS);
                    return;
                }
            }
        }
        long depart = enqueue(l, h, nowNs);
        if (depart == Link.DROPPED) {
            return;
        }
        long arrival = depart + l.delayNs;
        if (imp == null) {
            queue.push(arrival, Simulator.event(Simulator.K_PORT, h, 0));
            return;
        }
        if (imp.corruptRate() > 0 && l.random.nextDouble() < imp.corruptRate()) {
            int bit = l.random.nextInt(pl.length[h] * 8);
            UnsafeBuffer b = pl.buffer(h);
            int at = pl.offset(h) + (bit >>> 3);
            b.putByte(at, (byte) (b.getByte(at) ^ (1 << (bit & 7))));
            counters[FabricCounter.CORRUPTED.ordinal()]++;
        }
        if (imp.jitterNs() > 0) {
            arrival += l.random.nextLong(imp.jitterNs() + 1);
        }
        int duplicate = -1;
        if (imp.duplicateRate() > 0 && l.random.nextDouble() < imp.duplicateRate()) {
            duplicate = pl.duplicate(h);
            counters[FabricCounter.DUPLICATED.ordinal()]++;
        }
        if (imp.reorderRate() > 0 && l.random.nextDouble() < imp.reorderRate()) {
            counters[FabricCounter.REORDERED.ordinal()]++;
            int ticket = l.hold(h, l.passed + imp.reorderDepthPackets());
            queue.push(nowNs + imp.reorderMaxHoldNs(), Simulator.event(Simulator.K_FLUSH, l.id, ticket));
        } else {
            passOn(l, h, arrival);
        }
        if (duplicate >= 0) {
            passOn(l, duplicate, arrival);
        }
    }

    /** Sends a packet on from its route and releases held packets that enough later ones have now overtaken. */
    private void passOn(Link l, int h, long arrival) {
        queue.push(arrival, Simulator.event(Simulator.K_PORT, h, 0));
        long passed = ++l.passed;
        while (l.heldCount > 0 && l.heldHeadReleaseAt() <= passed) {
            queue.push(arrival, Simulator.event(Simulator.K_PORT, l.heldHeadHandle(), 0));
            l.dropHeldHead();
        }
    }

    /** The hold timer of a held packet fired: release it and everything held before it. */
    void flushHeld(int linkId, int ticket, long nowNs) {
        Link l = links[linkId];
        while (l.heldCount > 0 && ((ticket - l.heldHeadTicket()) & Simulator.ARG_MASK) < (Simulator.ARG_MASK >>> 1)) {
            queue.push(nowNs + l.delayNs, Simulator.event(Simulator.K_PORT, l.heldHeadHandle(), 0));
            l.dropHeldHead();
        }
    }

    /** A packet reaches its destination port. */
    void arriveAtPort(int h, long nowNs) {
        PacketPool pl = pool;
        Link port = destinationPorts[pl.destinationNode[h]];
        long depart = enqueue(port, h, nowNs);
        if (depart != Link.DROPPED) {
            queue.push(depart + port.delayNs, Simulator.event(Simulator.K_DELIVER, h, 0));
        }
    }

    /**
     * Queues packet {@code h} at a switch port: marks it when the queue is past the ECN threshold, drops (and
     * releases) it when the queue is full.
     *
     * @return when it leaves the port, or {@link Link#DROPPED}
     */
    private long enqueue(Link l, int h, long nowNs) {
        PacketPool pl = pool;
        long depart = l.enqueue(nowNs, pl.length[h] + wireOverhead);
        if (depart == Link.DROPPED) {
            counters[FabricCounter.DROPPED_QUEUE_FULL.ordinal()]++;
            pl.release(h);
            return Link.DROPPED;
        }
        if ((depart & Link.MARK) != 0) {
            pl.flags[h] |= PacketPool.FLAG_ECN;
        }
        return depart & ~Link.MARK;
    }

    /** Counts a delivery and tells the observer; the simulator then hands the packet to its node. */
    void countDelivery(int h, long nowNs) {
        PacketPool pl = pool;
        counters[FabricCounter.DELIVERED.ordinal()]++;
        counters[FabricCounter.BYTES_DELIVERED.ordinal()] += pl.length[h];
        if ((pl.flags[h] & PacketPool.FLAG_ECN) != 0) {
            counters[FabricCounter.ECN_MARKED.ordinal()]++;
        }
        if (observer != null) {
            observer.delivered(nowNs, nodeIds[pl.sourceNode[h]], nodeIds[pl.destinationNode[h]], pl.pathIndex[h],
                    pl.length[h]);
        }
    }

    private void drop(int h, Link l, FabricCounter why) {
        l.packetsIn++;
        l.packetsDropped++;
        counters[why.ordinal()]++;
        pool.release(h);
    }
}
