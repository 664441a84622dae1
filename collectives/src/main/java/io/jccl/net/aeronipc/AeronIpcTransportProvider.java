package io.jccl.net.aeronipc;

import io.jccl.net.AbstractNetTransportProvider;

/**
 * The {@code aeron-ipc} transport: connects ranks in different JVMs of the same host over shared memory (Aeron IPC
 * through one embedded media driver per host). It was the {@code shm} transport until the media-driver-free one
 * ({@link io.jccl.net.shm}) took that name; it stays as an option. Priority {@value #PRIORITY}, below every
 * transport chosen automatically, so it is only used when named ({@code JCCL_NET=aeron-ipc}).
 *
 * <p>Options read from {@link io.jccl.net.TransportContext#options()}: {@code JCCL_AERON_IPC_DIR} (the media driver directory,
 * default {@code /dev/shm/jccl-aeron-<user>}), {@code JCCL_AERON_IPC_TERM_BYTES} (term length of each connection's log,
 * a power of two from 1 MiB to 1 GiB, default 16 MiB), {@code JCCL_AERON_IPC_DRIVER_IDLE} ({@code backoff} or
 * {@code spin}); see {@code docs/transports.md}. Creating the transport fails with a
 * {@link io.jccl.net.NetException} when no media driver can be started or joined.
 */
public final class AeronIpcTransportProvider extends AbstractNetTransportProvider {
    /** The name users select it by. */
    public static final String NAME = "aeron-ipc";
    /** Its priority among providers. */
    public static final int PRIORITY = 4;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public AeronIpcTransportProvider() {
        super(NAME, PRIORITY, Reach.SAME_HOST_OTHER_JVM, AeronIpcTransport::new, AeronIpcOptions::parse);
    }
}
