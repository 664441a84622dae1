package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every (type, operation) — AVG over 1 to 8 ranks and pre-mul-sum with several scalars included — against the
 * independent {@link ReferenceModel}: all counts 0..300 (every vector tail) and a few large ones, at odd byte
 * offsets, on native segments and heap segments of every primitive array type, in place ({@code dst == a},
 * {@code dst == b}) and not, through each of combine, combine+finish, combineLocal, combineLocal+finish, prepare
 * and finish (all six up to count 70, two chosen at random per count above; the large counts through combine and
 * the fully fused combineLocal). Also checks that nothing outside {@code dst}'s range is written and that the
 * inputs are left alone.
 */
class ReducerKernelsTest {
    private static final int SMALL_COUNTS = 300;
    /** Up to this count every variant runs (every tail of a 64-lane byte vector); above it two random ones. */
    private static final int EVERY_VARIANT_COUNTS = 70;
    private static final int[] LARGE_COUNTS = {1021, 4099};
    private static final int DATA_LENGTH = 4099;
    private static final long[] OFFSETS = {0, 1, 2, 3, 5, 7, 8, 13, 64, 67};
    /** Bytes after each operand that must stay untouched. */
    private static final int GUARD_BYTES = 24;

    /** One of the six ways to run a reducer. */
    enum Variant {
        COMBINE(true), COMBINE_FINISH(true), COMBINE_LOCAL(true), COMBINE_LOCAL_FINISH(true), PREPARE(false),
        FINISH(false);

        final boolean binary;

        Variant(boolean binary) {
            this.binary = binary;
        }

        long expected(ReferenceModel model, long a, long b) {
            return switch (this) {
                case COMBINE -> model.combine(a, b);
                case COMBINE_FINISH -> model.finish(model.combine(a, b));
                case COMBINE_LOCAL -> model.combine(a, model.prepare(b));
                case COMBINE_LOCAL_FINISH -> model.finish(model.combine(a, model.prepare(b)));
                case PREPARE -> model.prepare(a);
                case FINISH -> model.finish(a);
            };
        }

        void run(Reducer reducer, MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment d, long dOff,
                 long count) {
            switch (this) {
                case COMBINE -> reducer.combine(a, aOff, b, bOff, d, dOff, count, false);
                case COMBINE_FINISH -> reducer.combine(a, aOff, b, bOff, d, dOff, count, true);
                case COMBINE_LOCAL -> reducer.combineLocal(a, aOff, b, bOff, d, dOff, count, false);
                case COMBINE_LOCAL_FINISH -> reducer.combineLocal(a, aOff, b, bOff, d, dOff, count, true);
                case PREPARE -> reducer.prepare(a, aOff, d, dOff, count);
                case FINISH -> reducer.finish(a, aOff, d, dOff, count);
            }
        }
    }

    /** Which input, if any, {@code dst} is. */
    enum InPlace { NONE, DST_IS_A, DST_IS_B }

    static Stream<Arguments> configurations() {
        List<Arguments> configurations = new ArrayList<>();
        for (DataType type : DataType.values()) {
            for (ReduceOp op : List.of(ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX)) {
                configurations.add(Arguments.of(type, op, 4));
            }
            for (int nRanks = 1; nRanks <= 8; nRanks++) {
                configurations.add(Arguments.of(type, ReduceOp.AVG, nRanks));
            }
            for (double scalar : scalars(type)) {
                configurations.add(Arguments.of(type, ReduceOp.preMulSum(scalar), 3));
            }
        }
        return configurations.stream();
    }

    private static double[] scalars(DataType type) {
        if (type.isFloatingPoint()) {
            return new double[] {1, 0.5, -3, 0.1, 1e30, -0.0, Double.POSITIVE_INFINITY};
        }
        return switch (type) {
            case INT8 -> new double[] {1, 0, 3, -1, -128, 127};
            case UINT8 -> new double[] {1, 0, 3, 255};
            case INT32 -> new double[] {1, 0, 3, -7, Integer.MIN_VALUE, Integer.MAX_VALUE};
            case UINT32 -> new double[] {1, 0, 3, 4294967295.0};
            case INT64 -> new double[] {1, 0, 3, -7, 0x1p62, -0x1p63};
            default -> new double[] {1, 0, 3, 1e19, 0x1p63 + 0x1p11};
        };
    }

