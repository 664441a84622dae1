package io.jccl.metaroce.fabric;

import io.jccl.metaroce.protocol.wire.HeaderFlyweight;
import io.jccl.metaroce.udp.UdpSockets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * One impairing UDP relay for any number of endpoints ("proxy mode"): every datagram between registered endpoints
 * crosses it, as if they shared one switch, so a test of N ranks can impair all of their traffic.
 *
 * <p><b>Registration.</b> An endpoint sends its path socket addresses to the control socket
 * ({@link RelayClient#register}); the relay opens one <em>front</em> socket per path for it and answers with their
 * addresses, which the endpoint publishes to its peers instead of its own. The same addresses get the same fronts
 * again (a retried request is harmless); malformed requests are ignored and counted.
 *
 * <p><b>Flows.</b> A datagram from source {@code S} reaching endpoint X's front {@code F[p]} belongs to the flow
 * {@code (F[p], S)}: on its first datagram the relay opens a socket {@code Q} for it, and forwards from {@code Q} to
 * X's path {@code p}. X answers {@code Q}, and the relay sends the answers back to {@code S} from {@code F[p]}, so
 * {@code S} sees its peer answer from where it sends. Each flow is its own 5-tuple: a sender that re-routes a path
 * (binds a new source port) starts a new flow. Where X's path sockets are is learned from what X sends to its
 * flows, so X re-routing is followed: a MetaRoCE datagram names its path in its header (X may answer every path to
 * one flow before it has heard from its peer on each), anything else counts for the flow's path. At most
 * {@code maxFlows} flows are open: when the table is full, flows idle for 100 ms are forgotten to make room, and if
 * none is, a datagram that would open one more is dropped and counted; any flow idle for
 * {@code flowIdleTimeoutNs} is forgotten. Flow sockets come from a pool opened ahead of need.
 *
 * <p><b>Impairments</b> apply to each flow, each way, with random streams seeded from the relay's seed and the flow's
 * identity: the front's endpoint (by registration order) and path, and the sender — a registered endpoint's path
 * (by registration order and path index) or, for any other source, the order in which such sources first reached
 * that front. A run with the same registrations reproduces its draws per flow. A black hole
 * ({@link #blackHolePath}) cuts, in its window, both ways of every flow on that path index that existed when the
 * window opened — a re-route (a new flow) escapes it, like a failed link under one ECMP hash; a flap
 * ({@link #flapPath}) cuts every flow on the path index, old and new, like a flapping port. A {@link RateLimit}
 * applies to each flow direction.
 *
 * <p>One thread ({@link #start()}) runs the relay, control included; the counters ({@link #counter}) and the outage
 * schedules can be used from any thread.
 */
public final class ImpairmentProxy extends OutageRelay {
    private static final int BATCH = 64;
    /**
     * Flow sockets kept open and registered ahead of need: opening one takes 70 µs to 1 ms, many times an endpoint's
     * retransmission floor, so a flow opened on its first datagram would delay it into spurious timeouts.
     */
    private static final int SPARE_SOCKETS = 64;
    private static final Object SPARE = new Object();
    /** When the flow table is full, flows idle this long are forgotten to make room, at most once a millisecond. */
    private static final long SQUEEZE_IDLE_NS = 100_000_000;
    private static final long SQUEEZE_INTERVAL_NS = 1_000_000;
    private static final int PATH_INDEXES = RelayControl.MAX_PATHS;

    private final ProxyConfig config;
    private final Forwarder forwarder;
    private final Selector selector;
    private final DatagramChannel control;
    private final InetSocketAddress controlAddress;
    private final ByteBuffer controlOut = ByteBuffer.allocate(RelayControl.MAX_LENGTH);
    private final HashMap<List<InetSocketAddress>, Registered> byAddresses = new HashMap<>();
    private final ArrayList<Registered> registered = new ArrayList<>();
    private final HashMap<InetSocketAddress, Long> registeredPaths = new HashMap<>();   // address -> index << 8 | path
    private final Consumer<SelectionKey> onReady = this::onReady;
    private final AtomicInteger dropControl = new AtomicInteger();
    private final ArrayDeque<SelectionKey> spare = new ArrayDeque<>();
    private int flowCount;
    private long nowNs;
    private long nextExpiryNs;
    private long lastSqueezeNs = Long.MIN_VALUE / 2;

    /** One registered endpoint: its path addresses as it registered them, as last learned, and its fronts. */
    private static final class Registered {
        final int index;
        final List<InetSocketAddress> addresses;
        final AtomicReferenceArray<InetSocketAddress> current;
        final Port[] fronts;
        final ArrayList<HashMap<InetSocketAddress, Flow>> flows = new ArrayList<>();
        final int[] otherSenders;   // per path: sources that are not registered paths, in arrival order

        Registered(int index, List<InetSocketAddress> addresses, Port[] fronts) {
            this.index = index;
            this.addresses = addresses;
            this.current = new AtomicReferenceArray<>(addresses.toArray(new InetSocketAddress[0]));
            this.fronts = fronts;
            this.otherSenders = new int[fronts.length];
            for (int p = 0; p < fronts.length; p++) {
                flows.add(new HashMap<>());
            }
        }
    }

    /** What a front socket's selection key carries. */
    private record Front(Registered endpoint, int path) {
    }

    /** One sender's flow through one front. */
    private static final class Flow {
        final Registered endpoint;
        final int path;
        final InetSocketAddress sender;
        final Port socket;
        final Lane forward;   // sender to endpoint, from socket
        final Lane reverse;   // endpoint to sender, from the front
        final long createdNs;
        long lastNs;

        Flow(Registered endpoint, int path, InetSocketAddress sender, Port socket, SplittableRandom random,
             RateLimit limit, long nowNs) {
            this.endpoint = endpoint;
            this.path = path;
            this.sender = sender;
            this.socket = socket;
            this.forward = new Lane(path, socket, endpoint.current, path, random.split(), limit);
            this.reverse = new Lane(path, endpoint.fronts[path],
                    new AtomicReferenceArray<>(new InetSocketAddress[] {sender}), 0, random.split(), limit);
            this.createdNs = nowNs;
            this.lastNs = nowNs;
        }
    }

    /**
     * Opens the control socket.
     *
     * @throws UncheckedIOException when it cannot (the port is taken, say), naming the address
     */
    public ImpairmentProxy(ProxyConfig config) {
        super(RelayCounters.ALL, new RelayThread("proxy", "jccl-relay-proxy"));
        this.config = Objects.requireNonNull(config, "config");
        this.forwarder = new Forwarder(counters, config.impairments(), config.baseDelayNs());
        InetSocketAddress wanted = new InetSocketAddress(config.bindAddress(), config.controlPort());
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("the proxy cannot open a selector", e);
        }
        DatagramChannel ch = null;
        try {
            ch = DatagramChannel.open();
            ch.configureBlocking(false);
            ch.bind(wanted);
            ch.register(selector, SelectionKey.OP_READ, this);
            this.controlAddress = (InetSocketAddress) ch.getLocalAddress();
        } catch (IOException e) {
            closeQuietly(ch);
            closeQuietly(selector);
            throw new UncheckedIOException("the proxy cannot open its control socket on "
                    + wanted.getAddress().getHostAddress() + ":" + config.controlPort() + ": " + e.getMessage(), e);
        }
        this.control = ch;
        while (spare.size() < SPARE_SOCKETS && addSpare()) {
            // fills the pool
        }
    }

    /** @return false when no socket could be opened */
    private boolean addSpare() {
        DatagramChannel ch = null;
        try {
            ch = UdpSockets.open(config.bindAddress(), ImpairmentRelay.SOCKET_BUFFER_BYTES);
            spare.add(ch.register(selector, SelectionKey.OP_READ, SPARE));
            return true;
        } catch (IOException e) {
            closeQuietly(ch);
            return false;
        }
    }

    /** @return where endpoints register ({@link RelayClient#register}) */
    public InetSocketAddress controlAddress() {
        return controlAddress;
    }

    /**
     * Black-holes, during {@code [fromNs, untilNs)} (by {@link System#nanoTime()}), both ways of every flow on path
     * index {@code path} that exists at {@code fromNs}; flows that start later (a re-route) pass.
     */
    @Override
    public void blackHolePath(int path, long fromNs, long untilNs) {
        checkBlackHole(path, fromNs, untilNs);
        addBlackHole(path, fromNs, untilNs);
    }

    /** Test hook: the next {@code n} well-formed registration requests are dropped unanswered (as a lossy network). */
    void dropNextControlRequests(int n) {
        dropControl.set(n);
    }

    @Override
    int pathIndexes() {
        return PATH_INDEXES;
    }

    @Override
    void beforeLoop() {
        nextExpiryNs = System.nanoTime() + config.flowIdleTimeoutNs() / 4;
    }

    @Override
    int poll() {
        nowNs = System.nanoTime();
        int work;
        try {
            work = selector.selectNow(onReady);
        } catch (IOException e) {
            work = 0;
        }
        work += forwarder.poll(System.nanoTime());
        if (nowNs >= nextExpiryNs) {
            expireIdleFlows(nowNs, config.flowIdleTimeoutNs());
            nextExpiryNs = nowNs + config.flowIdleTimeoutNs() / 4;
        }
        if (work == 0 && spare.size() < SPARE_SOCKETS) {
            addSpare();   // when idle: the pool refills off the datagrams' path
        }
        return work;
    }

    private void onReady(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        DatagramChannel ch = (DatagramChannel) key.channel();
        Object what = key.attachment();
        ByteBuffer io = forwarder.io;
        for (int n = 0; n < BATCH; n++) {
            InetSocketAddress source = forwarder.receive(ch);
            if (source == null) {
                return;
            }
            switch (what) {
                case Front f -> fromSender(f.endpoint(), f.path(), source, io.position());
                case Flow flow -> fromEndpoint(flow, source, io.position());
                default -> {
                    if (what == this) {
                        onControl(source, io.position());
                    }   // else a spare socket, whose address nobody was given: ignored
                }
            }
        }
    }

    private void fromSender(Registered x, int path, InetSocketAddress source, int length) {
        counters.increment(RelayCounters.RECEIVED);
        Flow flow = x.flows.get(path).get(source);
        if (flow == null) {
            flow = openFlow(x, path, source);
            if (flow == null) {
                return;
            }
        }
        flow.lastNs = nowNs;
        if (passes(flow)) {
            forwarder.forward(flow.forward, length, nowNs);
        }
    }

    private void fromEndpoint(Flow flow, InetSocketAddress source, int length) {
        counters.increment(RelayCounters.RECEIVED);
        learn(flow, source, length);
        flow.lastNs = nowNs;
        if (passes(flow)) {
            forwarder.forward(flow.reverse, length, nowNs);
        }
    }

    /**
     * Learns where the endpoint's path sockets are from a datagram it sent: a MetaRoCE datagram names its path in
     * its header, and an endpoint sends path {@code q} from its socket {@code q}, whatever flow it is sent to (before
     * it has heard from a peer on each path it answers them all to one flow). Anything else is taken to come from
     * the flow's path unless it comes from where another path is known to be.
     */
    private void learn(Flow flow, InetSocketAddress source, int length) {
        AtomicReferenceArray<InetSocketAddress> current = flow.endpoint.current;
        ByteBuffer io = forwarder.io;
        int path = flow.path;
        int magic = (io.get(HeaderFlyweight.MAGIC_FIELD_OFFSET) & 0xFF)
                | (io.get(HeaderFlyweight.MAGIC_FIELD_OFFSET + 1) & 0xFF) << 8;   // little-endian
        if (length >= HeaderFlyweight.HEADER_LENGTH && magic == HeaderFlyweight.MAGIC) {
            path = io.get(HeaderFlyweight.PATH_ID_FIELD_OFFSET) & 0xFF;
            if (path >= current.length()) {
                return;
            }
        } else if (knownOnAnotherPath(current, path, source)) {
            return;
        }
        if (!source.equals(current.get(path))) {
            current.set(path, source);   // the endpoint re-routed this path
        }
    }

    private static boolean knownOnAnotherPath(AtomicReferenceArray<InetSocketAddress> current, int path,
                                              InetSocketAddress source) {
        for (int q = 0; q < current.length(); q++) {
            if (q != path && source.equals(current.get(q))) {
                return true;
            }
        }
        return false;
    }

    /** @return false (counted) when a flap or a black hole cuts this flow now */
    private boolean passes(Flow flow) {
        if (flaps.isDown(flow.path, nowNs)) {
            counters.increment(RelayCounters.DROPPED_FLAP);
            return false;
        }
        if (anyBlackHoles() && blackHoled(flow.path, nowNs, flow.createdNs)) {
            counters.increment(RelayCounters.DROPPED_BLACK_HOLE);
            return false;
        }
        return true;
    }

    private Flow openFlow(Registered x, int path, InetSocketAddress source) {
        if (flowCount >= config.maxFlows() && nowNs - lastSqueezeNs > SQUEEZE_INTERVAL_NS) {
            lastSqueezeNs = nowNs;   // full: forget flows idle a little while (re-routes leave many behind)
            expireIdleFlows(nowNs, Math.min(SQUEEZE_IDLE_NS, config.flowIdleTimeoutNs()));
        }
        if (flowCount >= config.maxFlows()) {
            counters.increment(RelayCounters.DROPPED_FLOW_LIMIT);
            return null;
        }
        if (spare.isEmpty() && !addSpare()) {
            counters.increment(RelayCounters.DROPPED_FLOW_LIMIT);   // no socket for it: as good as a full table
            return null;
        }
        SelectionKey key = spare.poll();
        Long sender = registeredPaths.get(source);
        long senderKey = sender != null ? sender : (1L << 40) | x.otherSenders[path]++;
        SplittableRandom random = new SplittableRandom(mix(mix(mix(config.seed(), x.index), path), senderKey));
        Flow flow = new Flow(x, path, source, new Port((DatagramChannel) key.channel()), random, config.rateLimit(),
                nowNs);
        key.attach(flow);
        x.flows.get(path).put(source, flow);
        flowCount++;
        counters.increment(RelayCounters.FLOWS_OPENED);
        return flow;
    }

    /** @return a well-mixed combination (SplitMix64's finaliser over the sum) */
    private static long mix(long h, long v) {
        long z = h + 0x9E3779B97F4A7C15L * (v + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private void expireIdleFlows(long now, long idleNs) {
        for (Registered x : registered) {
            for (HashMap<InetSocketAddress, Flow> byPath : x.flows) {
                for (Iterator<Flow> it = byPath.values().iterator(); it.hasNext(); ) {
                    Flow flow = it.next();
                    if (now - flow.lastNs > idleNs) {
                        it.remove();
                        flow.forward.closed = true;
                        flow.reverse.closed = true;
                        flow.socket.close();   // cancels its key
                        flowCount--;
                        counters.increment(RelayCounters.FLOWS_EXPIRED);
                    }
                }
            }
        }
    }

    private void onControl(InetSocketAddress from, int length) {
        ByteBuffer in = forwarder.io;
        in.flip();
        int count = RelayControl.check(in, RelayControl.REGISTER);
        List<InetSocketAddress> addresses = count < 0 ? null : RelayControl.addresses(in, count);
        if (addresses == null) {
            counters.increment(RelayCounters.BAD_REQUESTS);
            return;
        }
        counters.increment(RelayCounters.REGISTER_REQUESTS);
        if (dropControl.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return;
        }
        long nonce = RelayControl.nonce(in);
        Registered x = byAddresses.get(addresses);
        int status = RelayControl.OK;
        if (x == null) {
            if (registered.size() >= config.maxEndpoints()) {
                status = RelayControl.REFUSED_LIMIT;
            } else {
                x = register(addresses);
                status = x == null ? RelayControl.REFUSED_IO : RelayControl.OK;
            }
        }
        if (status != RelayControl.OK) {
            counters.increment(RelayCounters.REGISTRATIONS_REFUSED);
        }
        RelayControl.encode(controlOut, RelayControl.REGISTERED, status, nonce,
                x == null ? List.of() : ImpairmentRelay.localAddresses(x.fronts));
        try {
            control.send(controlOut, from);
        } catch (IOException e) {
            counters.increment(RelayCounters.SEND_REFUSED);   // the client asks again
        }
    }

    private Registered register(List<InetSocketAddress> addresses) {
        Port[] fronts = new Port[addresses.size()];
        int index = registered.size();
        try {
            for (int p = 0; p < fronts.length; p++) {
                fronts[p] = new Port(UdpSockets.open(config.bindAddress(), ImpairmentRelay.SOCKET_BUFFER_BYTES));
            }
            Registered x = new Registered(index, List.copyOf(addresses), fronts);
            for (int p = 0; p < fronts.length; p++) {
                fronts[p].channel.register(selector, SelectionKey.OP_READ, new Front(x, p));
            }
            byAddresses.put(x.addresses, x);
            registered.add(x);
            for (int p = 0; p < fronts.length; p++) {
                registeredPaths.putIfAbsent(addresses.get(p), ((long) index << 8) | p);
            }
            counters.increment(RelayCounters.ENDPOINTS);
            return x;
        } catch (IOException e) {
            for (Port f : fronts) {
                if (f != null) {
                    f.close();
                }
            }
            return null;
        }
    }

    /** Stops the thread and closes every socket. */
    @Override
    public void close() {
        loopThread.stop();
        for (SelectionKey key : selector.keys()) {
            closeQuietly(key.channel());
        }
        closeQuietly(control);
        closeQuietly(selector);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing: nothing left to do
            }
        }
    }
}
