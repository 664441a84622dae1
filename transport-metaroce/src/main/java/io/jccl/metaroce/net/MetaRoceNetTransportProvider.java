package io.jccl.metaroce.net;

import io.jccl.net.NetException;
import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;

/**
 * The {@code metaroce} transport plugin: MetaRoCE over UDP, the default between ranks in different processes
 * (priority {@value #PRIORITY}, above TCP's). Ranks of one JVM use the in-JVM transport.
 */
public final class MetaRoceNetTransportProvider implements NetTransportProvider {
    /** Its priority among providers. */
    public static final int PRIORITY = 20;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public MetaRoceNetTransportProvider() {
    }

    @Override
    public String name() {
        return "metaroce";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public boolean canConnect(PeerIdentity a, PeerIdentity b) {
        return !a.jvmId().equals(b.jvmId());
    }

    @Override
    public NetTransport create(TransportContext context) {
        try {
            return new MetaRoceNetTransport(context);
        } catch (IllegalArgumentException e) {
            throw new NetException(NetException.Reason.IO_ERROR, "metaroce transport: " + e.getMessage(), e);
        }
    }
}
