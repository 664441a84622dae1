package io.jccl.core;

import io.jccl.JcclException;

/** A failure of this communicator itself while it served a split's exchanges. */
final class ParentFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient JcclException error;

    ParentFailure(JcclException error) {
        super(error.getMessage(), error, false, false);
        this.error = error;
    }
}
