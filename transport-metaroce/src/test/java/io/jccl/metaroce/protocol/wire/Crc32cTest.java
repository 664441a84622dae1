package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import net.jqwik.api.Assume;
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

    /** @return the strategies this JVM can run: all but NATIVE where the build packaged no library */
    private static List<Crc32c.OffHeapStrategy> usable() {
        return Arrays.stream(Crc32c.OffHeapStrategy.values())
                .filter(s -> s != Crc32c.OffHeapStrategy.NATIVE || NativeCrc32c.available()).toList();
    }

    private static void assumeUsable(Crc32c.OffHeapStrategy strategy) {
        Assume.that(usable().contains(strategy));
    }

    @Test
    void theNativeCrcIsPreferredWhereTheBuildPackagedItElseTheIntrinsic() {
        // The surefire JVM gets --add-opens=java.base/java.util.zip=ALL-UNNAMED and native access from jccl.jvmFlags.
        assertThat(new Crc32c(Crc32c.OffHeapStrategy.INTRINSIC).updatesAddresses()).isTrue();
        if (NativeCrc32c.packaged()) {
            assertThat(NativeCrc32c.available()).as("packaged, so it must load and agree with the JDK").isTrue();
            assertThat(Crc32c.bestOffHeapStrategy()).isEqualTo(Crc32c.OffHeapStrategy.NATIVE);
            assertThat(new Crc32c().offHeapStrategy()).isEqualTo(Crc32c.OffHeapStrategy.NATIVE);
        } else {
            assertThat(NativeCrc32c.available()).isFalse();
            assertThat(Crc32c.bestOffHeapStrategy()).isEqualTo(Crc32c.OffHeapStrategy.INTRINSIC);
            assertThatThrownBy(() -> new Crc32c(Crc32c.OffHeapStrategy.NATIVE))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("native CRC32C is unavailable");
        }
    }

    @Test
    void aBuildOnLinuxX86WithACompilerPackagesTheNativeCrc() {
        String arch = System.getProperty("os.arch");
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").equals("Linux")
                && (arch.equals("amd64") || arch.equals("x86_64")), "the native CRC32C is built for Linux x86-64 only");
        org.junit.jupiter.api.Assumptions.assumeTrue(compilerOnThePath(),
                "no gcc on the PATH: the build warned and packaged no native CRC32C");
        assertThat(NativeCrc32c.packaged()).as(NativeCrc32c.RESOURCE).isTrue();
    }

    private static boolean compilerOnThePath() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, "gcc"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Packet sizes across the native CRC's paths (folding from 256 bytes, crc32 streams beside from 2 KiB, and
     * MetaRoCE's 4,164- and 65,064-byte packets) at every offset modulo 64, continued in two pieces too.
     */
    @Property(tries = 200)
    void theNativeCrcMatchesTheJdkOnPacketSizes(@ForAll @IntRange(max = 70_000) int length,
                                                @ForAll @IntRange(max = 63) int offset,
                                                @ForAll @IntRange(max = 70_000) int split, @ForAll long seed) {
        Assume.that(NativeCrc32c.available());
        final byte[] data = new byte[offset + length];
        new SplittableRandom(seed).nextBytes(data);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            final java.lang.foreign.MemorySegment segment = arena.allocate(data.length + 1L, 64);
            java.lang.foreign.MemorySegment.copy(data, 0, segment, java.lang.foreign.ValueLayout.JAVA_BYTE, 0,
                    data.length);
            final Crc32c crc = new Crc32c(Crc32c.OffHeapStrategy.NATIVE);
            final int expected = reference(data, offset, length);
            assertThat(crc.compute(new UnsafeBuffer(segment.address(), data.length), offset, length))
                    .isEqualTo(expected);
            final int first = Math.min(split, length);
            final int state = crc.update(Crc32c.START, segment.address() + offset, first);
            assertThat(Crc32c.end(crc.update(state, segment.address() + offset + first, length - first)))
                    .isEqualTo(expected);
        }
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
            int from = 0;
            for (int p = 0; p < 3; p++) {
                java.lang.foreign.MemorySegment.copy(data, from, pieces[p], java.lang.foreign.ValueLayout.JAVA_BYTE,
                        1, lengths[p]);
                from += lengths[p];
            }
            for (Crc32c.OffHeapStrategy strategy : usable()) {
                final Crc32c crc = new Crc32c(strategy);
                if (!crc.updatesAddresses()) {
                    continue;
                }
                int state = Crc32c.START;
                for (int p = 0; p < 3; p++) {
                    state = crc.update(state, pieces[p].address() + 1, lengths[p]);
                }
                assertThat(Crc32c.end(state)).as("%s", strategy).isEqualTo(reference(data, 0, data.length));
            }
        }
    }

    @Test
    void onlyTheNativeCrcAndTheIntrinsicContinueOverAddresses() {
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
        org.junit.jupiter.api.Assumptions.assumeTrue(usable().contains(strategy), strategy + " is not loaded here");
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
        assumeUsable(strategy);
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
        for (Crc32c.OffHeapStrategy strategy : usable()) {
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
            for (Crc32c.OffHeapStrategy strategy : usable()) {
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
            for (Crc32c.OffHeapStrategy strategy : usable()) {
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
