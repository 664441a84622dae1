package io.jccl.net;

/**
 * A transport plugin, found with {@link java.util.ServiceLoader}. For each pair of ranks the communicator
 * takes the provider with the highest {@link #priority()} that {@linkplain #canConnect can connect} them,
 * unless the configuration names one.
 */
public interface NetTransportProvider {
    /** @return the name users select it by (e.g. {@code JCCL_NET=tcp}) */
    String name();

    /** @return preference when several providers can connect a pair; higher wins */
    int priority();

    /**
     * Must give the same answer whichever of the two is {@code a}.
     *
     * @param a one rank
     * @param b the other rank
     * @return whether this transport can connect the two
     */
    boolean canConnect(PeerIdentity a, PeerIdentity b);

    /**
     * @param context the rank's context
     * @return a transport instance for that rank
     * @throws NetException when the transport cannot start
     */
    NetTransport create(TransportContext context);
}
