package io.jccl.metaroce.protocol.wire;

import java.util.SplittableRandom;

import org.agrona.MutableDirectBuffer;

/**
 * A quick, JMH-less timing of {@link Crc32c} per buffer kind and off-heap strategy (not a test: numbers from a shared
 * machine are indicative only). Run from the repository root after {@code ./mvnw -q -pl transport-metaroce -am
 * test-compile}:
 * <pre>
 * java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED --add-opens=java.base/java.util.zip=ALL-UNNAMED \
 *     --enable-native-access=ALL-UNNAMED \
 *     -cp "transport-metaroce/target/test-classes:transport-metaroce/target/classes:$HOME/.m2/repository/org/agrona/agrona/2.6.0/agrona-2.6.0.jar" \
 *     io.jccl.metaroce.protocol.wire.Crc32cTiming
 * </pre>
 */
final class Crc32cTiming {
    private static long sink;

    private Crc32cTiming() {
    }

    public static void main(String[] args) {
        final int[] sizes = {80, 1500, 4096, 65_000};
        final long measureNs = args.length > 0 ? Long.parseLong(args[0]) * 1_000_000L : 400_000_000L;
        System.out.printf("%-20s %-13s %8s %12s %10s%n", "buffer", "strategy", "bytes", "ns/call", "GB/s");
        for (BufferKind kind : BufferKind.values()) {
            for (Crc32c.OffHeapStrategy strategy : Crc32c.OffHeapStrategy.values()) {
                final boolean heap = kind == BufferKind.HEAP_ARRAY || kind == BufferKind.HEAP_BYTE_BUFFER;
                if (heap && strategy != Crc32c.OffHeapStrategy.INTRINSIC) {
                    continue; // heap buffers always take the array intrinsic
                }
                for (int size : sizes) {
                    final MutableDirectBuffer buffer = kind.allocate(size + 8);
                    final byte[] data = new byte[size + 8];
                    new SplittableRandom(size).nextBytes(data);
                    buffer.putBytes(0, data);
                    final Crc32c crc = new Crc32c(strategy);
                    time(crc, buffer, size, measureNs / 4); // warm up
                    final double nsPerCall = time(crc, buffer, size, measureNs);
                    System.out.printf("%-20s %-13s %8d %12.1f %10.2f%n", kind, heap ? "array" : strategy, size,
                            nsPerCall, size / nsPerCall);
                }
                final Crc32c slicing = new Crc32c(Crc32c.OffHeapStrategy.SLICING_BY_8);
                if (heap) {
                    // the pure-Java code on heap memory, for comparison
                    final MutableDirectBuffer buffer = kind.allocate(4104);
                    final long start = System.nanoTime();
                    long calls = 0;
                    while (System.nanoTime() - start < measureNs) {
                        sink += Crc32c.slicingBy8(buffer, 1, 4096);
                        calls++;
                    }
                    final double ns = (System.nanoTime() - start) / (double) calls;
                    System.out.printf("%-20s %-13s %8d %12.1f %10.2f%n", kind, "(slicing-by-8)", 4096, ns, 4096 / ns);
                    sink += slicing.hashCode();
                }
            }
        }
        if (sink == 42) {
            System.out.println();
        }
    }

    private static double time(Crc32c crc, MutableDirectBuffer buffer, int size, long durationNs) {
        final long start = System.nanoTime();
        long calls = 0;
        long now;
        do {
            for (int i = 0; i < 256; i++) {
                sink += crc.compute(buffer, 1, size);
            }
            calls += 256;
            now = System.nanoTime();
        } while (now - start < durationNs);
        return (now - start) / (double) calls;
    }
}
