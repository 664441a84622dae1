package io.jccl.reduce;

import io.jccl.ReduceOp;

import java.math.BigDecimal;

/**
 * What a type's kernels need to know about the operation, decided once in {@link Reducers#of}.
 *
 * @param kind the operation kind
 * @param prepare true when the prepare step changes values (pre-mul-sum, scalar other than 1)
 * @param finish true when the finish step changes values (AVG over more than one rank)
 * @param scalar the pre-mul-sum scalar
 * @param nRanks the rank count AVG divides by
 */
record OpSpec(ReduceOp.Kind kind, boolean prepare, boolean finish, double scalar, int nRanks) {

    /**
     * @param op the operation
     * @param nRanks the number of ranks reduced over
     * @return the spec: prepare for a pre-mul-sum whose scalar is not 1, finish for AVG over more than one rank
     */
    static OpSpec of(ReduceOp op, int nRanks) {
        boolean prepare = op.kind() == ReduceOp.Kind.PRE_MUL_SUM && op.scalar() != 1;
        boolean finish = op.kind() == ReduceOp.Kind.AVG && nRanks > 1;
        return new OpSpec(op.kind(), prepare, finish, op.scalar(), nRanks);
    }

    /**
     * The scalar as an integer multiplier modulo 2<sup>64</sup>: the low bits give the wrap-around product for
     * every integer width, also for whole numbers beyond {@code Long.MAX_VALUE} (UINT64 scalars).
     *
     * @return the scalar's low 64 bits in two's complement
     */
    long wrappedIntegerScalar() {
        return new BigDecimal(scalar).toBigInteger().longValue();
    }
}
