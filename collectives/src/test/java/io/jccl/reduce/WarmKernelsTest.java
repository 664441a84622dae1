package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The kernels once the JIT has compiled them: a call allocates nothing (measured with
 * {@link com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes()}: an allocation count, not a timing),
 * and the compiled code (C2's Vector API intrinsics rather than the interpreter's boxing fallback) still matches
 * the {@link ReferenceModel}.
 *
 * <p>Before C2 has compiled a kernel, the Vector API boxes every vector, so each case calls its kernel in rounds
 * until one round allocates nothing, pausing between rounds so that a busy machine's compiler threads get to run;
 * only a kernel that never stops allocating fails. (Most cases need a few rounds; the pauses bound the wait.)
 */
class WarmKernelsTest {
    private static final int COUNT = 1027;
    private static final int CALLS_PER_ROUND = 100;
    /**
     * Rounds before giving up: about 20 s of pauses. On a busy machine, after other tests have queued many methods
     * for C2, a kernel's C2 compilation was seen to come 15 s after its C1 one; a kernel that never stops
     * allocating still fails.
     */
    private static final int MAX_ROUNDS = 2000;
    private static final long PAUSE_MILLIS = 10;

    /** How the three operands are stored. */
    enum Layout {
        /** Native memory at odd offsets: the vector path. */
        NATIVE,
        /** Heap arrays of the lane type (float[] for FLOAT32, short[] for FLOAT16...): the vector path. */
        LANE_ARRAYS,
        /** One operand in a long[] for a narrower type: the scalar path of a vector kernel. */
        FOREIGN_ARRAY
    }

    /**
     * Every type's SUM; every loop shape (combine, fused finish, finish, fused prepare, prepare, unsigned and
     * float MIN/MAX) for one type of each kernel family; heap arrays of the lane type; and foreign heap arrays
     * that send a vector kernel to its scalar loop.
     */
    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (DataType type : DataType.values()) {
            cases.add(Arguments.of(type, ReduceOp.SUM, ReducerKernelsTest.Variant.COMBINE, Layout.NATIVE));
        }
        for (DataType type : new DataType[] {DataType.UINT8, DataType.FLOAT32, DataType.INT64, DataType.BFLOAT16,
                DataType.FLOAT16, DataType.FLOAT8_E4M3}) {
            cases.add(Arguments.of(type, ReduceOp.MAX, ReducerKernelsTest.Variant.COMBINE, Layout.NATIVE));
            cases.add(Arguments.of(type, ReduceOp.AVG, ReducerKernelsTest.Variant.COMBINE_FINISH, Layout.NATIVE));
            cases.add(Arguments.of(type, ReduceOp.AVG, ReducerKernelsTest.Variant.FINISH, Layout.NATIVE));
            cases.add(Arguments.of(type, ReduceOp.preMulSum(3), ReducerKernelsTest.Variant.COMBINE_LOCAL,
                    Layout.NATIVE));
            cases.add(Arguments.of(type, ReduceOp.preMulSum(3), ReducerKernelsTest.Variant.PREPARE, Layout.NATIVE));
        }
        for (DataType type : new DataType[] {DataType.INT8, DataType.INT32, DataType.FLOAT64, DataType.FLOAT16}) {
            cases.add(Arguments.of(type, ReduceOp.PROD, ReducerKernelsTest.Variant.COMBINE, Layout.LANE_ARRAYS));
        }
        for (DataType type : new DataType[] {DataType.INT32, DataType.FLOAT32}) {
            cases.add(Arguments.of(type, ReduceOp.MIN, ReducerKernelsTest.Variant.COMBINE, Layout.FOREIGN_ARRAY));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @MethodSource("cases")
    void allocatesNothingOnceCompiledAndStaysCorrect(DataType type, ReduceOp op, ReducerKernelsTest.Variant variant,
                                                      Layout layout) throws InterruptedException {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Reducer reducer = Reducers.of(type, op, 3);
        ReferenceModel model = new ReferenceModel(type, op, 3);
        SplittableRandom random = new SplittableRandom(type.ordinal() * 7L + variant.ordinal());
        long[] a = TestData.operands(type, random, COUNT);
        long[] b = TestData.operands(type, random, COUNT);
        long size = (long) COUNT * type.sizeBytes();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment as;
            MemorySegment bs;
            MemorySegment ds;
            switch (layout) {
                case NATIVE -> {
                    as = arena.allocate(size + 3).asSlice(3);
                    bs = arena.allocate(size + 5).asSlice(5);
                    ds = arena.allocate(size + 7).asSlice(7);
                }
                case LANE_ARRAYS -> {
                    as = laneArray(type, size);
                    bs = laneArray(type, size);
                    ds = laneArray(type, size);
                }
                default -> {
                    as = arena.allocate(size);
                    bs = MemorySegment.ofArray(new long[(int) (size / 8) + 2]).asSlice(5, size);
                    ds = laneArray(type, size);
                }
            }

            long allocated = -1;
            int round = 0;
            for (; round < MAX_ROUNDS && allocated != 0; round++) {
                if (round > 0) {
                    Thread.sleep(PAUSE_MILLIS);
                }
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int call = 0; call < CALLS_PER_ROUND; call++) {
                    variant.run(reducer, as, 0, bs, 0, ds, 0, COUNT);
                }
                allocated = threads.getCurrentThreadAllocatedBytes() - before;
            }
            assertThat(allocated).as("bytes allocated by %d calls of %s %s on %s after %d rounds of warming up",
                    CALLS_PER_ROUND, reducer, variant, layout, round).isZero();

            Elements.write(type, as, 0, a, COUNT);
            Elements.write(type, bs, 0, b, COUNT);
            variant.run(reducer, as, 0, bs, 0, ds, 0, COUNT);
            for (int i = 0; i < COUNT; i++) {
                long expected = variant.expected(model, a[i], b[i]);
                long actual = Elements.get(type, ds, 0, i);
                if (!model.agrees(expected, actual)) {
                    fail(reducer + " " + variant + " " + layout + " (compiled), element " + i + ": expected "
                            + Elements.describe(type, expected) + " but was " + Elements.describe(type, actual));
                }
            }
        }
    }

    /** A heap segment over an array of the type's own lane type (what the vector loops compile for). */
    private static MemorySegment laneArray(DataType type, long sizeBytes) {
        int n = (int) (sizeBytes / type.sizeBytes());
        return switch (type) {
            case INT8, UINT8, FLOAT8_E4M3, FLOAT8_E5M2 -> MemorySegment.ofArray(new byte[n]);
            case FLOAT16, BFLOAT16 -> MemorySegment.ofArray(new short[n]);
            case INT32, UINT32 -> MemorySegment.ofArray(new int[n]);
            case INT64, UINT64 -> MemorySegment.ofArray(new long[n]);
            case FLOAT32 -> MemorySegment.ofArray(new float[n]);
            case FLOAT64 -> MemorySegment.ofArray(new double[n]);
        };
    }
}
