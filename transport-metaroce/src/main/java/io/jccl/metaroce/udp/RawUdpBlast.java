package io.jccl.metaroce.udp;

import io.jccl.config.Arguments;
import io.jccl.metaroce.protocol.wire.Crc32c;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A raw UDP blast through the same path-socket I/O a {@link UdpDriver} uses (same method, batches, GSO and GRO,
 * socket buffers), minus the protocol: one socket sends equal-sized datagrams to another while a second thread
 * reads. It is the reference a driver's goodput is compared with, so it must measure the path, not its drop rate:
 * the sender keeps at most a window of datagrams in flight, what the receiving socket's buffer holds (the receiver
 * publishes its count; both ends are in this process), as a protocol's flow control would. Sending as fast as the
 * kernel takes them instead delivered a fifth of the datagrams on loopback.
 *
 * <p>{@link #runChecked} adds what any protocol that checks and places every byte must do per datagram, and nothing
 * else: the sender takes each payload in turn from a source region (beyond the caches, as an application's buffer
 * is), builds a header in the send batch and sends the payload as an iovec of its own, with a CRC32C over header and
 * payload in a trailer; the receiver checks the CRC and copies the payload to its place in a destination region. Its
 * rate is the most a design with the CRC and the placement copy can reach here.
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
        Arguments.inRange("datagramBytes", datagramBytes, 1, 65507);
        UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(datagramBytes));
        return blast(config, datagramBytes, datagrams, quietNs,
                (tx, to, index) -> tx.send(to, payload, 0, datagramBytes),
                (source, buffer, offset, length, ecn) -> true);
    }

    /**
     * A blast that checks and places every byte: datagram {@code i} carries a {@code headerBytes} header (its index
     * first), the {@code payloadBytes} at {@code (i mod n) * payloadBytes} of {@code source} ({@code n} payloads fit
     * in it) and a CRC32C trailer over both; the receiver checks the CRC and copies the payload to the same offset of
     * {@code destination}. With native I/O the payload is sent from {@code source} itself (gathered), as a driver's
     * DATA packets are.
     *
     * @param headerBytes  header bytes per datagram, at least 8
     * @param payloadBytes payload bytes per datagram, at least 1
     * @param source       where the payloads come from, at least one payload, off-heap
     * @param destination  where they go, as large as {@code source}, off-heap
     * @return what was sent and received; {@link Result#datagramsReceived} counts only datagrams whose CRC matched
     * @throws IllegalStateException when a datagram arrived with a wrong CRC (nothing corrupts loopback datagrams)
     */
    public static Result runChecked(UdpDriverConfig config, int headerBytes, int payloadBytes, long datagrams,
                                    MemorySegment source, MemorySegment destination) {
        return runChecked(config, headerBytes, payloadBytes, datagrams, source, destination, QUIET_NS);
    }

    static Result runChecked(UdpDriverConfig config, int headerBytes, int payloadBytes, long datagrams,
                             MemorySegment source, MemorySegment destination, long quietNs) {
        int datagramBytes = headerBytes + payloadBytes + Crc32c.LENGTH;
        if (headerBytes < Long.BYTES || payloadBytes < 1 || datagramBytes > 65507) {
            throw new IllegalArgumentException("headerBytes=" + headerBytes + " (at least 8) and payloadBytes="
                    + payloadBytes + " (at least 1) make no datagram of at most 65507 bytes");
        }
        if (!source.isNative() || !destination.isNative() || source.byteSize() < payloadBytes
                || destination.byteSize() < source.byteSize()) {
            throw new IllegalArgumentException("source (" + source.byteSize() + " bytes) and destination ("
                    + destination.byteSize() + " bytes) must be off-heap, hold a payload, and the destination the "
                    + "source");
        }
        long payloads = source.byteSize() / payloadBytes;
        Crc32c senderCrc = new Crc32c();
        Crc32c receiverCrc = new Crc32c();
        UnsafeBuffer staging = new UnsafeBuffer(ByteBuffer.allocateDirect(datagramBytes));
        long sourceAddress = source.address();
        UnsafeBuffer target = new UnsafeBuffer(destination.address(), (int) Math.min(Integer.MAX_VALUE,
                destination.byteSize()));
        long[] corrupt = new long[1];
        Taker place = (from, buffer, offset, length, ecn) -> {
            if (length != datagramBytes || !receiverCrc.verify(buffer, offset, length)) {
                corrupt[0]++;
                return false;
            }
            long at = buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN) % payloads * payloadBytes;
            if (at + payloadBytes <= target.capacity()) {
                buffer.getBytes(offset + headerBytes, target, (int) at, payloadBytes);
            } else {
                MemorySegment.copy(MemorySegment.ofAddress(buffer.addressOffset() + offset + headerBytes)
                        .reinterpret(payloadBytes), 0, destination, at, payloadBytes);
            }
            return true;
        };
        Sender send = (tx, to, index) -> {
            long from = sourceAddress + index % payloads * payloadBytes;
            int at = senderCrc.updatesAddresses() && tx.gathers() ? tx.claim(to, headerBytes + Crc32c.LENGTH) : -1;
            if (at >= 0) {
                MutableDirectBuffer batch = tx.sendBuffer();
                batch.setMemory(at, headerBytes, (byte) 0);
                batch.putLong(at, index, ByteOrder.LITTLE_ENDIAN);
                int crc = senderCrc.update(Crc32c.START, batch.addressOffset() + at, headerBytes);
                crc = senderCrc.update(crc, from, payloadBytes);
                batch.putInt(at + headerBytes, Crc32c.end(crc), ByteOrder.LITTLE_ENDIAN);
                tx.commitGather(headerBytes, from, payloadBytes, Crc32c.LENGTH);
            } else {
                staging.putLong(0, index, ByteOrder.LITTLE_ENDIAN);
                staging.putBytes(headerBytes, new UnsafeBuffer(from, payloadBytes), 0, payloadBytes);
                senderCrc.finish(staging, 0, headerBytes + payloadBytes);
                tx.send(to, staging, 0, datagramBytes);
            }
        };
        Result r = blast(config, datagramBytes, datagrams, quietNs, send, place);
        if (corrupt[0] > 0) {
            throw new IllegalStateException(corrupt[0] + " datagrams of the checked blast arrived with a wrong "
                    + "length or CRC");
        }
        return r;
    }

    /** Queues datagram {@code index} of a blast. */
    private interface Sender {
        void send(DatagramIo tx, long to, long index);
    }

    /** Takes one datagram that arrived. */
    private interface Taker {
        /** @return whether it counts as received */
        boolean take(long source, DirectBuffer buffer, int offset, int length, int ecn);
    }

    private static Result blast(UdpDriverConfig config, int datagramBytes, long datagrams, long quietNs, Sender sender,
                                Taker taker) {
        Arguments.atLeast("datagrams", datagrams, 1);
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
                DatagramIo.Receiver count = (source, buffer, offset, length, ecn) -> {
                    if (taker.take(source, buffer, offset, length, ecn)) {
                        n[0]++;
                    }
                };
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
                    long first = txCounters.datagramsSent;
                    for (long i = 0; i < Math.min(Math.min(missing, room), config.sendBatch()); i++) {
                        sender.send(tx, to, first + i);
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
