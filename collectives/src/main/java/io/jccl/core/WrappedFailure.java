package io.jccl.core;

import io.jccl.JcclException;

/**
 * A {@link JcclException} carried up through code that must tell where it came from; without a stack trace of its
 * own, since the error it carries has one.
 */
abstract sealed class WrappedFailure extends RuntimeException permits ParentFailure, ReportedFailure {
    private static final long serialVersionUID = 1L;
    /** The error carried. */
    final transient JcclException error;

    WrappedFailure(JcclException error) {
        super(error.getMessage(), error, false, false);
        this.error = error;
    }
}
