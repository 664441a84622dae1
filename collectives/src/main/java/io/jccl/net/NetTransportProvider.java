package io.jccl.net;

import java.util.Map;

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

    /**
     * Checks this transport's options ({@link TransportContext#options()}) without opening anything. JCCL calls it
     * for every provider on the class path whenever a configuration is resolved (a communicator is created, an
     * option is set on {@code CommConfig.Builder}), whether or not this transport will connect any pair: a bad
     * setting then fails the same way on every host and whichever transports a job ends up using, as
     * {@code INVALID_ARGUMENT}.
     *
     * @param options the {@code JCCL_*} options in effect
     * @throws IllegalArgumentException for the first invalid option; the message starts with the option's name and
     *                                  value ({@code JCCL_X='v'}) and says what is allowed
     */
    default void checkOptions(Map<String, String> options) {
    }
}
