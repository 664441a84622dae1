package io.jccl.plan;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a mismatch message says about two calls' tags: only fields both calls have, in the API's words. */
class FingerprintTest {
    private static final ReduceOp SUM = ReduceOp.SUM;

    @Test
    void aKindMismatchWithAnOperationWithoutRootDoesNotMentionRoot() {
        long allReduce = Fingerprint.tag(OpKind.ALL_REDUCE, 7, 1000, DataType.FLOAT32, SUM, -1);
        long broadcast = Fingerprint.tag(OpKind.BROADCAST, 7, 1000, DataType.FLOAT32, null, 0);
        assertThat(Fingerprint.difference(allReduce, broadcast)).isEqualTo("operation allReduce vs broadcast, "
                + "reduction sum vs none");
        assertThat(Fingerprint.difference(broadcast, allReduce)).isEqualTo("operation broadcast vs allReduce, "
                + "reduction none vs sum");
        assertThat(Fingerprint.describe(allReduce)).isEqualTo("allReduce(count=1000, FLOAT32, sum) call #7 (mod 256)");
    }

    @Test
    void rootsAreComparedWhenBothCallsHaveOne() {
        long reduceAt0 = Fingerprint.tag(OpKind.REDUCE, 3, 10, DataType.INT32, SUM, 0);
        long reduceAt1 = Fingerprint.tag(OpKind.REDUCE, 3, 10, DataType.INT32, SUM, 1);
        long broadcastAt2 = Fingerprint.tag(OpKind.BROADCAST, 3, 10, DataType.INT32, null, 2);
        assertThat(Fingerprint.difference(reduceAt0, reduceAt1)).isEqualTo("root 0 vs 1");
        assertThat(Fingerprint.difference(reduceAt0, broadcastAt2)).isEqualTo("operation reduce vs broadcast, "
                + "reduction sum vs none, root 0 vs 2");
    }

    @Test
    void otherFieldsAreNamedAsBefore() {
        long a = Fingerprint.tag(OpKind.ALL_REDUCE, 7, 1000, DataType.FLOAT32, SUM, -1);
        long b = Fingerprint.tag(OpKind.ALL_REDUCE, 8, 1001, DataType.FLOAT64, ReduceOp.MAX, -1);
        assertThat(Fingerprint.difference(a, b)).isEqualTo("type FLOAT32 vs FLOAT64, reduction sum vs max, "
                + "call number 7 vs 8, count 1000 vs 1001");
        assertThat(Fingerprint.difference(a, a)).isEqualTo("no difference");
    }
}