    @ParameterizedTest(name = "{0} {1} nRanks={2}")
    @MethodSource("configurations")
    void matchesReferenceModel(DataType type, ReduceOp op, int nRanks) {
        Reducer reducer = Reducers.of(type, op, nRanks);
        ReferenceModel model = new ReferenceModel(type, op, nRanks);
        SplittableRandom random = new SplittableRandom(type.ordinal() * 1000L + op.hashCode() * 31L + nRanks);
        long[] a = TestData.operands(type, random, DATA_LENGTH);
        long[] b = TestData.operands(type, random, DATA_LENGTH);
        Expected expected = new Expected(model, a, b);
        try (Arena arena = Arena.ofConfined()) {
            Pool pool = new Pool(arena, (long) DATA_LENGTH * type.sizeBytes() + OFFSETS[OFFSETS.length - 1]
                    + GUARD_BYTES, random);
            Variant[] variants = Variant.values();
            for (int count = 0; count <= SMALL_COUNTS; count++) {
                if (count <= EVERY_VARIANT_COUNTS) {
                    for (Variant variant : variants) {
                        runAndCheck(reducer, model, variant, a, b, expected, count, pool, random);
                    }
                } else {
                    for (int i = 0; i < 2; i++) {
                        Variant variant = variants[random.nextInt(variants.length)];
                        runAndCheck(reducer, model, variant, a, b, expected, count, pool, random);
                    }
                }
            }
            for (int count : LARGE_COUNTS) {
                for (Variant variant : new Variant[] {Variant.COMBINE, Variant.COMBINE_LOCAL_FINISH}) {
                    runAndCheck(reducer, model, variant, a, b, expected, count, pool, random);
                }
            }
        }
    }

    /** The model's results, computed on first use: the large counts only need two of the variants. */
    private static final class Expected {
        private final ReferenceModel model;
        private final long[] a;
        private final long[] b;
        private final long[][] values = new long[Variant.values().length][];
        private final int[] computed = new int[Variant.values().length];

        Expected(ReferenceModel model, long[] a, long[] b) {
            this.model = model;
            this.a = a;
            this.b = b;
        }

        long[] upTo(Variant variant, int count) {
            int v = variant.ordinal();
            if (values[v] == null) {
                values[v] = new long[a.length];
            }
            for (int i = computed[v]; i < count; i++) {
                values[v][i] = variant.expected(model, a[i], b[i]);
            }
            computed[v] = Math.max(computed[v], count);
            return values[v];
        }
    }

    /**
     * Reusable segments: three per backing (for a, b and dst), each used through a slice just long enough, and a
     * block of random bytes to refill a slice with before each run, so writes outside the range show.
     */
    private static final class Pool {
        private final MemorySegment[][] segments;
        private final MemorySegment noise;
        private final MemorySegment snapshot;

        Pool(Arena arena, long sizeBytes, SplittableRandom random) {
            TestData.Backing[] backings = TestData.Backing.values();
            segments = new MemorySegment[backings.length][3];
            for (TestData.Backing backing : backings) {
                for (int role = 0; role < 3; role++) {
                    segments[backing.ordinal()][role] = TestData.segment(backing, sizeBytes, arena, random);
                }
            }
            noise = TestData.segment(TestData.Backing.NATIVE, sizeBytes, arena, random);
            snapshot = arena.allocate(3 * sizeBytes);
        }

        /**
         * A slice of {@code sizeBytes} bytes for {@code role} (0 a, 1 b, 2 dst), filled with random bytes.
         *
         * @param vectorBacking native memory or the array type the type's vector loop compiles for, else null
         *        for any backing
         */
        MemorySegment take(SplittableRandom random, int role, long sizeBytes, TestData.Backing vectorBacking) {
            TestData.Backing[] backings = TestData.Backing.values();
            TestData.Backing backing = vectorBacking != null ? vectorBacking
                    : backings[random.nextInt(backings.length)];
            MemorySegment slice = segments[backing.ordinal()][role].asSlice(0, sizeBytes);
            MemorySegment.copy(noise, random.nextInt(8), slice, 0, sizeBytes - 8);
            return slice;
        }

        /** Copies {@code segment} into the snapshot area for {@code role}. */
        void save(int role, MemorySegment segment) {
            MemorySegment.copy(segment, 0, snapshot, role * (snapshot.byteSize() / 3), segment.byteSize());
        }

        /** @return the first byte outside [from, from + length) that differs from the saved copy, or -1 */
        long changedOutside(int role, MemorySegment segment, long from, long length) {
            long base = role * (snapshot.byteSize() / 3);
            long end = segment.byteSize();
            long before = MemorySegment.mismatch(segment, 0, from, snapshot, base, base + from);
            if (before >= 0) {
                return before;
            }
            long after = MemorySegment.mismatch(segment, from + length, end, snapshot, base + from + length,
                    base + end);
            return after < 0 ? -1 : from + length + after;
        }
    }

