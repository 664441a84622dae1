package io.jccl.metaroce.net;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.metaroce.fabric.RelayClient;
import io.jccl.metaroce.offload.DataPathSpec;
import io.jccl.metaroce.offload.MetaRoceDataPath;
import io.jccl.metaroce.offload.OffloadDecision;
import io.jccl.metaroce.offload.OffloadSelector;
import io.jccl.metaroce.offload.OffloadSetting;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.path.SenderPath;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.udp.ReadinessPoll;
import io.jccl.metaroce.udp.SocketWaiter;
import io.jccl.metaroce.udp.UdpDriver;
import io.jccl.metaroce.udp.UdpDriverConfig;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.NetProperties;
import io.jccl.net.NetTransport;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.TransportContext;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;

/**
 * One rank's {@code metaroce} transport: MetaRoCE over UDP between processes.
 *
 * <p><b>Two endpoints.</b> The transport runs two MetaRoCE endpoints, each with its own UDP socket per path: one only
 * accepts (its listeners' handles name its sockets and its handshake key), the other only initiates. A sending end
 * lives on the initiating endpoint, its receiving end on the peer's accepting one, so two ranks that connect to each
 * other at the same moment never make crossing handshakes. All channels between the same two endpoints share one
 * MetaRoCE connection (its paths, congestion control and loss recovery); each channel has its own stream.
 *
 * <p><b>Protocol.</b> Receiver-driven, as RDMA transports are: a posted receive sends a CTS naming its memory; the
 * matching send WRITEs into it directly (out-of-order placement, no copy) and then sends a FIN. A message that fits
 * one payload travels inside its FIN, eagerly, and its receive sends no CTS (see {@link ControlMessages}).
 *
 * <p><b>Threads.</b> The protocol runs on one thread at a time, whichever takes a lock-free flag first: a caller
 * polling a request, an accept or a connect runs a duty cycle itself, and a driver thread (dedicated, or shared
 * by the JVM's transports) runs them while nobody polls; invoker mode has no driver thread. Callers hand requests
 * over through a bounded lock-free queue; each connection's requests live in fixed slots, so the data path
 * allocates nothing. The duty cycle is {@link DriverAgent}'s; {@link ConnectionSetup} opens the channels.
 */
