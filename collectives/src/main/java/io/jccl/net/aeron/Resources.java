package io.jccl.net.aeron;

import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.PendingConnect;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one transport has open — listeners, connection attempts, connections — so that closing the transport closes
 * them all. Thread-safe; a resource registered after {@link #closeAll()} is closed at once.
 */
public final class Resources {
    private final Set<Object> open = ConcurrentHashMap.newKeySet();
    private final String owner;
    private volatile boolean closed;

    /** @param owner the transport, for messages */
    public Resources(String owner) {
        this.owner = owner;
    }

    /**
     * Tracks a resource.
     *
     * @throws NetException with {@link NetException.Reason#CLOSED} (after closing it) when the transport is closed
     */
    public void register(Object resource) {
        open.add(resource);
        if (closed) {
            closeQuietly(resource);
            throw new NetException(NetException.Reason.CLOSED, owner + " is closed");
        }
    }

    /** Stops tracking a resource that closed itself. */
    public void forget(Object resource) {
        open.remove(resource);
    }

    /** @throws NetException with {@link NetException.Reason#CLOSED} when {@link #closeAll()} ran */
    public void checkOpen() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, owner + " is closed");
        }
    }

    /** @return true the first time, when this call closed everything; false when it was closed already */
    public boolean closeAll() {
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
        }
        for (Object resource : List.copyOf(open)) {
            closeQuietly(resource);
        }
        return true;
    }

    private static void closeQuietly(Object resource) {
        try {
            switch (resource) {
                case Listener listener -> listener.close();
                case PendingConnect pending -> pending.cancel();
                case AutoCloseable connection -> connection.close();
                default -> throw new IllegalStateException("unknown resource " + resource);
            }
        } catch (Exception ignored) {
            // closing is best effort: the client may be gone with its driver
        }
    }
}
