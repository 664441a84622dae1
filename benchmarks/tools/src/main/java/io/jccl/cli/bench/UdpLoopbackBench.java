package io.jccl.cli.bench;

import io.jccl.check.JitQuiet;
import io.jccl.metaroce.fabric.ImpairmentRelay;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.wire.Crc32c;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import io.jccl.metaroce.impair.Impairments;
import io.jccl.metaroce.udp.IoMethod;
import io.jccl.metaroce.udp.RawUdpBlast;
import io.jccl.metaroce.udp.UdpDriver;
import io.jccl.metaroce.udp.UdpDriverConfig;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemNanoClock;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One MetaRoCE connection over real loopback UDP sockets (the {@link UdpDriver}, one thread per side), against a
 * raw UDP blast through the same I/O method ({@link RawUdpBlast}: the driver's own path-socket I/O, native batches
 * with GSO/GRO or {@code DatagramChannel}, same datagram size) in the same run. The transferred bytes are checked.
 */
final class UdpLoopbackBench {
    private static final long LIMIT_NS = 120_000_000_000L;
    /** Bytes per warm-up transfer after the first (which is of the measured size). */
    private static final long WARM_UP_BYTES = 64L << 20;
    /** The most time the warm-ups wait for a quiet JIT (each side: the endpoints, then the raw blast). */
    private static final long WARM_UP_MAX_NS = 5_000_000_000L;
    /** The metaroce transport's default smallest retransmission timeout (JCCL_METAROCE_RTO_FLOOR_US), in us. */
    static final long DEFAULT_RTO_FLOOR_US = 5000;

    /**
     * @param goodputBytesPerSec MetaRoCE payload bytes per second, first post to last completion
     * @param rawBytesPerSec     payload bytes per second the raw blast delivered
     * @param rawDeliveredShare  share of the raw blast's datagrams that arrived
     * @param rawWindow          the most datagrams the raw blast had in flight (its flow control)
     * @param retransmits        MetaRoCE retransmissions
     * @param datagramsSent      datagrams the MetaRoCE sender handed to the kernel
     * @param wallNs             the timed transfer's wall time
     * @param io                 the I/O method both ran with
     * @param sendCalls          send system calls the MetaRoCE sender made (datagrams per call: the batching)
     * @param gsoSegmentsSent    datagrams the MetaRoCE sender sent as GSO segments
     * @param gsoMessagesSent    GSO messages the MetaRoCE sender sent (segments over messages: its average run)
     * @param rawGsoRun          the raw blast's average GSO run (segments per GSO message), 0 without GSO
     * @param checkedBytesPerSec payload bytes per second the checked blast delivered ({@link RawUdpBlast#runChecked}:
     *                           a CRC32C per datagram on both sides, the payload sent from and placed into memory
     *                           regions as large as the transfer)
     */
    record Result(double goodputBytesPerSec, double rawBytesPerSec, double rawDeliveredShare, long rawWindow,
                  long retransmits, long datagramsSent, long wallNs, IoMethod io, long sendCalls,
                  long gsoSegmentsSent, long gsoMessagesSent, double rawGsoRun, double checkedBytesPerSec) {
        double vsRaw() {
            return rawBytesPerSec > 0 ? goodputBytesPerSec / rawBytesPerSec : 0;
        }

        /** @return MetaRoCE's goodput over the checked blast's */
        double vsChecked() {
            return checkedBytesPerSec > 0 ? goodputBytesPerSec / checkedBytesPerSec : 0;
        }

        /** @return the checked blast over the raw one: the most a design that checks and places every byte reaches */
        double checkedVsRaw() {
            return rawBytesPerSec > 0 ? checkedBytesPerSec / rawBytesPerSec : 0;
        }

        /** @return the MetaRoCE sender's average GSO run (segments per GSO message), 0 without GSO */
        double gsoRun() {
            return gsoMessagesSent == 0 ? 0 : (double) gsoSegmentsSent / gsoMessagesSent;
        }
    }

    private UdpLoopbackBench() {
    }