public final class MetaRoceNetTransport implements NetTransport {
    /** The largest message one request carries. */
    static final long MAX_MESSAGE_BYTES = 1L << 40;
    static final Logger LOG = JcclLog.logger(EnumSet.of(Subsystem.NET, Subsystem.PROTO),
            MetaRoceNetTransport.class);
    private static final int COMMAND_QUEUE = 1 << 16;
    /** A thread that never runs: a segment it can access is not confined to any thread. */
    private static final Thread SOME_OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });
    /** The longest a registration with the relay may take (less when the connect timeout is shorter). */
    private static final Duration RELAY_TIMEOUT_CAP = Duration.ofSeconds(30);

    /** Every open transport of the JVM, for {@link #liveCounters()}. */
    private static final Set<MetaRoceNetTransport> LIVE = ConcurrentHashMap.newKeySet();
    private static final java.util.concurrent.atomic.AtomicInteger INSTANCES =
            new java.util.concurrent.atomic.AtomicInteger();
    /** This transport's number in the JVM, for metrics tags. */
    private final int instance = INSTANCES.incrementAndGet();

    private final TransportContext context;
    final MetaRoceOptions options;
    /** The clock of the protocol and of every deadline here: the system's, or a simulation's. */
    private final NanoClock clock;
    private final Arena arena = Arena.ofShared();
    private final byte[] acceptKey = new byte[MetaRoceHandle.KEY_BYTES];
    final Side accepting;
    final Side initiating;
    private final List<Side> sides;
    /** What listeners publish: the accepting endpoint's path sockets, or the relay's fronts for them. */
    private final List<InetSocketAddress> listenerPaths;
    final ManyToOneConcurrentArrayQueue<Object> commands = new ManyToOneConcurrentArrayQueue<>(COMMAND_QUEUE);
    private final DriverAgent agent = new DriverAgent(this);
    /** Held by the thread running the duty cycle: a caller's or the driver thread. */
    final AtomicBoolean driving = new AtomicBoolean();
    private final AtomicInteger nextListenerId = new AtomicInteger(1);
    private final NetProperties properties;
    private final AgentRunner dedicated;
    private volatile boolean closing;
    /** Closing: when the graceful close gives up ({@link #clock}). */
    private long closeDeadlineNs;
    /** Closing: the work the last close step did. */
    private int lastCloseWork;
    private volatile boolean closeFinished;
    /** When a caller last polled (ran a duty cycle, or found one running): the driver thread stays out of its way. */
    private volatile long lastCallerPollNs = Long.MIN_VALUE / 2;
    /** The thread running the duty cycle, once known (dedicated and shared modes). */
    volatile Thread driverThread;
    /** One readiness check per duty cycle over both UDP drivers' sockets; null for other data paths. */
    final ReadinessPoll readiness;
    final UdpDriver acceptUdp;
    final UdpDriver initiateUdp;
    /** Lets the dedicated driver thread sleep on the sockets; null when it cannot (channel I/O, other modes). */
    private final SocketWaiter waiter;
    /** What carries the connections: software UDP or an offload provider. */
    private final OffloadDecision offloadDecision;

    /** Listeners, connects in flight and HELLOs on accepted connections (driving thread). */
    final ConnectionSetup connections;
    /** Send channels whose oldest long send waits for its CTS (driving thread). */
    final RtsTimers rtsTimers = new RtsTimers();

    // Driving thread only.
    private final List<Channel> channels = new ArrayList<>();
    private final org.agrona.collections.IntHashSet lostConnections = new org.agrona.collections.IntHashSet();

    /**
     * @param context the rank's context
     * @throws NetException IO_ERROR when the sockets cannot be opened, or the relay does not register them
     * @throws IllegalArgumentException when a {@code JCCL_METAROCE_*} option is invalid, or
     *                                  {@code JCCL_METAROCE_OFFLOAD} names a provider that is missing or declines
     */
    MetaRoceNetTransport(TransportContext context) {
        this(context, OffloadSelector.installed());
    }

    /**
     * @param context the rank's context
     * @param offload decides what carries the connections ({@code JCCL_METAROCE_OFFLOAD}) and logs the decision
     * @throws NetException IO_ERROR when the data paths cannot be opened (an explicitly named provider's included),
     *                      or the relay does not register them
     * @throws IllegalArgumentException when a {@code JCCL_METAROCE_*} option is invalid, or
     *                                  {@code JCCL_METAROCE_OFFLOAD} names a provider that is missing or declines
     */
    MetaRoceNetTransport(TransportContext context, OffloadSelector offload) {
        this(context, offload, null, new SystemNanoClock(), new SecureRandom());
    }

    /**
     * Opens the data paths of a simulated transport: the whole-stack simulator gives each endpoint a node of its
     * simulated fabric instead of UDP sockets.
     */
    @FunctionalInterface
    public interface SimulatedDataPaths {
        /**
         * @param config    the endpoint's protocol settings (paths, payload, handshake key, timers)
         * @param accepting whether it is the transport's accepting endpoint (else its initiating one)
         * @return the data path, whose endpoint the simulator drives
         */
        MetaRoceDataPath open(EndpointConfig config, boolean accepting);
    }

    /**
     * A transport for deterministic simulation: invoker threading (whoever polls runs the duty cycle; no thread),
     * time from {@code clock}, randomness (keys, nonces) from {@code random}, data paths from {@code dataPaths}.
     * Close it with {@link #beginClose()} and {@link #pollClose()} from the simulating thread.
     *
     * @param context   the rank's context ({@code JCCL_METAROCE_*} options apply, threading excepted)
     * @param dataPaths opens the two endpoints' data paths
     * @param clock     the simulation's clock
     * @param random    the simulation's seeded random source
     * @return the transport
     */
    public static MetaRoceNetTransport simulated(TransportContext context, SimulatedDataPaths dataPaths,
                                                 NanoClock clock, RandomGenerator random) {
        return new MetaRoceNetTransport(context, null, Objects.requireNonNull(dataPaths, "dataPaths"),
                Objects.requireNonNull(clock, "clock"), Objects.requireNonNull(random, "random"));
    }

    private MetaRoceNetTransport(TransportContext context, OffloadSelector offload, SimulatedDataPaths simulated,
                                 NanoClock clock, RandomGenerator random) {
        this.context = context;
        this.clock = clock;
        MetaRoceOptions parsed = MetaRoceOptions.parse(context.options());
        this.options = simulated == null ? parsed : parsed.simulated();
        OffloadDecision decision = simulated == null ? offload.decide(context.options()) : null;
        random.nextBytes(acceptKey);
        byte[] initiateKey = new byte[MetaRoceHandle.KEY_BYTES];
        random.nextBytes(initiateKey);   // never accepts: its own key only turns strangers' handshakes away
        EndpointConfig acceptConfig = endpointConfig(acceptKey);
        EndpointConfig initiateConfig = endpointConfig(initiateKey);
        MetaRoceDataPath acceptDriver = null;
        MetaRoceDataPath initiateDriver = null;
        if (simulated != null) {
            acceptDriver = simulated.open(acceptConfig, true);
            initiateDriver = simulated.open(initiateConfig, false);
        } else if (decision.offloaded()) {
            try {
                acceptDriver = openOffloaded(decision, acceptConfig, random);
                initiateDriver = openOffloaded(decision, initiateConfig, random);
            } catch (RuntimeException e) {
                if (acceptDriver != null) {
                    acceptDriver.close();
                    acceptDriver = null;
                }
                String why = "offload provider " + decision.provider().name() + " could not open its data path on "
                        + decision.device().name() + ": " + e.getMessage();
                if (decision.setting().mode() == OffloadSetting.Mode.NAMED) {
                    throw new NetException(NetException.Reason.IO_ERROR, "metaroce rank " + context.self().rank()
                            + ": " + why + " (" + decision.setting() + ")", e);
                }
                LOG.warn("metaroce rank {}: {}; software UDP instead", context.self().rank(), why);
                decision = decision.fallBack(why);
            }
        }
        if (simulated == null && !decision.offloaded()) {
            UdpDriverConfig udp = new UdpDriverConfig(context.bindAddress(), options.socketBufferBytes(), 64)
                    .withPorts(options.ports()[0], options.ports()[1]);
            try {
                acceptDriver = new UdpDriver(acceptConfig, udp, random, new SystemNanoClock());
            } catch (UncheckedIOException e) {
                throw new NetException(NetException.Reason.IO_ERROR, e.getMessage(), e);
            }
            try {
                initiateDriver = new UdpDriver(initiateConfig, udp, random, new SystemNanoClock());
            } catch (UncheckedIOException e) {
                acceptDriver.close();
                throw new NetException(NetException.Reason.IO_ERROR, e.getMessage(), e);
            }
        }
        try {
            listenerPaths = options.relay() == null || simulated != null ? acceptDriver.localAddresses()
                    : registerWithRelay(acceptDriver.localAddresses());
        } catch (NetException e) {
            acceptDriver.close();
            initiateDriver.close();
            throw e;
        }
        if (simulated == null) {
            offload.log(decision);
        }
        this.offloadDecision = decision;
        accepting = new Side(acceptDriver);
        initiating = new Side(initiateDriver);
        if (acceptDriver instanceof UdpDriver a && initiateDriver instanceof UdpDriver i) {
            readiness = ReadinessPoll.open(List.of(a, i));
            acceptUdp = a;
            initiateUdp = i;
        } else {
            readiness = null;
            acceptUdp = null;
            initiateUdp = null;
        }
        sides = List.of(accepting, initiating);
        connections = new ConnectionSetup(this, context, options, clock, arena, accepting, initiating, channels);
        // Callers' polls drive the protocol at once, so they are told to keep polling (signalsCompletion false):
        // a caller parked until a driver thread completes its request waits for that thread to be scheduled, hop
        // after hop (measured: 4x slower at 1 MiB on 2 vCPUs). The driver thread covers the times nobody polls.
        // Speed and latency feed the tuner: about what one connection moves on loopback (1.5 GB/s) and what one
        // message costs end to end (CTS, WRITE, acknowledgement, FIN: ~200 µs); with 30 µs it chose chunks so small
        // that a 1 MiB all-reduce took 3-4x longer.
        properties = new NetProperties("metaroce", 12_000, 200, options.maxInflight(), MAX_MESSAGE_BYTES, false);
        // Sleeping on the sockets needs the UDP driver's sockets; an offloaded data path backs off instead.
        waiter = options.threading() == MetaRoceOptions.Threading.DEDICATED && options.idle() == MetaRoceOptions.Idle.WAIT
                && acceptDriver instanceof UdpDriver a && initiateDriver instanceof UdpDriver i
                ? SocketWaiter.open(List.of(a, i)) : null;
        dedicated = switch (options.threading()) {
            case DEDICATED -> DriverThreads.startDedicated(agent, waiter == null ? DriverThreads.idleStrategy(
                    options.idle() == MetaRoceOptions.Idle.WAIT ? MetaRoceOptions.Idle.BACKOFF : options.idle())
                    : new WaitingIdleStrategy(waiter, this::nextTimerNs, commands::isEmpty, this::callerPolling),
                    "jccl-metaroce-rank" + context.self().rank());
            case SHARED -> {
                DriverThreads.addShared(agent, options.idle());
                yield null;
            }
            case INVOKER -> null;
        };
        LIVE.add(this);
    }

    /** Opens one data path through the provider the decision chose; a null answer is a failure. */
    private MetaRoceDataPath openOffloaded(OffloadDecision decision, EndpointConfig config, RandomGenerator random) {
        MetaRoceDataPath path = decision.provider().open(new DataPathSpec(decision.device(), config,
                context.bindAddress(), random, new SystemNanoClock()));
        if (path == null) {
            throw new IllegalStateException("open returned no data path");
        }
        return path;
    }

    /**
     * @return the work every duty cycle did so far: a simulator that sees it grow after stepping a rank knows the
     *         rank's endpoints may have something new to transmit. Read it on the driving thread only.
     */
    public long cycleWork() {
        return agent.cycleWork();
    }

    /** @return what carries this transport's MetaRoCE connections, and the line that said so; null when simulated */
    public OffloadDecision offloadDecision() {
        return offloadDecision;
    }

    /**
     * A snapshot for diagnostics and tests: per open transport, both endpoints' protocol counters that are not zero
     * and the drivers' socket counters. Read from another thread while the driver runs, so only roughly consistent.
     *
     * @return one line per transport
     */
    public static String liveCounters() {
        StringBuilder out = new StringBuilder();
        for (MetaRoceNetTransport t : LIVE) {
            out.append("rank ").append(t.context.self().rank());
            TransportDiagnostics.describe(out, "accepting", t.accepting);
            TransportDiagnostics.describe(out, "initiating", t.initiating);
            out.append('\n');
        }
        return out.toString();
    }

    // ---- Read-only snapshots for monitoring (io.jccl.metaroce.metrics.MetaRoceMetrics) ----

    /** One logical path of one connection, as monitoring sees it (its sender half, read racily). */
    public record PathView(String endpoint, int connection, int path, long peer, SenderPath sender) {
    }

    /** @return the open transports of this JVM (a copy) */
    public static List<MetaRoceNetTransport> openTransports() {
        return List.copyOf(LIVE);
    }

    /** @return whether this transport is still open */
    public boolean isOpen() {
        return LIVE.contains(this);
    }

    /** @return this transport's number in the JVM (1, 2, ...), for tags */
    public int instance() {
        return instance;
    }

    /** @return the rank this transport serves */
    public int rank() {
        return context.self().rank();
    }

    /** @return the counter summed over both endpoints (accepting and initiating); racy, for monitoring */
    public long counter(Counter c) {
        return accepting.endpoint.counters().get(c) + initiating.endpoint.counters().get(c);
    }

    /** @return datagrams dropped for that reason, both endpoints; racy, for monitoring */
    public long drops(DropReason reason) {
        return accepting.endpoint.counters().drops(reason) + initiating.endpoint.counters().drops(reason);
    }

    /**
     * The paths of every connection so far, read from another thread while the driver runs: a connection made
     * during the call may be missed (the next call sees it). Allocates; for the monitoring thread only.
     */
    public List<PathView> paths() {
        List<PathView> out = new ArrayList<>();
        TransportDiagnostics.addPaths(out, "accepting", accepting.endpoint);
        TransportDiagnostics.addPaths(out, "initiating", initiating.endpoint);
        return out;
    }

    /** Driving thread: a MetaRoCE connection closed under a channel; says so once, with what the endpoint saw. */
    void onConnectionLost(Side side, int connectionId) {
        if (lostConnections.add(side == accepting ? connectionId : ~connectionId)) {
            StringBuilder why = new StringBuilder("metaroce rank ").append(context.self().rank())
                    .append(": the MetaRoCE connection ").append(connectionId).append(" of the ")
                    .append(side == accepting ? "accepting" : "initiating").append(" endpoint closed (");
            var c = side.endpoint.connection(connectionId);
            why.append(c == null ? "unknown" : c.closeCause()).append(");");
            TransportDiagnostics.describe(why, side == accepting ? "accepting" : "initiating", side);
            boolean peerClosed = c != null && c.closeCause().startsWith("the peer");
            if (peerClosed) {
                LOG.info("{}", why);
            } else {
                LOG.warn("{}", why);
            }
        }
    }

    /**
     * With {@code JCCL_METAROCE_RELAY} set: registers the accepting endpoint's path sockets with that proxy relay, so
     * that listeners publish its fronts and every datagram a peer sends this rank, and every answer, crosses it. The
     * initiating endpoint needs nothing: it sends to its peers' fronts and the proxy's flows carry the answers back.
     * The accepting endpoint sees a peer's handshake come from one of the proxy's flow sockets and takes that for the
     * peer's address, which is all it needs, since it never initiates.
     *
     * @return the fronts, in path order
     */
    private List<InetSocketAddress> registerWithRelay(List<InetSocketAddress> paths) {
        InetSocketAddress relay = options.relay();
        Duration timeout = context.connectTimeout().compareTo(RELAY_TIMEOUT_CAP) < 0 ? context.connectTimeout()
                : RELAY_TIMEOUT_CAP;
        try {
            return RelayClient.register(relay, paths, timeout);
        } catch (IOException | IllegalArgumentException e) {
            throw new NetException(NetException.Reason.IO_ERROR, "metaroce rank " + context.self().rank()
                    + " cannot register with the relay " + MetaRoceOptions.RELAY + "=" + relay.getHostString() + ":"
                    + relay.getPort() + ": " + e.getMessage(), e);
        }
    }

    /** @return the accepting endpoint's path socket addresses (what listeners publish without a relay), for tests */
    List<InetSocketAddress> acceptingAddresses() {
        return accepting.driver.localAddresses();
    }

    private EndpointConfig endpointConfig(byte[] key) {
        int payload = options.payloadBytes() != 0 ? options.payloadBytes()
                : PacketPayload.forMtu(context.bindAddress());
        return EndpointConfig.defaults(key).withPaths(options.paths()).withPayloadBytes(payload)
                .withRto(options.rtoFloorNs(), Math.max(options.rtoFloorNs(), 200_000_000L))
                .withConnectionDeadNs(options.deadNs());
    }

    @Override
    public NetProperties properties() {
        return properties;
    }

    @Override
    public Listener listen(ProgressSignal signal) {
        throwIfClosing();
        int id = nextListenerId.getAndIncrement();
        byte[] handle = new MetaRoceHandle(id, context.self().rank(), acceptKey, listenerPaths).encode();
        MetaRoceListener listener = new MetaRoceListener(this, id, handle, signal == null ? ProgressSignal.NONE : signal);
        submit((Runnable) () -> connections.addListener(id, listener));
        return listener;
    }

    @Override
    public PendingConnect connect(byte[] peerHandle, ProgressSignal signal) {
        throwIfClosing();
        MetaRoceHandle handle = MetaRoceHandle.decode(peerHandle);
        if (handle.paths().size() != options.paths()) {
            throw new NetException(NetException.Reason.PROTOCOL_ERROR, "the peer's listener uses "
                    + handle.paths().size() + " paths but this rank " + options.paths() + ": "
                    + MetaRoceOptions.PATHS + " must be the same on every rank");
        }
        ProgressSignal s = signal == null ? ProgressSignal.NONE : signal;
        MetaRocePendingConnect pending = new MetaRocePendingConnect(this, handle,
                clock.nanoTime() + context.connectTimeout().toNanos());
        submit((Runnable) () -> connections.startConnect(pending, s));
        return pending;
    }

    /** Invoker threading: one duty cycle on the calling thread (see {@link NetTransport#progress()}). */
    @Override
    public boolean progress() {
        if (drivenWithoutCallers()) {
            return false;
        }
        driveFromCaller();
        return true;
    }

    // ---- shared by the caller's threads ----

    /**
     * @return whether a driver thread moves the protocol when no caller polls (dedicated or shared threading): a
     *         message in flight is then delivered after its sender stops polling; in invoker mode only polls move it
     */
    boolean drivenWithoutCallers() {
        return options.threading() != MetaRoceOptions.Threading.INVOKER;
    }

    /**
     * For drivers that keep the timers themselves (the simulation; driving thread): the transport's own deadline
     * beside its endpoints', when a send that waits for its CTS may ask for it
     * ({@link MetaRoceSendConnection#RTS_DELAY_NS}).
     *
     * @return that time, {@link Long#MAX_VALUE} when no send waits so
     */
    public long channelDeadlineNs() {
        return rtsTimers.earliestDueNs();
    }

    /** @return the transport's clock ({@link #clock}) */
    long nanoTime() {
        return clock.nanoTime();
    }

    boolean isClosing() {
        return closing;
    }

    private void throwIfClosing() {
        if (closing) {
            throw new NetException(NetException.Reason.CLOSED, "the metaroce transport is closed");
        }
    }

    /** Hands a posted request or a command to the driving thread. */
    void submit(Object command) {
        throwIfClosing();
        if (!commands.offer(command)) {
            throw new NetException(NetException.Reason.IO_ERROR, "the metaroce driver's queue of " + COMMAND_QUEUE
                    + " commands is full");
        }
        if (waiter != null) {
            waiter.wake();   // a store and a check unless the driver is asleep on its sockets
        } else {
            Thread driver = driverThread;
            if (driver != null) {
                LockSupport.unpark(driver);   // cheap when it is not parked; a parked driver would add its pause
            }
        }
    }

    /**
     * Runs one duty cycle on the caller's thread unless another thread is running one. In every mode: a caller
     * waiting for a request moves the protocol at once instead of waiting for the driver thread to be scheduled (on
     * a host with few cores that is milliseconds per hop); the driver thread keeps things moving while nobody polls
     * (acknowledgements, retransmissions), and is all there is in invoker mode.
     */
    void driveFromCaller() {
        if (closing) {
            return;
        }
        lastCallerPollNs = clock.nanoTime();   // also when the driver thread holds the cycle: a caller is waiting
        if (driving.compareAndSet(false, true)) {
            try {
                agent.cycle();
            } finally {
                driving.set(false);
            }
        }
    }

    /**
     * @return whether a caller polled within {@link WaitingIdleStrategy#CALLER_ACTIVE_NS}: it moves the protocol as
     *         datagrams come, and a driver thread cycling beside it would only take the core from it
     */
    boolean callerPolling() {
        return clock.nanoTime() - lastCallerPollNs < WaitingIdleStrategy.CALLER_ACTIVE_NS;
    }

    /** @return whether the driving thread may touch the segment (it is not confined to one thread) */
    boolean canReach(MemorySegment segment) {
        return segment.isAccessibleBy(SOME_OTHER_THREAD);
    }

    // ---- driving thread ----

    /**
     * The driver thread's idle strategy asks this outside its duty cycle, so it takes the cycle first: reading the
     * timers updates them, and a caller may be running a cycle meanwhile (the endpoints are one thread's at a time).
     *
     * @return when either endpoint's next timer is due; {@link Long#MIN_VALUE} when something is due at once or
     *         another thread holds the duty cycle (the idle strategy then stands aside briefly and looks again)
     */
    private long nextTimerNs() {
        if (!driving.compareAndSet(false, true)) {
            return Long.MIN_VALUE;
        }
        try {
            return Math.min(Math.min(accepting.driver.nextTimeoutNs(), initiating.driver.nextTimeoutNs()),
                    rtsTimers.earliestDueNs());
        } finally {
            driving.set(false);
        }
    }

    /**
     * Closes the transport gracefully (what {@link #beginClose()} and {@link #pollClose()} do, on this thread): every
     * connection first delivers what this rank sent and lets its peers finish, for at most
     * {@code JCCL_CLOSE_LINGER_MS}; what was still not delivered then is reported, by peer, in a WARN line.
     */
    @Override
    public void close() {
        if (!beginClose()) {
            return;
        }
        long idleNs = 1_000;
        while (!pollClose()) {
            if (lastCloseWork > 0) {
                idleNs = 1_000;
            } else {
                LockSupport.parkNanos(idleNs);   // waiting on the network: the peers need this core more
                idleNs = Math.min(idleNs * 2, 200_000);
            }
        }
    }

    /**
     * Starts closing: stops the driver thread (this thread drives from now on), runs what callers handed over (the
     * channels' own closes among it), then asks every MetaRoCE connection to close gracefully (see
     * {@link io.jccl.metaroce.protocol.conn.Connection#shutdown}): nothing new is posted, what was posted goes on
     * until acknowledged, data from peers is still acknowledged, and each connection closes once its peer confirms.
     * Call {@link #pollClose()} until it returns true.
     *
     * @return false when the transport was closing already (another caller finishes it)
     */
    public boolean beginClose() {
        synchronized (this) {
            if (closing) {
                return false;
            }
            closing = true;
        }
        switch (options.threading()) {
            case DEDICATED -> dedicated.close();
            case SHARED -> DriverThreads.removeShared(agent);
            case INVOKER -> { }
        }
        while (!driving.compareAndSet(false, true)) {
            Thread.onSpinWait();   // a caller's cycle in progress; none starts once closing is set
        }
        if (options.printCounters()) {
            StringBuilder line = new StringBuilder("metaroce rank ").append(context.self().rank()).append(" counters");
            TransportDiagnostics.describe(line, "accepting", accepting);
            TransportDiagnostics.describe(line, "initiating", initiating);
            System.err.println(line);
        }
        agent.cycle();
        long nowNs = clock.nanoTime();
        for (Side side : sides) {
            for (int i = 0; i < side.endpoint.connectionCount(); i++) {
                side.endpoint.shutdown(nowNs, side.endpoint.connectionIdAt(i));
            }
        }
        closeDeadlineNs = nowNs + options.closeLingerNs();
        return true;
    }

    /**
     * Simulations: closes at once, without waiting for anything (what a killed process's kernel does with its
     * sockets): connections still open close abortively, and every resource is released. Idempotent.
     */
    public void closeNow() {
        if (closeFinished) {
            return;
        }
        beginClose();
        finishClose(clock.nanoTime());
    }

    /**
     * One step of closing (after {@link #beginClose()}, on the same thread): runs a duty cycle, and once every
     * connection closed gracefully or {@code JCCL_CLOSE_LINGER_MS} passed, closes what is left at once, fails what is
     * pending, and releases the sockets and memory.
     *
     * @return whether the transport is closed
     */
    public boolean pollClose() {
        if (closeFinished) {
            return true;
        }
        lastCloseWork = agent.cycle();
        long nowNs = clock.nanoTime();
        if (!allConnectionsClosed() && nowNs - closeDeadlineNs < 0) {
            return false;
        }
        finishClose(nowNs);
        return true;
    }

    private boolean allConnectionsClosed() {
        for (Side side : sides) {
            for (int i = 0; i < side.endpoint.connectionCount(); i++) {
                var c = side.endpoint.connection(side.endpoint.connectionIdAt(i));
                if (c != null && c.state() != io.jccl.metaroce.protocol.conn.Connection.State.CLOSED) {
                    return false;
                }
            }
        }
        return true;
    }

    private void finishClose(long nowNs) {
        for (Side side : sides) {
            for (int i = 0; i < side.endpoint.connectionCount(); i++) {
                int id = side.endpoint.connectionIdAt(i);
                var c = side.endpoint.connection(id);
                if (c != null && c.state() != io.jccl.metaroce.protocol.conn.Connection.State.CLOSED) {
                    TransportDiagnostics.reportUnfinished(context.self().rank(), options.closeLingerNs(), side, id,
                            c);
                }
            }
        }
        // This thread drives: fail what callers handed over too late, then close every MetaRoCE connection still
        // open, which completes their work (CLOSED here) and tells the peers.
        commands.drain(command -> {
            if (command instanceof MetaRoceRequest r) {
                r.fail(new NetException(NetException.Reason.CLOSED, "the metaroce transport was closed"));
            }
        });
        for (Side side : sides) {
            for (int i = 0; i < side.endpoint.connectionCount(); i++) {
                side.endpoint.close(nowNs, side.endpoint.connectionIdAt(i));
            }
            side.pollCompletions();
        }
        for (Channel channel : channels) {
            channel.broken(NetException.Reason.CLOSED, "the metaroce transport was closed");
        }
        connections.failPendingConnects("the metaroce transport was closed");
        for (int i = 0; i < 3; i++) {   // let the CLOSE packets out
            accepting.driver.doWork();
            initiating.driver.doWork();
        }
        accepting.driver.close();
        initiating.driver.close();
        if (readiness != null) {
            readiness.close();
        }
        if (waiter != null) {
            waiter.close();
        }
        arena.close();
        LIVE.remove(this);
        closeFinished = true;
    }

    /** @return why a MetaRoCE connection closed, for messages ("open" while it is open) */
    String closeCause(Side side, int connectionId) {
        var c = side.endpoint.connection(connectionId);
        return c == null ? "unknown connection" : c.closeCause();
    }
}
