package io.jccl.metaroce.protocol.wire;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes the seed corpus of {@link WirePacketFuzzTest} (not a test). Regenerate after a change of the wire format,
 * from the repository root:
 * <pre>
 * ./mvnw -q -pl transport-metaroce -am test-compile
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED --add-opens=java.base/java.util.zip=ALL-UNNAMED \
 *     -cp "transport-metaroce/target/test-classes:transport-metaroce/target/classes:$HOME/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar" \
 *     io.jccl.metaroce.protocol.wire.FuzzSeeds transport-metaroce/src/test/resources/io/jccl/metaroce/protocol/wire/WirePacketFuzzTestInputs/datagram
 * </pre>
 * Files named {@code valid-*} hold datagrams the validator accepts ({@code FuzzSeedCorpusTest} checks that they
 * still do); {@code invalid-*} ones are near misses.
 */
final class FuzzSeeds {
    private FuzzSeeds() {
    }

    public static void main(String[] args) throws IOException {
        final Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        final SplittableRandom random = new SplittableRandom(2026);
        final Packets packets = new Packets();
        // control bytes: heap at 0 as is; direct ByteBuffer at 2; address at 1 with the CRC recomputed; heap
        // ByteBuffer at 5 with frame and CRC repaired
        final int[] controls = {0x00, 0x02 | (2 << 2), 0x03 | (1 << 2) | WireFuzzHarness.FIX_CRC,
                0x01 | (5 << 2) | WireFuzzHarness.FIX_CRC | WireFuzzHarness.FIX_FRAME};
        for (int type : Packets.TYPES) {
            for (int control : controls) {
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[200]);
                final int length = packets.write(type, buffer, 1, 24, random);
                buffer.putByte(0, (byte) control);
                write(dir, String.format("valid-%s-%02x", PacketType.name(type).toLowerCase(java.util.Locale.ROOT),
                        control), buffer, length + 1);
            }
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[200]);
        final int length = packets.write(PacketType.ACK, buffer, 1, 0, random);
        buffer.putByte(0, (byte) 0);
        buffer.putByte(30, (byte) (buffer.getByte(30) ^ 4));
        write(dir, "invalid-ack-bad-crc", buffer, length + 1);
        write(dir, "invalid-ack-truncated", buffer, 30);
        write(dir, "invalid-header-only", buffer, 21);
    }

    private static void write(Path dir, String name, UnsafeBuffer buffer, int length) throws IOException {
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        Files.write(dir.resolve(name), bytes);
    }
}
