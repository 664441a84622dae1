package io.jccl.net;

import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What every transport provider of JCCL has in common: a name, a priority, which pairs of ranks it reaches, how it
 * creates its transport and how it checks its options. A provider is then one constructor call, e.g.
 * {@code super("tcp", 10, Reach.ANY, TcpNetTransport::new, TcpOptions::parse)}.
 */
public abstract class AbstractNetTransportProvider implements NetTransportProvider {
    /** Which pairs of ranks a transport can connect, from where they live; every rule is symmetric. */
    public enum Reach {
        /** Ranks of one JVM. */
        SAME_JVM,
        /** Ranks in different JVMs of one host. */
        SAME_HOST_OTHER_JVM,
        /** Ranks in different JVMs, on any hosts. */
        OTHER_JVM,
        /** Any two ranks that can reach each other. */
        ANY;

        /** @return whether a transport with this reach can connect {@code a} and {@code b} */
        public boolean connects(PeerIdentity a, PeerIdentity b) {
            boolean sameJvm = a.jvmId().equals(b.jvmId());
            return switch (this) {
                case SAME_JVM -> sameJvm;
                case SAME_HOST_OTHER_JVM -> !sameJvm && a.hostId().equals(b.hostId());
                case OTHER_JVM -> !sameJvm;
                case ANY -> true;
            };
        }
    }

    private final String name;
    private final int priority;
    private final Reach reach;
    private final Function<TransportContext, NetTransport> factory;
    private final Consumer<Map<String, String>> optionCheck;

    /**
     * @param name        the name users select the transport by ({@code JCCL_NET})
     * @param priority    preference when several providers can connect a pair; higher wins
     * @param reach       which pairs it can connect
     * @param factory     creates the transport of one rank; may throw {@link NetException} or
     *                    {@link IllegalArgumentException} for an invalid option
     * @param optionCheck checks the options without opening anything ({@link #checkOptions}), throwing
     *                    {@link IllegalArgumentException} for the first invalid one
     */
    protected AbstractNetTransportProvider(String name, int priority, Reach reach,
                                           Function<TransportContext, NetTransport> factory,
                                           Consumer<Map<String, String>> optionCheck) {
        this.name = Objects.requireNonNull(name, "name");
        this.priority = priority;
        this.reach = Objects.requireNonNull(reach, "reach");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.optionCheck = Objects.requireNonNull(optionCheck, "optionCheck");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final int priority() {
        return priority;
    }

    /** @return whether the two ranks are within this transport's {@link Reach} */
    @Override
    public final boolean canConnect(PeerIdentity a, PeerIdentity b) {
        return reach.connects(a, b);
    }

    /**
     * @throws IllegalArgumentException when an option is invalid; the message names the key and the value
     * @throws NetException             when the transport cannot start
     */
    @Override
    public final NetTransport create(TransportContext context) {
        return factory.apply(context);
    }

    @Override
    public final void checkOptions(Map<String, String> options) {
        optionCheck.accept(options);
    }
}
