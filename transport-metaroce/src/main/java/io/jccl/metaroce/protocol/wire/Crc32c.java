package io.jccl.metaroce.protocol.wire;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * CRC-32C (Castagnoli; the checksum of iSCSI and of {@link CRC32C}: reflected polynomial {@code 0x82F63B78}, initial
 * value and final XOR {@code 0xFFFFFFFF}) over a range of an Agrona buffer, and the 4-byte little-endian trailer that
 * ends every MetaRoCE packet. Nothing is allocated per call, whatever backs the buffer:
 *
 * <ul>
 *   <li>a {@code byte[]} (also a heap {@link ByteBuffer}): {@link CRC32C#update(byte[], int, int)} on a reused
 *       {@link CRC32C}, which HotSpot compiles to its CRC32C intrinsic;</li>
 *   <li>off-heap memory (a direct {@link ByteBuffer}, or a raw address such as a {@link MemorySegment}'s), in order of
 *       preference ({@link OffHeapStrategy}):
 *     <ol>
 *       <li>{@link OffHeapStrategy#INTRINSIC}: the JDK's own intrinsic over an address, the private static
 *           {@code CRC32C.updateDirectByteBuffer}, reached through a method handle. Needs
 *           {@code --add-opens=java.base/java.util.zip=ALL-UNNAMED} (in JCCL's JVM flags); checked against a known
 *           answer when this class loads, and skipped when unavailable or wrong;</li>
 *       <li>{@link OffHeapStrategy#VIEW}: direct {@link ByteBuffer} views of 1.5 GiB windows of the address space
 *           (aligned to 1 GiB, made from {@link MemorySegment}s, which needs native access to be enabled), given to
 *           {@link CRC32C#update(ByteBuffer)}. A window's view is made on first use and cached (the last four
 *           windows), so this allocates nothing once the windows where the packet buffers live
 *           have been seen. The views only describe memory: nothing outside the checked range is read;</li>
 *       <li>{@link OffHeapStrategy#SLICING_BY_8}: a pure-Java table-driven CRC reading 8 bytes at a time, for when
 *           neither of the above can be had.</li>
 *     </ol></li>
 * </ul>
 *
 * <p>Not thread-safe (it reuses a {@link CRC32C} and its views): one per thread.
 */
public final class Crc32c {
    /** Length of the CRC trailer in bytes. */
    public static final int LENGTH = 4;

    /** How a CRC over off-heap memory is computed (heap arrays always use {@link CRC32C}'s array intrinsic). */
    public enum OffHeapStrategy {
        /** The JDK's address intrinsic, through a method handle. */
        INTRINSIC,
        /** Cached direct {@link ByteBuffer} views of windows of the address space, given to {@link CRC32C#update(ByteBuffer)}. */
        VIEW,
        /** Pure-Java slicing-by-8. */
        SLICING_BY_8
    }

    /** Windows of the address space whose views are cached (VIEW strategy). */
    static final int WINDOWS = 4;
    private static final int WINDOW_ALIGNMENT_SHIFT = 30;
    private static final long WINDOW_ALIGNMENT_MASK = (1L << WINDOW_ALIGNMENT_SHIFT) - 1;
    /** 1.5 GiB: any range of up to 512 MiB that starts in a window's first GiB lies inside it. */
    private static final int WINDOW_CAPACITY = 3 << (WINDOW_ALIGNMENT_SHIFT - 1);
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int[] TABLE = slicingBy8Table();
    private static final MethodHandle UPDATE_ADDRESS = findAddressIntrinsic();

    private final CRC32C crc32c = new CRC32C();
    private final OffHeapStrategy strategy;
    private final long[] windowBases = new long[WINDOWS];
    private final ByteBuffer[] windowViews = new ByteBuffer[WINDOWS];
    private int nextWindow;
    private boolean windowsUnavailable;

    /** A CRC calculator using the best off-heap strategy this JVM allows ({@link #bestOffHeapStrategy()}). */
    public Crc32c() {
        this(bestOffHeapStrategy());
    }

    /**
     * A CRC calculator using a given off-heap strategy (for tests and measurements).
     *
     * @param strategy how to compute over off-heap memory; {@link OffHeapStrategy#INTRINSIC} only when available
     * @throws IllegalStateException when the intrinsic is asked for and unavailable
     */
    Crc32c(OffHeapStrategy strategy) {
        if (strategy == OffHeapStrategy.INTRINSIC && UPDATE_ADDRESS == null) {
            throw new IllegalStateException("the CRC32C address intrinsic is unavailable (java.util.zip not opened)");
        }
        this.strategy = strategy;
    }

    /** @return {@link OffHeapStrategy#INTRINSIC} when this JVM allows it, else {@link OffHeapStrategy#VIEW} */
    public static OffHeapStrategy bestOffHeapStrategy() {
        return UPDATE_ADDRESS != null ? OffHeapStrategy.INTRINSIC : OffHeapStrategy.VIEW;
    }

    /** @return how this calculator computes over off-heap memory */
    public OffHeapStrategy offHeapStrategy() {
        return strategy;
    }

    /**
     * @param buffer holds the bytes
     * @param index  where they start
     * @param length how many
     * @return the CRC-32C of {@code buffer[index, index + length)}, as {@link CRC32C#getValue()} would give it
     *         (truncated to an int)
     * @throws IndexOutOfBoundsException when the range is not inside the buffer
     */
    public int compute(DirectBuffer buffer, int index, int length) {
        if (index < 0 || length < 0 || index > buffer.capacity() - length) {
            throw new IndexOutOfBoundsException("range [" + index + ", +" + length + ") outside capacity "
                    + buffer.capacity());
        }
        final byte[] array = buffer.byteArray();
        if (array != null) {
            crc32c.reset();
            crc32c.update(array, buffer.wrapAdjustment() + index, length);
            return (int) crc32c.getValue();
        }
        return switch (strategy) {
            case INTRINSIC -> computeIntrinsic(buffer, index, length);
            case VIEW -> computeView(buffer, index, length);
            case SLICING_BY_8 -> slicingBy8(buffer, index, length);
        };
    }

    /** The state a CRC starts from, for {@link #update(int, long, int)}. */
    public static final int START = 0xFFFFFFFF;

    /** @return whether {@link #update(int, long, int)} is available: the JDK's address intrinsic is */
    public boolean updatesAddresses() {
        return strategy == OffHeapStrategy.INTRINSIC;
    }

    /**
     * Continues a CRC over off-heap bytes, for a packet whose pieces lie in different memory (a gather send).
     *
     * @param state   {@link #START}, or what the previous piece returned
     * @param address where the piece starts
     * @param length  its length in bytes
     * @return the state after the piece; {@link #end} makes it the CRC
     * @throws IllegalStateException when {@link #updatesAddresses()} is false
     */
    public int update(int state, long address, int length) {
        if (strategy != OffHeapStrategy.INTRINSIC) {
            throw new IllegalStateException("CRC over addresses needs the CRC32C address intrinsic");
        }
        try {
            return (int) UPDATE_ADDRESS.invokeExact(state, address, 0, length);
        } catch (Throwable t) {
            throw new IllegalStateException("CRC32C intrinsic failed", t);
        }
    }

    /**
     * @param state what the last {@link #update(int, long, int)} returned
     * @return the CRC-32C of the pieces, as {@link #compute} gives it
     */
    public static int end(int state) {
        return ~state;
    }

    /**
     * Writes the CRC trailer of a packet.
     *
     * @param buffer           holds the packet
     * @param offset           where it starts
     * @param lengthWithoutCrc its length before the trailer: the trailer is written there
     * @return the packet's length with the trailer ({@code lengthWithoutCrc + 4})
     * @throws IndexOutOfBoundsException when the packet and trailer are not inside the buffer
     */
    public int finish(MutableDirectBuffer buffer, int offset, int lengthWithoutCrc) {
        final int crc = compute(buffer, offset, lengthWithoutCrc);
        buffer.putInt(offset + lengthWithoutCrc, crc, LE);
        return lengthWithoutCrc + LENGTH;
    }

    /**
     * @param buffer        holds the packet
     * @param offset        where it starts
     * @param lengthWithCrc its length, trailer included
     * @return whether the trailer matches the bytes before it (false when {@code lengthWithCrc < 4})
     * @throws IndexOutOfBoundsException when the packet is not inside the buffer
     */
    public boolean verify(DirectBuffer buffer, int offset, int lengthWithCrc) {
        if (lengthWithCrc < LENGTH) {
            return false;
        }
        final int length = lengthWithCrc - LENGTH;
        return compute(buffer, offset, length) == buffer.getInt(offset + length, LE);
    }

    private static int computeIntrinsic(DirectBuffer buffer, int index, int length) {
        try {
            return ~(int) UPDATE_ADDRESS.invokeExact(0xFFFFFFFF, buffer.addressOffset() + index, 0, length);
        } catch (Throwable t) {
            throw new IllegalStateException("CRC32C intrinsic failed", t);
        } finally {
            Reference.reachabilityFence(buffer);
        }
    }

    private int computeView(DirectBuffer buffer, int index, int length) {
        final long address = buffer.addressOffset() + index;
        final long base = address & ~WINDOW_ALIGNMENT_MASK;
        final int position = (int) (address - base);
        final ByteBuffer view = position <= WINDOW_CAPACITY - length ? window(base) : null;
        if (view == null) {
            return slicingBy8(buffer, index, length);
        }
        view.clear().position(position).limit(position + length);
        crc32c.reset();
        crc32c.update(view);
        Reference.reachabilityFence(buffer);
        return (int) crc32c.getValue();
    }

    /** @return the cached view of the window starting at {@code base}, made if need be; null without native access */
    @SuppressWarnings("restricted") // reinterpret: native access, which JCCL's JVM flags enable; caught when denied
    private ByteBuffer window(long base) {
        for (int w = 0; w < WINDOWS; w++) {
            if (windowBases[w] == base && windowViews[w] != null) {
                return windowViews[w];
            }
        }
        if (windowsUnavailable) {
            return null;
        }
        final ByteBuffer view;
        try {
            view = MemorySegment.ofAddress(base).reinterpret(WINDOW_CAPACITY).asByteBuffer();
        } catch (IllegalCallerException e) {
            // Native access denied (--illegal-native-access=deny without --enable-native-access): pure Java from now on.
            windowsUnavailable = true;
            return null;
        }
        final int w = nextWindow;
        nextWindow = (w + 1) % WINDOWS;
        windowBases[w] = base;
        windowViews[w] = view;
        return view;
    }

    /** @return how many windows have views (VIEW strategy; for tests) */
    int windowsInUse() {
        int n = 0;
        for (ByteBuffer view : windowViews) {
            n += view != null ? 1 : 0;
        }
        return n;
    }

    /**
     * Pure-Java slicing-by-8 over any buffer (package-private for tests).
     *
     * @return the CRC-32C of {@code buffer[index, index + length)}
     */
    static int slicingBy8(DirectBuffer buffer, int index, int length) {
        final int[] t = TABLE;
        int crc = 0xFFFFFFFF;
        int i = index;
        final int end = index + length;
        for (; end - i >= 8; i += 8) {
            final long v = buffer.getLong(i, LE);
            final int lo = crc ^ (int) v;
            final int hi = (int) (v >>> 32);
            crc = t[7 * 256 + (lo & 0xFF)] ^ t[6 * 256 + ((lo >>> 8) & 0xFF)]
                    ^ t[5 * 256 + ((lo >>> 16) & 0xFF)] ^ t[4 * 256 + (lo >>> 24)]
                    ^ t[3 * 256 + (hi & 0xFF)] ^ t[2 * 256 + ((hi >>> 8) & 0xFF)]
                    ^ t[256 + ((hi >>> 16) & 0xFF)] ^ t[hi >>> 24];
        }
        for (; i < end; i++) {
            crc = (crc >>> 8) ^ t[(crc ^ buffer.getByte(i)) & 0xFF];
        }
        return ~crc;
    }

    private static int[] slicingBy8Table() {
        final int[] t = new int[8 * 256];
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ 0x82F63B78 : c >>> 1;
            }
            t[n] = c;
        }
        for (int s = 1; s < 8; s++) {
            for (int n = 0; n < 256; n++) {
                final int previous = t[(s - 1) * 256 + n];
                t[s * 256 + n] = (previous >>> 8) ^ t[previous & 0xFF];
            }
        }
        return t;
    }

    private static MethodHandle findAddressIntrinsic() {
        try {
            final MethodHandle handle = MethodHandles.privateLookupIn(CRC32C.class, MethodHandles.lookup())
                    .findStatic(CRC32C.class, "updateDirectByteBuffer",
                            MethodType.methodType(int.class, int.class, long.class, int.class, int.class));
            // Known answer: CRC-32C("123456789") = 0xE3069283, at a non-zero offset into direct memory.
            final ByteBuffer probe = ByteBuffer.allocateDirect(16);
            probe.put(3, "123456789".getBytes(StandardCharsets.US_ASCII));
            final long address = MemorySegment.ofBuffer(probe).address();
            final int crc = ~(int) handle.invokeExact(0xFFFFFFFF, address + 3, 0, 9);
            Reference.reachabilityFence(probe);
            return crc == 0xE3069283 ? handle : null;
        } catch (Throwable t) {
            return null;
        }
    }
}
