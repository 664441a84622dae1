package io.jccl.metaroce.udp;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A raw UDP blast through the same path-socket I/O a {@link UdpDriver} uses (same method, batches, GSO and GRO,
 * socket buffers), minus the protocol: one socket sends equal-sized datagrams to another as fast as the kernel takes
 * them, while a second thread reads. It is the reference a driver's goodput is compared with.
 */
public final class RawUdpBlast {
    /** After the sender finished, how long the receiver waits for more before it counts the rest as lost. */
    private static final long QUIET_NS = 100_000_000L;

    private RawUdpBlast() {
    }

    /**
     * @param method            the I/O method that ran ({@link IoMethod#NATIVE} or {@link IoMethod#CHANNEL})
     * @param datagramsSent     datagrams the kernel took
     * @param datagramsReceived datagrams that arrived
     * @param elapsedNs         from the first send to the last arrival
     * @param sendCalls         send system calls that took datagrams
     * @param gsoSegmentsSent   datagrams sent as GSO segments
     */
    public record Result(IoMethod method, long datagramsSent, long datagramsReceived, long elapsedNs, long sendCalls,
                         long gsoSegmentsSent) {
        /** @return the share of the datagrams sent that arrived */
        public double deliveredShare() {
            return datagramsSent == 0 ? 0 : (double) datagramsReceived / datagramsSent;
        }
    }

    /**
     * Sends {@code datagrams} datagrams of {@code datagramBytes} over loopback-or-wherever {@code config} binds.
     *
     * @param config        socket settings; {@link IoMethod#AUTO} is resolved as the driver resolves it
     * @param datagramBytes size of each datagram, 1 to 65507
     * @param datagrams     how many the kernel must take, at least 1
     * @return what was sent and received
     * @throws UncheckedIOException          when a socket cannot be opened
     * @throws UnsupportedOperationException when {@link IoMethod#NATIVE} is asked for and not available
     */
    public static Result run(UdpDriverConfig config, int datagramBytes, long datagrams) {
        if (datagramBytes < 1 || datagramBytes > 65507) {
            throw new IllegalArgumentException("datagramBytes=" + datagramBytes + " is out of range (1-65507)");
        }
        if (datagrams < 1) {
            throw new IllegalArgumentException("datagrams=" + datagrams + " must be at least 1");
        }
        IoMethod method = UdpDriver.resolve(config);
        IoCounters txCounters = new IoCounters();
        IoCounters rxCounters = new IoCounters();
        AddressKeys keys = new AddressKeys();
        try (DatagramIo tx = DatagramIo.open(method, config, keys, txCounters);
             DatagramIo rx = DatagramIo.open(method, config, new AddressKeys(), rxCounters)) {
            long to = keys.keyOf(rx.localAddress());
            AtomicLong received = new AtomicLong();
            AtomicLong lastArrivalNs = new AtomicLong();
            AtomicBoolean senderDone = new AtomicBoolean();
            Thread receiving = Thread.ofPlatform().name("jccl-raw-udp-receiver").start(() -> {
                long[] n = new long[1];
                DatagramIo.Receiver count = (source, buffer, offset, length, ecn) -> n[0]++;
                long quietSinceNs = 0;
                while (n[0] < datagrams) {
                    if (rx.receive(config.receiveBatch(), count) > 0) {
                        received.set(n[0]);
                        lastArrivalNs.set(System.nanoTime());
                        quietSinceNs = 0;
                    } else if (senderDone.get()) {
                        long now = System.nanoTime();
                        if (quietSinceNs == 0) {
                            quietSinceNs = now;
                        } else if (now - quietSinceNs > QUIET_NS) {
                            return;   // the rest was dropped
                        }
                    }
                }
            });
            UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(datagramBytes));
            long start = System.nanoTime();
            try {
                while (txCounters.datagramsSent < datagrams) {
                    long missing = datagrams - txCounters.datagramsSent;
                    for (long i = 0; i < Math.min(missing, config.sendBatch()); i++) {
                        tx.send(to, payload, 0, datagramBytes);
                    }
                    tx.flush();   // what the kernel refused is sent again in the next round
                    if (txCounters.ioErrors > 0) {
                        throw new UncheckedIOException(new IOException("raw UDP blast: sending to "
                                + rx.localAddress() + " failed (" + method + ")"));
                    }
                }
            } finally {
                senderDone.set(true);
                try {
                    receiving.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            long elapsedNs = Math.max(1, lastArrivalNs.get() - start);
            return new Result(method, txCounters.datagramsSent, received.get(), elapsedNs, txCounters.sendCalls,
                    txCounters.gsoSegmentsSent);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
