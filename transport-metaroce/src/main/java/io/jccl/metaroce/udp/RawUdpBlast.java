package io.jccl.metaroce.udp;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A raw UDP blast through the same path-socket I/O a {@link UdpDriver} uses (same method, batches, GSO and GRO,
 * socket buffers), minus the protocol: one socket sends equal-sized datagrams to another while a second thread
 * reads. It is the reference a driver's goodput is compared with, so it must measure the path, not its drop rate:
 * the sender keeps at most a window of datagrams in flight, what the receiving socket's buffer holds (the receiver
 * publishes its count; both ends are in this process), as a protocol's flow control would. Sending as fast as the
 * kernel takes them instead delivered a fifth of the datagrams on loopback.
 */
public final class RawUdpBlast {
    /** After the sender finished, how long the receiver waits for more before it counts the rest as lost. */
    private static final long QUIET_NS = 100_000_000L;
    /**
     * What the kernel books per queued datagram beyond its payload (socket buffer and headers, rounded up): the
     * window counts datagrams of {@code datagramBytes + this}, half the receive buffer's worth, so that the buffer
     * never overflows even when GRO does not merge.
     */
    static final int BOOKED_OVERHEAD_BYTES = 1024;

    private RawUdpBlast() {
    }

    /**
     * @param method            the I/O method that ran ({@link IoMethod#NATIVE} or {@link IoMethod#CHANNEL})
     * @param datagramsSent     datagrams the kernel took
     * @param datagramsReceived datagrams that arrived
     * @param elapsedNs         from the first send to the last arrival
     * @param sendCalls         send system calls that took datagrams
     * @param gsoSegmentsSent   datagrams sent as GSO segments
     * @param gsoMessagesSent   GSO messages sent (segments over messages: the average run)
     * @param windowDatagrams   the most datagrams the sender had in flight
     */
    public record Result(IoMethod method, long datagramsSent, long datagramsReceived, long elapsedNs, long sendCalls,
                         long gsoSegmentsSent, long gsoMessagesSent, long windowDatagrams) {
        /** @return the average GSO run (segments per GSO message), 0 without GSO */
        public double gsoRun() {
            return gsoMessagesSent == 0 ? 0 : (double) gsoSegmentsSent / gsoMessagesSent;
        }

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
        return run(config, datagramBytes, datagrams, QUIET_NS);
    }

    /**
     * As {@link #run(UdpDriverConfig, int, long)}, with {@code quietNs} instead of {@link #QUIET_NS}: how long the
     * receiver's count may stand still before what is in flight counts as lost (tests on loaded machines).
     */
    static Result run(UdpDriverConfig config, int datagramBytes, long datagrams, long quietNs) {
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
                        } else if (now - quietSinceNs > quietNs) {
                            return;   // the rest was dropped
                        }
                    }
                }
            });
            UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(datagramBytes));
            long window = windowDatagrams(rx.grantedReceiveBufferBytes(), datagramBytes, config.sendBatch());
            long start = System.nanoTime();
            long presumedLost = 0;   // in flight when the receiver's count stood still for quietNs: dropped
            long stalledSinceNs = 0;
            try {
                while (txCounters.datagramsSent < datagrams) {
                    long missing = datagrams - txCounters.datagramsSent;
                    long arrived = received.get();
                    long room = arrived + presumedLost + window - txCounters.datagramsSent;
                    if (room <= 0) {
                        // The receiver drains the socket and its count opens the window; should the kernel drop
                        // datagrams anyway, the window would never open again: after quietNs they count as lost.
                        long now = System.nanoTime();
                        if (stalledSinceNs == 0) {
                            stalledSinceNs = now;
                        } else if (now - stalledSinceNs > quietNs) {
                            presumedLost = txCounters.datagramsSent - arrived;
                            stalledSinceNs = 0;
                        }
                        Thread.onSpinWait();
                        continue;
                    }
                    stalledSinceNs = 0;
                    for (long i = 0; i < Math.min(Math.min(missing, room), config.sendBatch()); i++) {
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
                    txCounters.gsoSegmentsSent, txCounters.gsoMessagesSent, window);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param grantedReceiveBytes what the kernel granted the receiving socket (Linux reports twice what it books)
     * @param datagramBytes       size of each datagram
     * @param sendBatch           datagrams per send call
     * @return the most datagrams in flight: half of what the receive buffer holds, at least one send batch
     */
    static long windowDatagrams(int grantedReceiveBytes, int datagramBytes, int sendBatch) {
        long fits = (long) grantedReceiveBytes / 2 / ((long) datagramBytes + BOOKED_OVERHEAD_BYTES);
        return Math.max(sendBatch, fits);
    }
}
