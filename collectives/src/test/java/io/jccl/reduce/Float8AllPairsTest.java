package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/** The 8-bit float kernels on all 65536 operand pairs, for each operation, against the {@link ReferenceModel}. */
class Float8AllPairsTest {
    private static final int PAIRS = 256 * 256;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (DataType type : new DataType[] {DataType.FLOAT8_E4M3, DataType.FLOAT8_E5M2}) {
            for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX,
                    ReduceOp.AVG, ReduceOp.preMulSum(0.75), ReduceOp.preMulSum(-1e20)}) {
                cases.add(Arguments.of(type, op));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void everyPairMatchesTheReference(DataType type, ReduceOp op) {
        Reducer reducer = Reducers.of(type, op, 3);
        ReferenceModel model = new ReferenceModel(type, op, 3);
        byte[] a = new byte[PAIRS];
        byte[] b = new byte[PAIRS];
        for (int i = 0; i < PAIRS; i++) {
            a[i] = (byte) (i >>> 8);
            b[i] = (byte) i;
        }
        byte[] dst = new byte[PAIRS];
        reducer.combineLocal(MemorySegment.ofArray(a), 0, MemorySegment.ofArray(b), 0, MemorySegment.ofArray(dst), 0,
                PAIRS, true);
        for (int i = 0; i < PAIRS; i++) {
            long x = a[i] & 0xFF;
            long y = b[i] & 0xFF;
            long expected = model.finish(model.combine(x, model.prepare(y)));
            if (!model.agrees(expected, dst[i] & 0xFF)) {
                fail(reducer + " on " + Elements.describe(type, x) + ", " + Elements.describe(type, y) + ": expected "
                        + Elements.describe(type, expected) + " but was " + Elements.describe(type, dst[i] & 0xFF));
            }
        }
    }
}
