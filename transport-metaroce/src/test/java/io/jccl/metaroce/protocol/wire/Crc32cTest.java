package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link Crc32c} agrees with {@link CRC32C} for every kind of buffer and every off-heap strategy. */
class Crc32cTest {
    private static int reference(byte[] data, int from, int length) {
        final CRC32C crc = new CRC32C();
        crc.update(data, from, length);
        return (int) crc.getValue();
    }

    private static Crc32c calculator(Crc32c.OffHeapStrategy strategy) {
        return new Crc32c(strategy);
    }

    @Test
    void theIntrinsicIsAvailableWithJcclsJvmFlags() {
        // The surefire JVM gets --add-opens=java.base/java.util.zip=ALL-UNNAMED from jccl.jvmFlags.
        assertThat(Crc32c.bestOffHeapStrategy()).isEqualTo(Crc32c.OffHeapStrategy.INTRINSIC);
        assertThat(new Crc32c().offHeapStrategy()).isEqualTo(Crc32c.OffHeapStrategy.INTRINSIC);
    }

    /** A CRC continued over pieces of a packet (a gather send) is the CRC of the packet whole. */
    @Property(tries = 300)
    void aCrcOverPiecesIsTheCrcOfTheWhole(@ForAll @IntRange(min = 0, max = 3000) int first,
                                          @ForAll @IntRange(min = 0, max = 3000) int second,
                                          @ForAll @IntRange(min = 0, max = 3000) int third, @ForAll long seed) {
        final byte[] data = new byte[first + second + third];
        new SplittableRandom(seed).nextBytes(data);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            // Each piece in memory of its own, as header, payload and trailer are.
            final java.lang.foreign.MemorySegment[] pieces = {arena.allocate(first + 1L), arena.allocate(second + 1L),
                    arena.allocate(third + 1L)};
            final int[] lengths = {first, second, third};
            final Crc32c crc = new Crc32c();
            assertThat(crc.updatesAddresses()).isTrue();
            int state = Crc32c.START;
            int from = 0;
            for (int p = 0; p < 3; p++) {
                java.lang.foreign.MemorySegment.copy(data, from, pieces[p], java.lang.foreign.ValueLayout.JAVA_BYTE,
                        1, lengths[p]);
                state = crc.update(state, pieces[p].address() + 1, lengths[p]);
                from += lengths[p];
            }
            assertThat(Crc32c.end(state)).isEqualTo(reference(data, 0, data.length));
        }
    }

    @Test
    void onlyTheIntrinsicContinuesOverAddresses() {
        final Crc32c view = calculator(Crc32c.OffHeapStrategy.VIEW);
        assertThat(view.updatesAddresses()).isFalse();
        assertThatThrownBy(() -> view.update(Crc32c.START, 0, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theViewStrategyReallyUsesViews() {
        // Native access is enabled for tests (jccl.jvmFlags), so VIEW must not quietly fall back to pure Java.
        final Crc32c crc = new Crc32c(Crc32c.OffHeapStrategy.VIEW);
        for (BufferKind kind : new BufferKind[] {BufferKind.DIRECT_BYTE_BUFFER, BufferKind.ADDRESS}) {
            final MutableDirectBuffer buffer = kind.allocate(64);
            crc.compute(buffer, 1, 60);
        }
        assertThat(crc.windowsInUse()).isPositive();
        assertThat(new Crc32c(Crc32c.OffHeapStrategy.SLICING_BY_8).windowsInUse()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Crc32c.OffHeapStrategy.class)
    void knownAnswer(Crc32c.OffHeapStrategy strategy) {
        final byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        for (BufferKind kind : BufferKind.values()) {
            final MutableDirectBuffer buffer = kind.allocate(20);
            buffer.putBytes(5, check);
            assertThat(calculator(strategy).compute(buffer, 5, 9)).as("%s", kind).isEqualTo(0xE3069283);
            assertThat(calculator(strategy).compute(buffer, 5, 0)).as("%s empty", kind).isZero();
        }
    }

    @Property(tries = 400)
    void matchesTheJdk(@ForAll BufferKind kind, @ForAll Crc32c.OffHeapStrategy strategy,
                       @ForAll @IntRange(max = 9000) int length, @ForAll @IntRange(max = 17) int index,
                       @ForAll long seed) {
        final byte[] data = new byte[index + length + 3];
        new SplittableRandom(seed).nextBytes(data);
        final MutableDirectBuffer buffer = kind.allocate(data.length);
        buffer.putBytes(0, data);
        final Crc32c crc = calculator(strategy);
        assertThat(crc.compute(buffer, index, length)).isEqualTo(reference(data, index, length));
        // again, through the cached view / reused state
        assertThat(crc.compute(buffer, index, length)).isEqualTo(reference(data, index, length));
        assertThat(Crc32c.slicingBy8(buffer, index, length)).isEqualTo(reference(data, index, length));
    }

    @Test
    void oneCalculatorAcrossManyBuffersOfEveryKind() {
        // Switching buffers invalidates the cached views correctly.
        final SplittableRandom random = new SplittableRandom(42);
        for (Crc32c.OffHeapStrategy strategy : Crc32c.OffHeapStrategy.values()) {
            final Crc32c crc = calculator(strategy);
            for (int round = 0; round < 60; round++) {
                final BufferKind kind = BufferKind.values()[random.nextInt(BufferKind.values().length)];
                final byte[] data = new byte[1 + random.nextInt(300)];
                random.nextBytes(data);
                final MutableDirectBuffer buffer = kind.allocate(data.length);
                buffer.putBytes(0, data);
                final int from = random.nextInt(data.length);
                final int length = random.nextInt(data.length - from + 1);
                assertThat(crc.compute(buffer, from, length)).isEqualTo(reference(data, from, length));
            }
        }
    }

    @Test
    void aWrappedWindowOfAnotherUnsafeBuffer() {
        final byte[] data = new byte[100];
        new SplittableRandom(7).nextBytes(data);
        for (BufferKind kind : BufferKind.values()) {
            final MutableDirectBuffer outer = kind.allocate(100);
            outer.putBytes(0, data);
            final UnsafeBuffer window = new UnsafeBuffer(outer, 11, 60);
            for (Crc32c.OffHeapStrategy strategy : Crc32c.OffHeapStrategy.values()) {
                assertThat(calculator(strategy).compute(window, 2, 50)).as("%s %s", kind, strategy)
                        .isEqualTo(reference(data, 13, 50));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(BufferKind.class)
    void finishWritesALittleEndianTrailerThatVerifies(BufferKind kind) {
        final MutableDirectBuffer buffer = kind.allocate(64);
        final byte[] data = new byte[40];
        new SplittableRandom(3).nextBytes(data);
        buffer.putBytes(9, data);
        final Crc32c crc = new Crc32c();
        assertThat(crc.finish(buffer, 9, 40)).isEqualTo(44);
        final int expected = reference(data, 0, 40);
        assertThat(buffer.getByte(49) & 0xFF).isEqualTo(expected & 0xFF);
        assertThat(buffer.getByte(52) & 0xFF).isEqualTo(expected >>> 24);
        assertThat(crc.verify(buffer, 9, 44)).isTrue();
        buffer.putByte(20, (byte) (buffer.getByte(20) ^ 0x10));
        assertThat(crc.verify(buffer, 9, 44)).isFalse();
        assertThat(crc.verify(buffer, 9, 3)).isFalse();
    }

    @Test
    void rangesOutsideTheBufferThrowInsteadOfReadingWildMemory() {
        for (BufferKind kind : BufferKind.values()) {
            final MutableDirectBuffer buffer = kind.allocate(16);
            for (Crc32c.OffHeapStrategy strategy : Crc32c.OffHeapStrategy.values()) {
                final Crc32c crc = calculator(strategy);
                assertThatThrownBy(() -> crc.compute(buffer, 0, 17)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> crc.compute(buffer, -1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> crc.compute(buffer, 15, 2)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> crc.compute(buffer, 4, -1)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> crc.compute(buffer, Integer.MAX_VALUE, 8))
                        .isInstanceOf(IndexOutOfBoundsException.class);
                assertThat(crc.compute(buffer, 16, 0)).isZero();
            }
        }
    }
}
