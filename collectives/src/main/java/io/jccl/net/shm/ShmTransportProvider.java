package io.jccl.net.shm;

import io.jccl.net.AbstractNetTransportProvider;

/**
 * The {@code shm} transport: connects ranks in different JVMs of the same host through shared memory, with no
 * media driver and no thread of its own (see {@link io.jccl.net.shm}). Priority {@value #PRIORITY}: below the in-JVM
 * transport, above {@code metaroce} and {@code tcp}, which then serve only the pairs on different hosts.
 *
 * <p>Options read from {@link io.jccl.net.TransportContext#options()}: {@code JCCL_SHM_RING_BYTES} (each connection's ring, a
 * power of two from 64 KiB to 256 MiB, default 4 MiB), {@code JCCL_SHM_EAGER_BYTES} (the largest message copied
 * through the ring in one record, default 16 KiB), {@code JCCL_SHM_LARGE} ({@code auto}, {@code cma} or
 * {@code ring}: how longer messages travel), {@code JCCL_SHM_SINGLE_COPY_BYTES} (the largest out-of-place all-reduce
 * read in one cross-memory copy, default 1 MiB), {@code JCCL_SHM_REGISTERED_BYTES} (each rank's registered memory for
 * {@code Communicator.allocate}, default 1 GiB of address space, touched only where allocated); see
 * {@code docs/transports.md}. Creating the transport fails with a {@link io.jccl.net.NetException} when the segment
 * cannot be created, or {@code JCCL_SHM_LARGE=cma} and the kernel refuses cross-memory attach.
 */
public final class ShmTransportProvider extends AbstractNetTransportProvider {
    /** The name users select it by. */
    public static final String NAME = "shm";
    /** Its priority among providers. */
    public static final int PRIORITY = 50;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public ShmTransportProvider() {
        super(NAME, PRIORITY, Reach.SAME_HOST_OTHER_JVM, ShmTransport::new, ShmOptions::parse);
    }
}