    private static void runAndCheck(Reducer reducer, ReferenceModel model, Variant variant, long[] a, long[] b,
                                    Expected expectedValues, int count, Pool pool, SplittableRandom random) {
        DataType type = reducer.type();
        long[] expected = expectedValues.upTo(variant, count);
        long bytes = (long) count * type.sizeBytes();
        long aOff = OFFSETS[random.nextInt(OFFSETS.length)];
        long bOff = OFFSETS[random.nextInt(OFFSETS.length)];
        long dOff = OFFSETS[random.nextInt(OFFSETS.length)];
        // Mostly backings the vector loops take (native, or arrays of the lane type), else any: the vector kernels
        // send the others to their scalar loops.
        boolean vectorPath = random.nextInt(4) != 0;
        MemorySegment as = pool.take(random, 0, aOff + bytes + GUARD_BYTES, vectorBacking(type, vectorPath, random));
        MemorySegment bs = pool.take(random, 1, bOff + bytes + GUARD_BYTES, vectorBacking(type, vectorPath, random));
        Elements.write(type, as, aOff, a, count);
        Elements.write(type, bs, bOff, b, count);
        InPlace inPlace = InPlace.values()[random.nextInt(3)];
        if (!variant.binary && inPlace == InPlace.DST_IS_B) {
            inPlace = InPlace.NONE;
        }
        MemorySegment ds;
        switch (inPlace) {
            case DST_IS_A -> {
                ds = as;
                dOff = aOff;
            }
            case DST_IS_B -> {
                ds = bs;
                dOff = bOff;
            }
            default -> ds = pool.take(random, 2, dOff + bytes + GUARD_BYTES, vectorBacking(type, vectorPath, random));
        }
        pool.save(0, as);
        pool.save(1, bs);
        pool.save(2, ds);

        variant.run(reducer, as, aOff, bs, bOff, ds, dOff, count);

        for (int i = 0; i < count; i++) {
            long actual = Elements.get(type, ds, dOff, i);
            if (!model.agrees(expected[i], actual)) {
                fail(where(reducer, variant, count, aOff, bOff, dOff, inPlace, as, bs, ds) + ": element " + i
                        + " of a=" + Elements.describe(type, a[i]) + " b=" + Elements.describe(type, b[i])
                        + " expected " + Elements.describe(type, expected[i]) + " but was "
                        + Elements.describe(type, actual));
            }
        }
        long changed = pool.changedOutside(2, ds, dOff, bytes);
        if (changed >= 0) {
            fail(where(reducer, variant, count, aOff, bOff, dOff, inPlace, as, bs, ds)
                    + ": dst written outside its range, byte " + changed);
        }
        if (as != ds && pool.changedOutside(0, as, 0, 0) >= 0) {
            fail(where(reducer, variant, count, aOff, bOff, dOff, inPlace, as, bs, ds) + ": input a changed");
        }
        if (bs != ds && pool.changedOutside(1, bs, 0, 0) >= 0) {
            fail(where(reducer, variant, count, aOff, bOff, dOff, inPlace, as, bs, ds) + ": input b changed");
        }
    }

    /** Native or the lane-type array at random when {@code vectorPath}, else null (any backing). */
    private static TestData.Backing vectorBacking(DataType type, boolean vectorPath, SplittableRandom random) {
        if (!vectorPath) {
            return null;
        }
        if (random.nextBoolean()) {
            return TestData.Backing.NATIVE;
        }
        return switch (type) {
            case INT8, UINT8, FLOAT8_E4M3, FLOAT8_E5M2 -> TestData.Backing.BYTES;
            case FLOAT16, BFLOAT16 -> TestData.Backing.SHORTS;
            case INT32, UINT32 -> TestData.Backing.INTS;
            case INT64, UINT64 -> TestData.Backing.LONGS;
            case FLOAT32 -> TestData.Backing.FLOATS;
            case FLOAT64 -> TestData.Backing.DOUBLES;
        };
    }

    private static String where(Reducer reducer, Variant variant, int count, long aOff, long bOff, long dOff,
                                InPlace inPlace, MemorySegment as, MemorySegment bs, MemorySegment ds) {
        return reducer + " " + variant + " count=" + count + " offsets a=" + aOff + " b=" + bOff + " dst=" + dOff
                + " " + inPlace + " backings " + describe(as) + "/" + describe(bs) + "/" + describe(ds);
    }

    private static String describe(MemorySegment segment) {
        return segment.isNative() ? "native" : segment.heapBase().map(o -> o.getClass().getSimpleName()).orElse("?");
    }
}
