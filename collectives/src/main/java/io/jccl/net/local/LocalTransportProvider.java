package io.jccl.net.local;

import io.jccl.net.NetTransport;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;
import io.jccl.net.TransportContext;

/** Provides the {@code local} transport for ranks in the same JVM. */
public final class LocalTransportProvider implements NetTransportProvider {
    /** The transport's name. */
    public static final String NAME = "local";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 100;
    }

    @Override
    public boolean canConnect(PeerIdentity a, PeerIdentity b) {
        return a.jvmId().equals(b.jvmId());
    }

    @Override
    public NetTransport create(TransportContext context) {
        return new LocalTransport();
    }
}
