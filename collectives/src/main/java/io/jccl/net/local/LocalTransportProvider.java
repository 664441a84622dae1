package io.jccl.net.local;

import io.jccl.net.AbstractNetTransportProvider;

/** Provides the {@code local} transport for ranks in the same JVM. */
public final class LocalTransportProvider extends AbstractNetTransportProvider {
    /** The transport's name. */
    public static final String NAME = "local";
    /** Its priority among providers: the highest, nothing is faster than staying in the JVM. */
    public static final int PRIORITY = 100;

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public LocalTransportProvider() {
        super(NAME, PRIORITY, Reach.SAME_JVM, context -> new LocalTransport(), options -> { });
    }
}
