package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scalar fallback against the SIMD kernels (which are checked against independent references elsewhere):
 * every type, operation, rank count and method, on random bits including NaN, infinities and subnormals,
 * at odd offsets. Results must be equal bit for bit, except that NaN payloads may differ (JCCL promises none).
 */
class ScalarReducerTest {
    private static final int COUNT = 517;

    @Test
    void scalarFallbackMatchesTheVectorKernelsBitForBit() {
        assertThat(Reducers.VECTOR_KERNELS).as("this test needs the Vector API module").isTrue();
        SplittableRandom random = new SplittableRandom(20261129);
        List<ReduceOp> ops = new ArrayList<>(List.of(ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX,
                ReduceOp.AVG, ReduceOp.preMulSum(3), ReduceOp.preMulSum(-2), ReduceOp.preMulSum(0.75)));
        try (Arena arena = Arena.ofConfined()) {
            for (DataType type : DataType.values()) {
                int es = type.sizeBytes();
                MemorySegment a = arena.allocate(COUNT * es + 3L).asSlice(1, (long) COUNT * es);
                MemorySegment b = arena.allocate(COUNT * es + 3L).asSlice(3, (long) COUNT * es);
                MemorySegment expected = arena.allocate((long) COUNT * es);
                MemorySegment actual = arena.allocate((long) COUNT * es);
                for (ReduceOp op : ops) {
                    if (op.unsupportedReason(type) != null) {
                        continue;
                    }
                    for (int n : new int[] {1, 3, 8}) {
                        Reducer vector = Reducers.of(type, op, n);
                        Reducer scalar = new ScalarReducer(type, op, n);
                        assertThat(scalar.needsPrepare()).isEqualTo(vector.needsPrepare());
                        assertThat(scalar.needsFinish()).isEqualTo(vector.needsFinish());
                        for (int round = 0; round < 4; round++) {
                            fill(a, random);
                            fill(b, random);
                            String what = type + " " + op + " n=" + n;
                            for (boolean fin : new boolean[] {false, true}) {
                                vector.combine(a, 0, b, 0, expected, 0, COUNT, fin);
                                scalar.combine(a, 0, b, 0, actual, 0, COUNT, fin);
                                same(type, expected, actual, what + " combine finish=" + fin);
                                vector.combineLocal(a, 0, b, 0, expected, 0, COUNT, fin);
                                scalar.combineLocal(a, 0, b, 0, actual, 0, COUNT, fin);
                                same(type, expected, actual, what + " combineLocal finish=" + fin);
                            }
                            vector.prepare(a, 0, expected, 0, COUNT);
                            scalar.prepare(a, 0, actual, 0, COUNT);
                            same(type, expected, actual, what + " prepare");
                            vector.finish(a, 0, expected, 0, COUNT);
                            scalar.finish(a, 0, actual, 0, COUNT);
                            same(type, expected, actual, what + " finish");
                        }
                    }
                }
            }
        }
    }

    private static long bits(MemorySegment s, long off, DataType type) {
        return switch (type.sizeBytes()) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, off) & 0xFF;
            case 2 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off) & 0xFFFF;
            case 4 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, off) & 0xFFFF_FFFFL;
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        };
    }

    private static boolean isNaN(DataType type, long bits) {
        return switch (type) {
            case FLOAT16 -> Float.isNaN(Float.float16ToFloat((short) bits));
            case BFLOAT16 -> Float.isNaN(BFloat16.toFloat((short) bits));
            case FLOAT8_E4M3 -> Float.isNaN(Float8E4M3.toFloat((byte) bits));
            case FLOAT8_E5M2 -> Float.isNaN(Float8E5M2.toFloat((byte) bits));
            default -> false;
        };
    }

    private static void fill(MemorySegment s, SplittableRandom random) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
    }

    private static void same(DataType type, MemorySegment expected, MemorySegment actual, String what) {
        for (int i = 0; i < COUNT; i++) {
            if (type == DataType.FLOAT32) {
                float e = expected.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                float g = actual.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                if (Float.isNaN(e) && Float.isNaN(g)) {
                    continue;
                }
                assertThat(Float.floatToRawIntBits(g)).as("%s element %d", what, i).isEqualTo(Float.floatToRawIntBits(e));
            } else if (type == DataType.FLOAT64) {
                double e = expected.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
                double g = actual.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
                if (Double.isNaN(e) && Double.isNaN(g)) {
                    continue;
                }
                assertThat(Double.doubleToRawLongBits(g)).as("%s element %d", what, i)
                        .isEqualTo(Double.doubleToRawLongBits(e));
            } else {
                long off = (long) i * type.sizeBytes();
                long e = bits(expected, off, type);
                long g = bits(actual, off, type);
                if (type.isFloatingPoint() && isNaN(type, e) && isNaN(type, g)) {
                    continue;
                }
                assertThat(g).as("%s element %d", what, i).isEqualTo(e);
            }
        }
    }
}
