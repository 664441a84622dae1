package io.jccl.memory;

/**
 * A Linux dma-buf file descriptor exported for a device allocation ({@link MemoryDomain#exportDmaBuf}), for a NIC
 * to register the device memory directly ({@code ibv_reg_dmabuf_mr}). The descriptor is this object's:
 * {@link #close()} closes it.
 */
public final class DmaBufHandle extends ReleasedOnce implements AutoCloseable {
    private final int fd;
    private final long sizeBytes;

    DmaBufHandle(int fd, long sizeBytes) {
        this.fd = fd;
        this.sizeBytes = sizeBytes;
    }

    /** @return the file descriptor; valid until {@link #close()} */
    public int fd() {
        return fd;
    }

    /** @return the bytes the descriptor covers, from the allocation's start (page-rounded) */
    public long sizeBytes() {
        return sizeBytes;
    }

    /** Closes the descriptor; idempotent. */
    @Override
    public void close() {
        if (markReleased()) {
            Posix.close(fd);
        }
    }
}
