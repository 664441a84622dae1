package io.jccl.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * What a MetaRoCE sender does in user space per DATA packet, apart from the protocol's bookkeeping: the payload,
 * read from the caller's memory, either copied into the send batch behind its header and checksummed there (what
 * the UDP driver does today) or only checksummed where it lies, header first (what a gather send, header and payload
 * as separate iovecs, would leave). The source is walked packet by packet through {@code sourceBytes}: 64 MiB, beyond
 * the caches, as a large WRITE reads it, or 1 MiB, which stays in L2. The checksum is {@link CRC32C} over direct
 * buffers, the JDK's intrinsic, as {@code Crc32c} uses it. One operation is one packet: ns/op is the cost per packet.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PacketSendWorkBenchmark {
    private static final int HEADER_BYTES = 64;
    /** Send-batch slots the copies rotate through (a batch of 64 datagrams). */
    private static final int SLOTS = 64;

    /** Created by JMH. */
    public PacketSendWorkBenchmark() {
    }

    /** Payload bytes per packet: 4 KiB (what a RoCE NIC carries) or 65,000 (MetaRoCE's payload on loopback). */
    @Param({"4096", "65000"})
    public int payloadBytes;

    /** Bytes of source memory the packets walk through. */
    @Param({"1048576", "67108864"})
    public long sourceBytes;

    private Arena arena;
    private MemorySegment source;
    private MemorySegment batch;
    private final CRC32C crc = new CRC32C();
    private long packets;
    private long packet;

    /** Allocates and touches the memory once per trial. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        source = arena.allocate(sourceBytes, 64);
        for (long i = 0; i < sourceBytes; i += 8) {
            source.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
        }
        batch = arena.allocate((long) SLOTS * (HEADER_BYTES + payloadBytes + 8), 64);
        batch.fill((byte) 1);
        packets = sourceBytes / payloadBytes;
    }

    /** Frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /**
     * Copy, then checksum header and payload in the batch.
     *
     * @return the checksum (consumed by JMH)
     */
    @Benchmark
    public long copyThenChecksum() {
        long p = next();
        long slot = (p % SLOTS) * (HEADER_BYTES + payloadBytes + 8);
        MemorySegment.copy(source, p * payloadBytes, batch, slot + HEADER_BYTES, payloadBytes);
        crc.reset();
        crc.update(batch.asSlice(slot, HEADER_BYTES + payloadBytes).asByteBuffer());
        return crc.getValue();
    }

    /**
     * Checksum the header in the batch and the payload where it lies; the kernel would copy it from there.
     *
     * @return the checksum (consumed by JMH)
     */
    @Benchmark
    public long checksumInPlace() {
        long p = next();
        long slot = (p % SLOTS) * (HEADER_BYTES + payloadBytes + 8);
        crc.reset();
        crc.update(batch.asSlice(slot, HEADER_BYTES).asByteBuffer());
        ByteBuffer payload = source.asSlice(p * payloadBytes, payloadBytes).asByteBuffer();
        crc.update(payload);
        return crc.getValue();
    }

    private long next() {
        long p = packet;
        packet = p + 1 == packets ? 0 : p + 1;
        return p;
    }
}
