package io.jccl.core;

import io.jccl.JcclException;

/** An error another rank reported: it must not be sent around again. */
final class ReportedFailure extends WrappedFailure {
    private static final long serialVersionUID = 1L;

    ReportedFailure(JcclException error) {
        super(error);
    }
}
