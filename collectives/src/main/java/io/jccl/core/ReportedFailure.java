package io.jccl.core;

import io.jccl.JcclException;

/** An error another rank reported: it must not be sent around again. */
final class ReportedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient JcclException error;

    ReportedFailure(JcclException error) {
        super(error.getMessage(), error, false, false);
        this.error = error;
    }
}
