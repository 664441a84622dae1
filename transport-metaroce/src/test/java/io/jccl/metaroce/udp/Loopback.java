package io.jccl.metaroce.udp;

import io.jccl.metaroce.protocol.EndpointConfig;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetAddress;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

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

    /** @return the default socket settings on 127.0.0.1 with this I/O method */
    public static UdpDriverConfig config(IoMethod io) {
        return UdpDriverConfig.defaults(InetAddress.getLoopbackAddress()).withIo(io);
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
