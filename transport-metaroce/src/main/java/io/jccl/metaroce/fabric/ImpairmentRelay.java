package io.jccl.metaroce.fabric;

import io.jccl.metaroce.sim.Impairments;
import io.jccl.metaroce.udp.UdpSockets;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;
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
 * <p>One thread ({@link #start()}) runs the relay; {@link #counters()} can be read from any thread.
 */
public final class ImpairmentRelay implements AutoCloseable {
    /** Counter indexes. */
    public static final int RECEIVED = 0;
    /** Datagrams sent on. */
    public static final int FORWARDED = 1;
    /** Dropped by random or bursty loss. */
    public static final int DROPPED_LOSS = 2;
    /** Dropped by a black hole. */
    public static final int DROPPED_BLACK_HOLE = 3;
    /** Sent with one bit flipped. */
    public static final int CORRUPTED = 4;
    /** Sent twice. */
    public static final int DUPLICATED = 5;
    /** Held back. */
    public static final int REORDERED = 6;
    /** The kernel refused to send (buffer full). */
    public static final int SEND_REFUSED = 7;
    private static final int SOCKET_BUFFER_BYTES = 8 << 20;
    private static final String[] NAMES = {"received", "forwarded", "dropped_loss", "dropped_black_hole", "corrupted",
        "duplicated", "reordered", "send_refused"};

    private final int paths;
    private final Impairments impairments;
    private final long baseDelayNs;
    private final DatagramChannel[] facingA;
    private final DatagramChannel[] facingB;
    private final AtomicReferenceArray<InetSocketAddress> addressOfA;   // learned on the relay's thread
    private final AtomicReferenceArray<InetSocketAddress> addressOfB;
    private final SplittableRandom[] random;      // per path and direction: 2p = A to B, 2p + 1 = B to A
    private final boolean[] burstBad;
    private final AtomicLongArray counters = new AtomicLongArray(NAMES.length);
    private final PriorityQueue<Held> held = new PriorityQueue<>();
    private final ArrayList<byte[]> spare = new ArrayList<>();
    private final ByteBuffer io = ByteBuffer.allocateDirect(65536);
    private final List<long[]> blackHoles = new CopyOnWriteArrayList<>();   // {aPort, fromNs, untilNs}
    private volatile boolean running;
    private Thread thread;
    private long sequence;

    private record Held(long releaseNs, long seq, byte[] bytes, int length, boolean toB, int path)
            implements Comparable<Held> {
        @Override
        public int compareTo(Held o) {
            return releaseNs != o.releaseNs ? Long.compare(releaseNs, o.releaseNs) : Long.compare(seq, o.seq);
        }
    }

    /**
     * Opens the relay's sockets (two per path).
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
        Objects.requireNonNull(bindAddress, "bindAddress");
        this.impairments = Objects.requireNonNull(impairments, "impairments");
        if (a.isEmpty() || a.size() != b.size() || a.size() > 64) {
            throw new IllegalArgumentException("the relay needs the same number (1-64) of path addresses for both "
                    + "endpoints, got " + a.size() + " and " + b.size());
        }
        if (baseDelayNs < 0 || baseDelayNs > 10_000_000_000L) {
            throw new IllegalArgumentException("baseDelayNs=" + baseDelayNs + " must be 0-10 s");
        }
        this.paths = a.size();
        this.baseDelayNs = baseDelayNs;
        this.addressOfA = new AtomicReferenceArray<>(a.toArray(new InetSocketAddress[0]));
        this.addressOfB = new AtomicReferenceArray<>(b.toArray(new InetSocketAddress[0]));
        this.facingA = new DatagramChannel[paths];
        this.facingB = new DatagramChannel[paths];
        this.random = new SplittableRandom[2 * paths];
        this.burstBad = new boolean[2 * paths];
        SplittableRandom root = new SplittableRandom(seed);
        for (int i = 0; i < random.length; i++) {
            random[i] = root.split();
        }
        try {
            for (int p = 0; p < paths; p++) {
                facingA[p] = UdpSockets.open(bindAddress, SOCKET_BUFFER_BYTES);
                facingB[p] = UdpSockets.open(bindAddress, SOCKET_BUFFER_BYTES);
            }
        } catch (IOException e) {
            closeSockets();
            throw new UncheckedIOException("the relay cannot open its sockets on " + bindAddress.getHostAddress(), e);
        }
    }

    /** @return the addresses endpoint A must use for B, in path order */
    public List<InetSocketAddress> addressesForA() {
        return UdpSockets.localAddresses(facingA);
    }

    /** @return the addresses endpoint B must use for A, in path order */
    public List<InetSocketAddress> addressesForB() {
        return UdpSockets.localAddresses(facingB);
    }

    /**
     * Black-holes path {@code path} both ways during {@code [fromNs, untilNs)} (by {@link System#nanoTime()}), keyed
     * by A's current source port on it: once A re-routes the path, its traffic passes again.
     */
    public void blackHolePath(int path, long fromNs, long untilNs) {
        if (path < 0 || path >= paths || untilNs <= fromNs) {
            throw new IllegalArgumentException("blackHolePath(" + path + ", " + fromNs + ", " + untilNs + "): path "
                    + "must be 0-" + (paths - 1) + " and the window non-empty");
        }
        blackHoles.add(new long[] {addressOfA.get(path).getPort(), fromNs, untilNs});
    }

    /** Starts the relay's thread. */
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("the relay is already started");
        }
        running = true;
        thread = Thread.ofPlatform().daemon().name("jccl-relay").start(this::loop);
    }

    private void loop() {
        // Backs off when idle (spin, yield, then park up to 50 us): on a machine with fewer cores than busy threads a
        // spinning relay would take the CPU its endpoints need.
        BackoffIdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 50_000);
        while (running) {
            int work = 0;
            long now = System.nanoTime();
            for (int p = 0; p < paths; p++) {
                work += drain(facingA[p], p, true, now);
                work += drain(facingB[p], p, false, now);
            }
            work += release(System.nanoTime());
            idle.idle(work);
        }
    }

    private int drain(DatagramChannel ch, int path, boolean fromA, long now) {
        int n = 0;
        while (n < 64) {
            io.clear();
            SocketAddress from;
            try {
                from = ch.receive(io);
            } catch (IOException e) {
                break;
            }
            if (from == null) {
                break;
            }
            n++;
            counters.incrementAndGet(RECEIVED);
            InetSocketAddress source = (InetSocketAddress) from;
            AtomicReferenceArray<InetSocketAddress> known = fromA ? addressOfA : addressOfB;
            if (!source.equals(known.get(path))) {
                known.set(path, source);   // that endpoint re-routed this path
            }
            impair(path, fromA, io.position(), now);
        }
        return n;
    }

    private boolean blackHoled(int path, long now) {
        int aPort = addressOfA.get(path).getPort();
        for (long[] h : blackHoles) {
            if (h[0] == aPort && now >= h[1] && now < h[2]) {
                return true;
            }
        }
        return false;
    }

    private void impair(int path, boolean toB, int length, long now) {
        if (!blackHoles.isEmpty() && blackHoled(path, now)) {
            counters.incrementAndGet(DROPPED_BLACK_HOLE);
            return;
        }
        int stream = 2 * path + (toB ? 0 : 1);
        SplittableRandom r = random[stream];
        Impairments im = impairments;
        if (im.lossRate() > 0 && r.nextDouble() < im.lossRate()) {
            counters.incrementAndGet(DROPPED_LOSS);
            return;
        }
        if (im.burstGoodToBad() > 0) {
            burstBad[stream] = burstBad[stream] ? r.nextDouble() >= im.burstBadToGood()
                    : r.nextDouble() < im.burstGoodToBad();
            if (burstBad[stream] && r.nextDouble() < im.burstLossInBad()) {
                counters.incrementAndGet(DROPPED_LOSS);
                return;
            }
        }
        io.flip();
        if (im.corruptRate() > 0 && r.nextDouble() < im.corruptRate() && length > 0) {
            int at = r.nextInt(length);
            io.put(at, (byte) (io.get(at) ^ (1 << r.nextInt(8))));
            counters.incrementAndGet(CORRUPTED);
        }
        long release = now + baseDelayNs + (im.jitterNs() > 0 ? r.nextLong(im.jitterNs() + 1) : 0);
        if (im.reorderRate() > 0 && r.nextDouble() < im.reorderRate()) {
            release += im.reorderMaxHoldNs();
            counters.incrementAndGet(REORDERED);
        }
        boolean duplicate = im.duplicateRate() > 0 && r.nextDouble() < im.duplicateRate();
        if (release == now && !duplicate && held.isEmpty()) {
            send(io, toB, path);   // nothing to wait for: straight on, no copy
            return;
        }
        byte[] bytes = spare.isEmpty() ? new byte[65536] : spare.removeLast();
        io.get(bytes, 0, length);
        if (duplicate) {
            byte[] copy = spare.isEmpty() ? new byte[65536] : spare.removeLast();
            System.arraycopy(bytes, 0, copy, 0, length);
            held.add(new Held(release, sequence++, copy, length, toB, path));
            counters.incrementAndGet(DUPLICATED);
        }
        held.add(new Held(release, sequence++, bytes, length, toB, path));
    }

    private int release(long now) {
        int n = 0;
        while (!held.isEmpty() && held.peek().releaseNs() <= now) {
            Held h = held.poll();
            io.clear();
            io.put(h.bytes(), 0, h.length());
            io.flip();
            send(io, h.toB(), h.path());
            spare.add(h.bytes());
            n++;
        }
        return n;
    }

    private void send(ByteBuffer datagram, boolean toB, int path) {
        try {
            DatagramChannel out = toB ? facingB[path] : facingA[path];
            InetSocketAddress to = toB ? addressOfB.get(path) : addressOfA.get(path);
            if (out.send(datagram, to) == 0) {
                counters.incrementAndGet(SEND_REFUSED);
            } else {
                counters.incrementAndGet(FORWARDED);
            }
        } catch (IOException e) {
            counters.incrementAndGet(SEND_REFUSED);
        }
    }

    /** @return one counter (see the constants) */
    public long counter(int index) {
        return counters.get(index);
    }

    /** @return every counter, {@code name=value} on one line */
    public String counters() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < NAMES.length; i++) {
            sb.append(i == 0 ? "" : " ").append(NAMES[i]).append('=').append(counters.get(i));
        }
        return sb.toString();
    }

    /** Stops the thread and closes the sockets. */
    @Override
    public void close() {
        running = false;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeSockets();
    }

    private void closeSockets() {
        for (DatagramChannel[] side : new DatagramChannel[][] {facingA, facingB}) {
            for (DatagramChannel ch : side) {
                if (ch != null) {
                    try {
                        ch.close();
                    } catch (IOException ignored) {
                        // closing: nothing left to do
                    }
                }
            }
        }
    }
}
