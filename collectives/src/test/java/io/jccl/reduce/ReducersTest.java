package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Reducers#of}'s validation and flags, and the argument checks every reducer call makes. */
class ReducersTest {

    @Test
    void rejectsNullsAndRankCountsBelowOne() {
        assertThatThrownBy(() -> Reducers.of(null, ReduceOp.SUM, 2)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Reducers.of(DataType.INT32, null, 2)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Reducers.of(DataType.INT32, ReduceOp.SUM, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nRanks");
        assertThatThrownBy(() -> Reducers.of(DataType.INT32, ReduceOp.AVG, -3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsScalarsTheIntegerTypeCannotHoldWithTheOpsReason() {
        for (var bad : new Object[][] {{DataType.INT32, 0.5}, {DataType.INT8, 128.0}, {DataType.UINT8, -1.0},
                {DataType.UINT32, 4294967296.0}, {DataType.INT64, Double.NaN}, {DataType.UINT64, -1.0}}) {
            DataType type = (DataType) bad[0];
            ReduceOp op = ReduceOp.preMulSum((Double) bad[1]);
            assertThatThrownBy(() -> Reducers.of(type, op, 2)).as("%s %s", type, op)
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(op.unsupportedReason(type));
        }
        assertThat(Reducers.of(DataType.FLOAT16, ReduceOp.preMulSum(0.5), 2).needsPrepare()).isTrue();
        assertThat(Reducers.of(DataType.INT8, ReduceOp.preMulSum(-128), 2).needsPrepare()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void needsPrepareOnlyForPreMulSumWithAScalarOtherThanOne(DataType type) {
        assertThat(Reducers.of(type, ReduceOp.preMulSum(1), 4).needsPrepare()).isFalse();
        assertThat(Reducers.of(type, ReduceOp.preMulSum(3), 4).needsPrepare()).isTrue();
        assertThat(Reducers.of(type, ReduceOp.preMulSum(0), 4).needsPrepare()).isTrue();
        for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.AVG}) {
            Reducer reducer = Reducers.of(type, op, 4);
            assertThat(reducer.needsPrepare()).isFalse();
            assertThat(reducer.needsFinish()).isEqualTo(op == ReduceOp.AVG);
            assertThat(reducer.type()).isEqualTo(type);
            assertThat(reducer.op()).isEqualTo(op);
        }
        assertThat(Reducers.of(type, ReduceOp.AVG, 1).needsFinish()).isFalse();
        assertThat(Reducers.of(type, ReduceOp.AVG, 2).needsFinish()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void prepareAndFinishCopyBitsExactlyWhenNotNeeded(DataType type) {
        MemorySegment src = MemorySegment.ofArray(new long[] {0x7FF8_0000_0001_2345L, 0xFFC0_1234_7F80_0001L});
        for (Reducer reducer : new Reducer[] {Reducers.of(type, ReduceOp.SUM, 3), Reducers.of(type, ReduceOp.AVG, 1),
                Reducers.of(type, ReduceOp.preMulSum(1), 3)}) {
            MemorySegment dst = MemorySegment.ofArray(new byte[16]);
            long count = 16 / type.sizeBytes();
            reducer.prepare(src, 0, dst, 0, count);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
            dst.fill((byte) 0);
            reducer.finish(src, 0, dst, 0, count);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
        }
    }

    @Test
    void checksCallArgumentsBeforeWriting() {
        Reducer reducer = Reducers.of(DataType.FLOAT32, ReduceOp.SUM, 2);
        MemorySegment a = MemorySegment.ofArray(new float[] {1, 2, 3, 4});
        MemorySegment b = MemorySegment.ofArray(new float[] {1, 2, 3, 4});
        MemorySegment dst = MemorySegment.ofArray(new float[] {9, 9, 9, 9, 9});

        assertThatThrownBy(() -> reducer.combine(a, 0, b, 0, dst, 0, -1, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> reducer.combine(a, 0, b, 0, dst, 0, 5, false))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> reducer.combine(a, 0, b, 4, dst, 0, 4, false))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> reducer.combineLocal(a, 0, b, 0, dst, 8, 4, false))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> reducer.combine(a, -4, b, 0, dst, 0, 1, false))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> reducer.prepare(a, 0, dst, 0, Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> reducer.finish(a, 0, a.asReadOnly(), 0, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
        assertThatThrownBy(() -> reducer.combine(null, 0, b, 0, dst, 0, 1, false))
                .isInstanceOf(NullPointerException.class);
        assertThat(dst.toArray(ValueLayout.JAVA_FLOAT)).containsOnly(9f);

        reducer.combine(a, 16, b, 16, dst, 20, 0, true);
        reducer.combine(a.asReadOnly(), 0, b.asReadOnly(), 0, dst, 4, 4, false);
        assertThat(dst.toArray(ValueLayout.JAVA_FLOAT)).containsExactly(9f, 2f, 4f, 6f, 8f);
    }
}
