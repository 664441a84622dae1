package io.jccl.core;

import io.jccl.JcclException;

/** A failure of this communicator itself while it served a split's exchanges. */
final class ParentFailure extends WrappedFailure {
    private static final long serialVersionUID = 1L;

    ParentFailure(JcclException error) {
        super(error);
    }
}
