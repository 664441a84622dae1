package io.jccl.net.aeron;

import io.aeron.Aeron;
import io.jccl.net.NetProperties;
import io.jccl.net.NetTransport;
import io.jccl.net.TransportContext;

import java.security.SecureRandom;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What both Aeron transports (aeron-ipc, aeron-udp) share: the rank's context, the connect timeout, and the
 * {@link Resources} closed with the transport, where its listeners, pending connects and connections are registered
 * until they close.
 */
public abstract class AeronTransport implements NetTransport {
    /** Makes listeners' tokens, and other ids that must not repeat across processes. */
    protected static final SecureRandom RANDOM = new SecureRandom();
    /** Longest wait of {@code listen} for the media driver to set up the hello subscription. */
    private static final long LISTEN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    /** The rank's context. */
    protected final TransportContext context;
    private final String name;
    private final long connectTimeoutNs;
    private final Resources resources;
    private final NetProperties properties;

    /**
     * @param name       the transport's name, for messages and its {@link NetProperties}
     * @param context    the rank's context
     * @param speedMbps  the sustained bandwidth reported to the tuner
     * @param latencyUs  the one-way small-message latency reported to the tuner
     * @throws IllegalArgumentException when the connect timeout is not positive
     */
    protected AeronTransport(String name, TransportContext context, long speedMbps, double latencyUs) {
        this.context = Objects.requireNonNull(context, "context");
        this.name = name;
        this.connectTimeoutNs = context.connectTimeoutNanos();
        this.resources = new Resources(name + " transport of rank " + context.self().rank());
        this.properties = new NetProperties(name, speedMbps, latencyUs, AeronConnection.MAX_INFLIGHT_REQUESTS,
                Frames.MAX_MESSAGE_BYTES, false);
    }

    @Override
    public final NetProperties properties() {
        return properties;
    }

    /** @return the media driver of this transport's Aeron client */
    protected abstract AeronDriver driver();

    /** @return the transport's Aeron client */
    public final Aeron aeron() {
        return driver().aeron();
    }

    /** @return this rank */
    public final int rank() {
        return context.self().rank();
    }

    /** @return how long connecting may take, and a valid hello may wait for its sender, in nanoseconds */
    public final long connectTimeoutNs() {
        return connectTimeoutNs;
    }

    /** @return what the transport closes when it closes */
    public final Resources resources() {
        return resources;
    }

    /** @return when {@code listen} gives up waiting for the media driver: the connect timeout, or sooner */
    protected final long listenDeadlineNs() {
        return System.nanoTime() + Math.min(connectTimeoutNs, LISTEN_TIMEOUT_NS);
    }

    /** @return a new random token: the secret a listener's hellos must present */
    protected static byte[] newToken(int bytes) {
        byte[] token = new byte[bytes];
        RANDOM.nextBytes(token);
        return token;
    }

    /** Stops tracking a resource that closed itself. */
    public final void forget(Object resource) {
        resources.forget(resource);
    }

    @Override
    public String toString() {
        return name + " transport of rank " + rank();
    }
}
