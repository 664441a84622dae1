package io.jccl.metaroce.protocol.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;

import io.jccl.metaroce.protocol.DropReason;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Properties of {@link PacketValidator} over random valid packets: corruption is always caught, truncation always
 * dropped, and nothing ever throws.
 */
class PacketValidatorPropertiesTest {
    /**
     * Fields checked before the CRC: magic, version, type, body length, and the flags (a data packet's IMMEDIATE flag
     * says 4 bytes of its body are the immediate, which the length check counts: a flipped IMMEDIATE bit can fail
     * that check first).
     */
    private static boolean checkedBeforeCrc(int byteIndex) {
        return byteIndex <= HeaderFlyweight.FLAGS_FIELD_OFFSET || byteIndex == 16 || byteIndex == 17;
    }

    @Provide
    Arbitrary<Integer> types() {
        return Arbitraries.of(0, 1, 2, 3, 4, 5, 6, 7, 8).map(i -> Packets.TYPES[i]);
    }

    private static int payloadFor(int type, int payload) {
        return PacketType.isData(type) ? payload : 0;
    }

    /**
     * Flipping 1 to 3 distinct bits anywhere in a valid packet is always caught: CRC-32C detects every error of up to
     * 3 bits in messages this short (Hamming distance 4 up to 2³¹ bits), and the fields checked before the CRC
     * either fail their own check or make the length mismatch.
     */
    @Property(tries = 3000)
    void bitFlipsAreAlwaysRejected(@ForAll("types") int type, @ForAll @IntRange(min = 1, max = 3000) int payload,
                                   @ForAll BufferKind kind, @ForAll @IntRange(max = 9) int offset,
                                   @ForAll @Size(min = 1, max = 3) java.util.Set<@IntRange(max = 1 << 20) Integer> bits,
                                   @ForAll long seed) {
        final int frame = Packets.frameLength(type, payloadFor(type, payload));
        final MutableDirectBuffer buffer = kind.allocate(offset + frame);
        final Packets packets = new Packets();
        final int length = packets.write(type, buffer, offset, payloadFor(type, payload), new SplittableRandom(seed));
        final PacketValidator validator = new PacketValidator();
        assertThat(validator.check(buffer, offset, length)).isNull();

        boolean onlyAfterTheEarlyFields = true;
        final java.util.Set<Integer> flipped = new java.util.HashSet<>();
        for (int bit : bits) {
            flipped.add(bit % (length * 8));
        }
        for (int bit : flipped) {
            final int at = offset + bit / 8;
            buffer.putByte(at, (byte) (buffer.getByte(at) ^ (1 << (bit % 8))));
            onlyAfterTheEarlyFields &= !checkedBeforeCrc(bit / 8);
        }
        final DropReason reason = validator.check(buffer, offset, length);
        assertThat(reason).as("flipped bits %s of %d", flipped, length).isNotNull();
        if (onlyAfterTheEarlyFields) {
            assertThat(reason).isEqualTo(DropReason.BAD_CRC);
        }

        // With the CRC recomputed the corruption is no longer a CRC failure (it may be valid, or a bad field).
        packets.refreshCrc(buffer, offset, length);
        final DropReason afterRefresh = validator.check(buffer, offset, length);
        assertThat(afterRefresh).isNotEqualTo(DropReason.BAD_CRC);
        if (onlyAfterTheEarlyFields) {
            assertThat(afterRefresh).isIn(null, DropReason.BAD_FIELD);
        }
    }

    @Property(tries = 200)
    void truncationAtEveryLengthIsRejected(@ForAll("types") int type, @ForAll @IntRange(min = 1, max = 200) int payload,
                                           @ForAll BufferKind kind, @ForAll long seed) {
        final int frame = Packets.frameLength(type, payloadFor(type, payload));
        final MutableDirectBuffer buffer = kind.allocate(frame);
        final int length = new Packets().write(type, buffer, 0, payloadFor(type, payload), new SplittableRandom(seed));
        final PacketValidator validator = new PacketValidator();
        for (int n = 0; n < length; n++) {
            assertThat(validator.check(buffer, 0, n)).as("%d of %d bytes", n, length)
                    .isIn(DropReason.TRUNCATED, DropReason.BAD_LENGTH);
        }
        assertThat(validator.check(buffer, 0, length)).isNull();
    }

    @Property(tries = 2000)
    void arbitraryBytesNeverThrow(@ForAll @Size(max = 200) byte[] bytes, @ForAll @IntRange(min = -3, max = 250) int offset,
                                  @ForAll @IntRange(min = -3, max = 250) int length, @ForAll boolean magic) {
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        if (magic && bytes.length >= 4) {
            // Steer some inputs past the first checks.
            buffer.putShort(0, (short) HeaderFlyweight.MAGIC, HeaderFlyweight.BYTE_ORDER);
            buffer.putByte(2, (byte) 1);
        }
        final DropReason reason = new PacketValidator().check(buffer, offset, length);
        if (offset < 0 || length < 0 || (long) offset + length > bytes.length) {
            assertThat(reason).isEqualTo(DropReason.TRUNCATED);
        }
    }
}
