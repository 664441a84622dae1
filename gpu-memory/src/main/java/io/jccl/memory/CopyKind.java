package io.jccl.memory;

/** The direction of a copy, as a domain's native copy call takes it. */
public enum CopyKind {
    /** From host memory into device memory. */
    HOST_TO_DEVICE,
    /** From device memory into host memory. */
    DEVICE_TO_HOST,
    /** Between two device allocations (of one domain). */
    DEVICE_TO_DEVICE
}