    /**
     * @param relayLoss null: the endpoints talk directly; otherwise through an {@link ImpairmentRelay} losing this
     *                  share of the datagrams on every path, both ways
     * @param io        the I/O method of the drivers and the raw blast
     * @param rtoFloorNs the endpoints' smallest retransmission timeout
     */
    static Result run(int paths, long bytes, long messageBytes, long footprintBytes, int payloadBytes,
                      Double relayLoss, boolean withRaw, IoMethod io, long rtoFloorNs) {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        EndpointConfig config = EndpointConfig.defaults(key).withPaths(paths).withPayloadBytes(payloadBytes)
                .withRto(rtoFloorNs, Math.max(50_000_000, rtoFloorNs));
        UdpDriverConfig udp = UdpDriverConfig.defaults(InetAddress.getLoopbackAddress()).withIo(io);
        try (Arena arena = Arena.ofShared()) {
            return run(arena, config, udp, bytes, messageBytes, footprintBytes, payloadBytes, relayLoss, withRaw);
        }
    }

    private static Result run(Arena arena, EndpointConfig config, UdpDriverConfig udp, long bytes, long messageBytes,
                              long footprintBytes, int payloadBytes, Double relayLoss, boolean withRaw) {
        Result measured;
        // A footprint below the transfer: WRITE k goes from and into bytes (k * messageBytes) % footprint.
        MemorySegment src = arena.allocate(footprintBytes, 64);
        MemorySegment dst = arena.allocate(footprintBytes, 64);
        try (UdpDriver sender = new UdpDriver(config, udp, new SecureRandom(), new SystemNanoClock());
             UdpDriver receiver = new UdpDriver(config, udp, new SecureRandom(), new SystemNanoClock())) {
            for (long i = 0; i + 8 <= footprintBytes; i += 8) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            }
            int regionKey = receiver.endpoint().registerRegion(dst, true);
            ImpairmentRelay relay = relayLoss == null ? null : new ImpairmentRelay(InetAddress.getLoopbackAddress(),
                    sender.localAddresses(), receiver.localAddresses(), Impairments.NONE.withLossRate(relayLoss), 0,
                    new SecureRandom().nextLong());
            long peer = sender.addPeer(relay == null ? receiver.localAddresses() : relay.addressesForA());
            receiver.addPeer(relay == null ? sender.localAddresses() : relay.addressesForB());
            if (relay != null) {
                relay.start();
            }
            AtomicBoolean stop = new AtomicBoolean();
            Thread receiving = Thread.ofPlatform().name("jccl-bench-udp-receiver").start(() -> {
                IdleStrategy idle = idleStrategy();
                while (!stop.get()) {
                    idle.idle(receiver.doWork());
                }
            });
            try {
                Endpoint e = sender.endpoint();
                int conn = e.connect(System.nanoTime(), peer);
                long deadline = System.nanoTime() + LIMIT_NS;
                while (!e.isEstablished(conn)) {
                    step(sender, deadline);
                }
                // Warm-up, not measured: one transfer of the measured size, then shorter ones until the JIT is
                // quiet (it compiled through the first two transfers of 1 GiB, on a core the two sides need).
                transfer(sender, conn, regionKey, src, bytes, messageBytes, deadline);
                long warmUpBytes = Math.min(bytes, WARM_UP_BYTES);
                untilJitQuiet(JitQuiet.ofThisJvm(),
                        () -> transfer(sender, conn, regionKey, src, warmUpBytes, messageBytes, deadline));
                dst.fill((byte) 0);
                long retransmitsBefore = retransmits(e);
                long sentBefore = sender.datagramsSent();
                long callsBefore = sender.sendCalls();
                long gsoBefore = sender.gsoSegmentsSent();
                long gsoMessagesBefore = sender.gsoMessagesSent();
                long start = System.nanoTime();
                transfer(sender, conn, regionKey, src, bytes, messageBytes, deadline);
                long wallNs = System.nanoTime() - start;
                if (dst.mismatch(src) != -1) {
                    throw new IllegalStateException("the bytes that arrived differ from those sent at byte "
                            + dst.mismatch(src));
                }
                measured = new Result(bytes * 1e9 / wallNs, 0, 0, 0, retransmits(e) - retransmitsBefore,
                        sender.datagramsSent() - sentBefore, wallNs, sender.ioMethod(),
                        sender.sendCalls() - callsBefore, sender.gsoSegmentsSent() - gsoBefore,
                        sender.gsoMessagesSent() - gsoMessagesBefore, 0, 0);
            } finally {
                stop.set(true);
                joinQuietly(receiving);
                if (relay != null) {
                    relay.close();
                }
            }
        }
        if (!withRaw) {
            return measured;
        }
        // After the endpoints' threads stopped, so that the blast has the machine to itself as they had.
        int datagram = payloadBytes + DataFlyweight.DATA_HEADER_LENGTH + Crc32c.LENGTH;
        long datagrams = (bytes + payloadBytes - 1) / payloadBytes;
        UdpDriverConfig rawConfig = udp.withIo(measured.io());
        long warmUpDatagrams = Math.min(datagrams, WARM_UP_BYTES / payloadBytes + 1);
        // Each warmed up like the endpoints: its code is compiled too before the blast that counts.
        JitQuiet jit = JitQuiet.ofThisJvm();
        RawUdpBlast.run(rawConfig, datagram, warmUpDatagrams);
        untilJitQuiet(jit, () -> RawUdpBlast.run(rawConfig, datagram, warmUpDatagrams));
        RawUdpBlast.Result raw = RawUdpBlast.run(rawConfig, datagram, datagrams);
        int header = DataFlyweight.DATA_HEADER_LENGTH;
        dst.fill((byte) 0);
        RawUdpBlast.runChecked(rawConfig, header, payloadBytes, warmUpDatagrams, src, dst);
        untilJitQuiet(jit, () -> RawUdpBlast.runChecked(rawConfig, header, payloadBytes, warmUpDatagrams, src, dst));
        dst.fill((byte) 0);
        RawUdpBlast.Result checked = RawUdpBlast.runChecked(rawConfig, header, payloadBytes, datagrams, src, dst);
        long placedBytes = Math.min(footprintBytes, bytes / payloadBytes * payloadBytes);   // whole payloads only
        if (MemorySegment.mismatch(src, 0, placedBytes, dst, 0, placedBytes) != -1) {
            throw new IllegalStateException("the checked blast placed bytes that differ from its source");
        }
        double rawBytesPerSec = raw.datagramsReceived() * (double) payloadBytes * 1e9 / raw.elapsedNs();
        return new Result(measured.goodputBytesPerSec(), rawBytesPerSec, raw.deliveredShare(), raw.windowDatagrams(),
                measured.retransmits(),
                measured.datagramsSent(), measured.wallNs(), measured.io(), measured.sendCalls(),
                measured.gsoSegmentsSent(), measured.gsoMessagesSent(), raw.gsoRun(),
                checked.datagramsReceived() * (double) payloadBytes * 1e9 / checked.elapsedNs());
    }

    /** Runs warm-up rounds while the JIT still compiles, for at most {@link #WARM_UP_MAX_NS}. */
    private static void untilJitQuiet(JitQuiet jit, Runnable round) {
        long endNs = System.nanoTime() + WARM_UP_MAX_NS;
        while (!jit.quiet() && System.nanoTime() < endNs) {
            round.run();
        }
    }

    private static long retransmits(Endpoint e) {
        return e.counters().get(Counter.RETRANSMITS_SACK) + e.counters().get(Counter.RETRANSMITS_RTO)
                + e.counters().get(Counter.RETRANSMITS_REROUTED);
    }

    /** Spin, yield, then park up to 50 us: the machine may have fewer cores than busy threads (two per run). */
    private static IdleStrategy idleStrategy() {
        return new BackoffIdleStrategy(100, 10, 1_000, 50_000);
    }

    private static final IdleStrategy SENDER_IDLE = idleStrategy();

    private static void step(UdpDriver d, long deadline) {
        SENDER_IDLE.idle(d.doWork());
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the UDP transfer did not finish in " + LIMIT_NS / 1_000_000_000L
                    + " s: sender counters " + d.endpoint().counters().toString().strip().replace('\n', ' '));
        }
    }

    private static void transfer(UdpDriver sender, int conn, int regionKey, MemorySegment src, long bytes,
                                 long messageBytes, long deadline) {
        Endpoint e = sender.endpoint();
        int posted = 0;
        long footprint = src.byteSize();
        for (long off = 0; off < bytes; off += messageBytes) {
            long at = off % footprint;
            long id = e.postWrite(conn, regionKey, at, src, at, Math.min(messageBytes, bytes - off));
            if (id < 0) {
                throw new IllegalStateException("postWrite refused: too much pending work");
            }
            posted++;
        }
        int[] done = new int[1];
        io.jccl.metaroce.protocol.CompletionHandler count = (c, id, kind, status, n) -> {
            if (status != io.jccl.metaroce.protocol.CompletionStatus.OK) {
                throw new IllegalStateException("a WRITE completed with " + status);
            }
            done[0]++;
        };
        while (done[0] < posted) {
            e.pollCompletions(count);
            step(sender, deadline);
        }
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
