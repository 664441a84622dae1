package io.jccl.metaroce.simnet;

import io.jccl.metaroce.net.MetaRoceNetTransport;
import io.jccl.net.Listener;

/**
 * A rank's process that listens on its transport and reaches its peers through their listeners' handles, which
 * {@link SimulatedCluster#connectAll} hands out.
 */
abstract class PeeredProcess implements RankProcess {
    /** The rank's transport. */
    final MetaRoceNetTransport transport;
    /** The rank's listener, opened first thing on the transport. */
    final Listener listener;
    /** Every rank's handle, indexed by rank (its own included); null until {@link #peers}. */
    byte[][] handles;

    PeeredProcess(MetaRoceNetTransport transport) {
        this.transport = transport;
        this.listener = transport.listen(null);
    }

    /** @return the handle of this rank's listener */
    final byte[] handle() {
        return listener.handle();
    }

    /** Takes every rank's handle, indexed by rank (its own included). */
    final void peers(byte[][] allHandles) {
        this.handles = allHandles;
    }
}
