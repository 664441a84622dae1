package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import org.agrona.concurrent.SystemNanoClock;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** UDP drivers on loopback for tests, and the loop that steps them from the test's thread. */
public final class Loopback {
    /** The handshake key every test driver shares. */
    public static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
    /** How long {@link #run} waits: only turns a hang into a failure. */
    public static final long LIMIT_NS = 60_000_000_000L;

    private Loopback() {
    }

    /** @return a driver with the default settings (8 paths, I/O method AUTO) on 127.0.0.1, seeded */
    public static UdpDriver driver(long seed) {
        return driver(seed, IoMethod.AUTO);
    }

    /** @return a driver with the default settings (8 paths) and this I/O method on 127.0.0.1, seeded */
    public static UdpDriver driver(long seed, IoMethod io) {
        return driver(seed, config(io));
    }

    /** @return a driver with the default endpoint settings (8 paths) and these socket settings, seeded */
    public static UdpDriver driver(long seed, UdpDriverConfig config) {
        return new UdpDriver(EndpointConfig.defaults(KEY), config, new SplittableRandom(seed), new SystemNanoClock());
    }

    /** Skips the calling test where native I/O is not available here, saying why. */
    public static void assumeNative() {
        assumeTrue(DatagramIo.nativeUnavailableReason(config(IoMethod.NATIVE)) == null,
                () -> "native I/O: " + DatagramIo.nativeUnavailableReason(config(IoMethod.NATIVE)));
    }

    /** Skips the calling test where {@code io} is {@link IoMethod#NATIVE} and native I/O is not available here. */
    public static void assumeAvailable(IoMethod io) {
        if (io == IoMethod.NATIVE) {
            assumeNative();
        }
    }

    /** @return the default socket settings on 127.0.0.1 with this I/O method */
    public static UdpDriverConfig config(IoMethod io) {
        return UdpDriverConfig.defaults(InetAddress.getLoopbackAddress()).withIo(io);
    }

    /**
     * Makes {@code a} and {@code b} known to each other (each adds the other's path addresses).
     *
     * @return a's handle for b, to connect to
     */
    public static long introduce(UdpDriver a, UdpDriver b) {
        long peerB = a.addPeer(b.localAddresses());
        b.addPeer(a.localAddresses());
        return peerB;
    }

    /**
     * Connects a to b and steps both until the connection is established and b has accepted it (b knows a as peer 1).
     *
     * @return a's connection
     */
    public static int connect(UdpDriver a, UdpDriver b, long peerB) {
        Endpoint ea = a.endpoint();
        int conn = ea.connect(System.nanoTime(), peerB);
        assertThat(run(a, b, () -> ea.isEstablished(conn) && b.endpoint().connectionTo(1) >= 0)).isTrue();
        return conn;
    }

    /** @return {@code size} bytes of seeded random longs (a shorter tail stays zero), to check a transfer by */
    public static MemorySegment randomBytes(Arena arena, long size, long seed) {
        MemorySegment s = arena.allocate(size);
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i + 8 <= size; i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        return s;
    }

    /** WRITEs all of {@code src} to b's region {@code key} over a's connection and steps both until it completes. */
    public static void writeAndAwait(UdpDriver a, UdpDriver b, int conn, int key, MemorySegment src) {
        Endpoint ea = a.endpoint();
        int[] done = new int[1];
        ea.postWrite(conn, key, 0, src, 0, src.byteSize());
        assertThat(run(a, b, () -> {
            ea.pollCompletions((c, id, kind, status, bytes) -> done[0]++);
            return done[0] == 1;
        })).isTrue();
    }

    /**
     * Steps both drivers until {@code done} holds.
     *
     * @return false when {@link #LIMIT_NS} passed first
     */
    public static boolean run(UdpDriver a, UdpDriver b, BooleanSupplier done) {
        long deadline = System.nanoTime() + LIMIT_NS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            if (a.doWork() + b.doWork() == 0) {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /**
     * Steps every driver until {@code done} holds.
     *
     * @return false when {@link #LIMIT_NS} passed first
     */
    public static boolean run(UdpDriver[] drivers, BooleanSupplier done) {
        long deadline = System.nanoTime() + LIMIT_NS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            int work = 0;
            for (UdpDriver d : drivers) {
                work += d.doWork();
            }
            if (work == 0) {
                Thread.onSpinWait();
            }
        }
        return true;
    }
}
