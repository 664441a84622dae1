package io.jccl.net.aeronipc;

import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;

import java.util.Map;

/**
 * The {@code aeron-ipc} transport: connects ranks in different JVMs of the same host over shared memory (Aeron IPC
 * through one embedded media driver per host). It was the {@code shm} transport until the media-driver-free one
 * ({@link io.jccl.net.shm}) took that name; it stays as an option. Priority {@value #PRIORITY}, below every
 * transport chosen automatically, so it is only used when named ({@code JCCL_NET=aeron-ipc}).
 *
 * <p>Options read from {@link TransportContext#options()}: {@code JCCL_AERON_IPC_DIR} (the media driver directory,
 * default {@code /dev/shm/jccl-aeron-<user>}), {@code JCCL_AERON_IPC_TERM_BYTES} (term length of each connection's log,
 * a power of two from 1 MiB to 1 GiB, default 16 MiB), {@code JCCL_AERON_IPC_DRIVER_IDLE} ({@code backoff} or
 * {@code spin}); see {@code docs/transports.md}.
 */
public final class AeronIpcTransportProvider implements NetTransportProvider {
    /** The name users select it by. */
    public static final String NAME = "aeron-ipc";
    /** Its priority among providers. */
    public static final int PRIORITY = 4;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public AeronIpcTransportProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /** @return true for ranks on the same host in different JVMs */
    @Override
    public boolean canConnect(PeerIdentity a, PeerIdentity b) {
        return a.hostId().equals(b.hostId()) && !a.jvmId().equals(b.jvmId());
    }

    /**
     * @throws IllegalArgumentException when an option is invalid; the message names the key and the value
     * @throws io.jccl.net.NetException when no media driver can be started or joined
     */
    @Override
    public NetTransport create(TransportContext context) {
        return new AeronIpcTransport(context);
    }

    /** Checks {@code JCCL_AERON_IPC_DIR}, {@code JCCL_AERON_IPC_TERM_BYTES} and {@code JCCL_AERON_IPC_DRIVER_IDLE}. */
    @Override
    public void checkOptions(Map<String, String> options) {
        AeronIpcOptions.parse(options);
    }
}
