package io.jccl.metaroce.fabric;

import io.jccl.metaroce.impair.Impairments;
import io.jccl.metaroce.udp.UdpSockets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A UDP relay between two endpoints that impairs what crosses it, for tests and benchmarks on real sockets. Each
 * endpoint is told the relay's addresses instead of its peer's ({@link #addressesForA()} to A, {@link #addressesForB()}
 * to B); path {@code p}'s datagrams reach the relay's socket {@code p} on that side and leave from the relay's socket
 * {@code p} on the other. Where each endpoint's path sends from is learned from its datagrams, so an endpoint that
 * re-routes a path (binds a new source port) is followed.
 *
 * <p>Impairments ({@link Impairments}) apply per path and direction, each with its own seeded random stream: random
 * and Gilbert–Elliott loss, corruption (one flipped bit), duplication, jitter, and reordering — on real sockets a
 * reordered datagram is held back {@code reorderMaxHoldNs} and overtaken by whatever comes meanwhile. A path can be
 * black-holed for a time window: the hole follows A's source port on that path at the time it is set, both ways, as
 * a failed link under one ECMP choice would, so a re-route (a new source port) escapes it.
 *
 * <p>A path can also flap ({@link #flapPath}: down, up, repeating, whatever its source port), and each path and
 * direction can be a rate-limited queue that marks ECN ({@link RateLimit}). For many endpoints through one relay see
 * {@link ImpairmentProxy}; both share their forwarding ({@code Forwarder}).
 *
 * <p>One thread ({@link #start()}) runs the relay; {@link #counters()} can be read from any thread.
 */
public final class ImpairmentRelay extends OutageRelay {
    /** Counter indexes: the same as {@link RelayCounters}'. */
    public static final int RECEIVED = RelayCounters.RECEIVED;
    /** Datagrams sent on. */
    public static final int FORWARDED = RelayCounters.FORWARDED;
    /** Dropped by random or bursty loss. */
    public static final int DROPPED_LOSS = RelayCounters.DROPPED_LOSS;
    /** Dropped by a black hole. */
    public static final int DROPPED_BLACK_HOLE = RelayCounters.DROPPED_BLACK_HOLE;
    /** Sent with one bit flipped. */
    public static final int CORRUPTED = RelayCounters.CORRUPTED;
    /** Sent twice. */
    public static final int DUPLICATED = RelayCounters.DUPLICATED;
    /** Held back. */
    public static final int REORDERED = RelayCounters.REORDERED;
    /** The kernel refused to send (buffer full). */
    public static final int SEND_REFUSED = RelayCounters.SEND_REFUSED;
    static final int SOCKET_BUFFER_BYTES = 8 << 20;

    private final int paths;
    private final Port[] facingA;
    private final Port[] facingB;
    private final AtomicReferenceArray<InetSocketAddress> addressOfA;   // learned on the relay's thread
    private final AtomicReferenceArray<InetSocketAddress> addressOfB;
    private final Lane[] toB;
    private final Lane[] toA;
    private final Forwarder forwarder;

    /**
     * Opens the relay's sockets (two per path), with no rate limit.
     *
     * @param bindAddress  where the relay's sockets bind
     * @param a            endpoint A's path socket addresses, in path order
     * @param b            endpoint B's, the same number
     * @param impairments  what every path suffers, both ways
     * @param baseDelayNs  delay added to every datagram (0: forward at once)
     * @param seed         seed of every random stream
     */
    public ImpairmentRelay(InetAddress bindAddress, List<InetSocketAddress> a, List<InetSocketAddress> b,
                           Impairments impairments, long baseDelayNs, long seed) {
        this(bindAddress, a, b, impairments, baseDelayNs, RateLimit.NONE, seed);
    }

    /**
     * Opens the relay's sockets (two per path).
     *
     * @param bindAddress  where the relay's sockets bind
     * @param a            endpoint A's path socket addresses, in path order
     * @param b            endpoint B's, the same number
     * @param impairments  what every path suffers, both ways
     * @param baseDelayNs  delay added to every datagram (0: forward at once)
     * @param rateLimit    each path's bottleneck, each way, or {@link RateLimit#NONE}
     * @param seed         seed of every random stream
     */
    public ImpairmentRelay(InetAddress bindAddress, List<InetSocketAddress> a, List<InetSocketAddress> b,
                           Impairments impairments, long baseDelayNs, RateLimit rateLimit, long seed) {
        super(RelayCounters.DATA_COUNTERS, new RelayThread("relay", "jccl-relay"));
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(impairments, "impairments");
        Objects.requireNonNull(rateLimit, "rateLimit");
        if (a.isEmpty() || a.size() != b.size() || a.size() > 64) {
            throw new IllegalArgumentException("the relay needs the same number (1-64) of path addresses for both "
                    + "endpoints, got " + a.size() + " and " + b.size());
        }
        Forwarder.checkBaseDelay(baseDelayNs);
        this.paths = a.size();
        this.forwarder = new Forwarder(counters, impairments, baseDelayNs);
        this.addressOfA = new AtomicReferenceArray<>(a.toArray(new InetSocketAddress[0]));
        this.addressOfB = new AtomicReferenceArray<>(b.toArray(new InetSocketAddress[0]));
        this.facingA = new Port[paths];
        this.facingB = new Port[paths];
        try {
            for (int p = 0; p < paths; p++) {
                facingA[p] = new Port(UdpSockets.open(bindAddress, SOCKET_BUFFER_BYTES));
                facingB[p] = new Port(UdpSockets.open(bindAddress, SOCKET_BUFFER_BYTES));
            }
        } catch (IOException e) {
            closeSockets();
            throw new UncheckedIOException("the relay cannot open its sockets on " + bindAddress.getHostAddress(), e);
        }
        this.toB = new Lane[paths];
        this.toA = new Lane[paths];
        SplittableRandom root = new SplittableRandom(seed);
        for (int p = 0; p < paths; p++) {   // streams split in this order: 2p = A to B, 2p + 1 = B to A
            toB[p] = new Lane(p, facingB[p], addressOfB, p, root.split(), rateLimit);
            toA[p] = new Lane(p, facingA[p], addressOfA, p, root.split(), rateLimit);
        }
    }

    /** @return the addresses endpoint A must use for B, in path order */
    public List<InetSocketAddress> addressesForA() {
        return localAddresses(facingA);
    }

    /** @return the addresses endpoint B must use for A, in path order */
    public List<InetSocketAddress> addressesForB() {
        return localAddresses(facingB);
    }

    static List<InetSocketAddress> localAddresses(Port[] ports) {
        DatagramChannel[] channels = new DatagramChannel[ports.length];
        for (int i = 0; i < ports.length; i++) {
            channels[i] = ports[i].channel;
        }
        return UdpSockets.localAddresses(channels);
    }

    /**
     * Black-holes path {@code path} both ways during {@code [fromNs, untilNs)} (by {@link System#nanoTime()}), keyed
     * by A's current source port on it: once A re-routes the path, its traffic passes again.
     */
    @Override
    public void blackHolePath(int path, long fromNs, long untilNs) {
        checkBlackHole(path, fromNs, untilNs);
        addBlackHole(addressOfA.get(path).getPort(), fromNs, untilNs);
    }

    @Override
    int pathIndexes() {
        return paths;
    }

    @Override
    int poll() {
        int work = 0;
        long now = System.nanoTime();
        for (int p = 0; p < paths; p++) {
            work += drain(facingA[p].channel, p, true, now);
            work += drain(facingB[p].channel, p, false, now);
        }
        return work + forwarder.poll(System.nanoTime());
    }

    private int drain(DatagramChannel ch, int path, boolean fromA, long now) {
        ByteBuffer io = forwarder.io;
        int n = 0;
        while (n < 64) {
            InetSocketAddress source = forwarder.receive(ch);
            if (source == null) {
                break;
            }
            n++;
            counters.increment(RelayCounters.RECEIVED);
            AtomicReferenceArray<InetSocketAddress> known = fromA ? addressOfA : addressOfB;
            if (!source.equals(known.get(path))) {
                known.set(path, source);   // that endpoint re-routed this path
            }
            if (flaps.isDown(path, now)) {
                counters.increment(RelayCounters.DROPPED_FLAP);
            } else if (anyBlackHoles() && blackHoled(addressOfA.get(path).getPort(), now, Long.MIN_VALUE)) {
                counters.increment(RelayCounters.DROPPED_BLACK_HOLE);
            } else {
                forwarder.forward(fromA ? toB[path] : toA[path], io.position(), now);
            }
        }
        return n;
    }

    /** Stops the thread and closes the sockets. */
    @Override
    public void close() {
        loopThread.stop();
        closeSockets();
    }

    private void closeSockets() {
        for (Port[] side : new Port[][] {facingA, facingB}) {
            for (Port port : side) {
                if (port != null) {
                    port.close();
                }
            }
        }
    }
}
