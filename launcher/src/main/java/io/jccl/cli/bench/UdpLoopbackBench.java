package io.jccl.cli.bench;

import io.jccl.metaroce.fabric.ImpairmentRelay;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Endpoint;
import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.wire.Crc32c;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import io.jccl.metaroce.sim.Impairments;
import io.jccl.metaroce.udp.UdpDriver;
import io.jccl.metaroce.udp.UdpDriverConfig;
import io.jccl.metaroce.udp.UdpSockets;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MetaRoCE connection over real loopback UDP sockets (the {@link UdpDriver}, one thread per side), against a
 * raw UDP blast through the same I/O method ({@link DatagramChannel}, same datagram size) in the same run. The
 * transferred bytes are checked.
 */
final class UdpLoopbackBench {
    private static final long LIMIT_NS = 120_000_000_000L;

    /**
     * @param goodputBytesPerSec MetaRoCE payload bytes per second, first post to last completion
     * @param rawBytesPerSec     payload bytes per second the raw blast delivered (its losses not counted)
     * @param rawDeliveredShare  share of the raw blast's datagrams that arrived
     * @param retransmits        MetaRoCE retransmissions
     * @param datagramsSent      datagrams the MetaRoCE sender handed to the kernel
     * @param wallNs             the timed transfer's wall time
     */
    record Result(double goodputBytesPerSec, double rawBytesPerSec, double rawDeliveredShare, long retransmits,
                  long datagramsSent, long wallNs) {
        double vsRaw() {
            return rawBytesPerSec > 0 ? goodputBytesPerSec / rawBytesPerSec : 0;
        }
    }

    private UdpLoopbackBench() {
    }

    /**
     * @param relayLoss null: the endpoints talk directly; otherwise through an {@link ImpairmentRelay} losing this
     *                  share of the datagrams on every path, both ways
     */
    static Result run(int paths, long bytes, long messageBytes, int payloadBytes, Double relayLoss, boolean withRaw) {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        EndpointConfig config = EndpointConfig.defaults(key).withPaths(paths).withPayloadBytes(payloadBytes)
                .withRto(Long.getLong("jccl.bench.rtoFloorNs", 50_000), 50_000_000);
        UdpDriverConfig udp = UdpDriverConfig.defaults(InetAddress.getLoopbackAddress());
        Result measured;
        try (Arena arena = Arena.ofShared();
             UdpDriver sender = new UdpDriver(config, udp, new SecureRandom(), new SystemNanoClock());
             UdpDriver receiver = new UdpDriver(config, udp, new SecureRandom(), new SystemNanoClock())) {
            MemorySegment src = arena.allocate(bytes, 64);
            for (long i = 0; i + 8 <= bytes; i += 8) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            }
            MemorySegment dst = arena.allocate(bytes, 64);
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
                transfer(sender, conn, regionKey, src, bytes, messageBytes, deadline);   // warm-up, not measured
                dst.fill((byte) 0);
                long retransmitsBefore = retransmits(e);
                long sentBefore = sender.datagramsSent();
                long start = System.nanoTime();
                transfer(sender, conn, regionKey, src, bytes, messageBytes, deadline);
                long wallNs = System.nanoTime() - start;
                if (dst.mismatch(src) != -1) {
                    throw new IllegalStateException("the bytes that arrived differ from those sent at byte "
                            + dst.mismatch(src));
                }
                measured = new Result(bytes * 1e9 / wallNs, 0, 0, retransmits(e) - retransmitsBefore,
                        sender.datagramsSent() - sentBefore, wallNs);
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
        double[] raw = rawBlast(datagram, payloadBytes, bytes, udp.socketBufferBytes());
        return new Result(measured.goodputBytesPerSec(), raw[0], raw[1], measured.retransmits(),
                measured.datagramsSent(), measured.wallNs());
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
        for (long off = 0; off < bytes; off += messageBytes) {
            long id = e.postWrite(conn, regionKey, off, src, off, Math.min(messageBytes, bytes - off));
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

    /** @return {payload bytes per second delivered, share of datagrams delivered} */
    private static double[] rawBlast(int datagram, int payloadBytes, long bytes, int socketBufferBytes) {
        long count = (bytes + payloadBytes - 1) / payloadBytes;
        InetAddress loopback = InetAddress.getLoopbackAddress();
        // Sockets made as the driver makes its path sockets: the same I/O method, minus the protocol.
        try (DatagramChannel tx = UdpSockets.open(loopback, socketBufferBytes);
             DatagramChannel rx = UdpSockets.open(loopback, socketBufferBytes)) {
            InetSocketAddress to = (InetSocketAddress) rx.getLocalAddress();
            AtomicLong received = new AtomicLong();
            AtomicLong lastNs = new AtomicLong();
            AtomicBoolean senderDone = new AtomicBoolean();
            Thread receiving = Thread.ofPlatform().name("jccl-bench-raw-receiver").start(() -> {
                ByteBuffer in = ByteBuffer.allocateDirect(65536);
                long idleSinceNs = 0;
                try {
                    while (received.get() < count) {
                        in.clear();
                        if (rx.receive(in) != null) {
                            received.incrementAndGet();
                            lastNs.set(System.nanoTime());
                            idleSinceNs = 0;
                        } else if (senderDone.get()) {
                            long now = System.nanoTime();
                            if (idleSinceNs == 0) {
                                idleSinceNs = now;
                            } else if (now - idleSinceNs > 100_000_000L) {
                                return;   // the rest was dropped
                            }
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            ByteBuffer out = ByteBuffer.allocateDirect(datagram);
            long start = System.nanoTime();
            for (long i = 0; i < count; i++) {
                out.clear();
                while (tx.send(out, to) == 0) {
                    Thread.onSpinWait();
                }
            }
            senderDone.set(true);
            joinQuietly(receiving);
            long n = received.get();
            double seconds = Math.max(1, lastNs.get() - start) / 1e9;
            return new double[] {n * (double) payloadBytes / seconds, (double) n / count};
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
