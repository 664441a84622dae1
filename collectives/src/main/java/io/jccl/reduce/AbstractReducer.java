package io.jccl.reduce;

import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * What every {@link Reducer} holds alike: its type, its operation, and the {@link OpSpec} that says whether inputs
 * need preparing and results finishing. Subclasses supply the loops.
 */
abstract class AbstractReducer implements Reducer {
    /** The element type. */
    final DataType type;
    /** The operation. */
    final ReduceOp op;
    /** The operation as the loops need it. */
    final OpSpec spec;

    AbstractReducer(DataType type, ReduceOp op, OpSpec spec) {
        this.type = type;
        this.op = op;
        this.spec = spec;
    }

    @Override
    public final DataType type() {
        return type;
    }

    @Override
    public final ReduceOp op() {
        return op;
    }

    @Override
    public final boolean needsPrepare() {
        return spec.prepare();
    }

    @Override
    public final boolean needsFinish() {
        return spec.finish();
    }
}
