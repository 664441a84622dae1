package io.jccl.net;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every transport's listener shares: the encoded handle it hands out, a description for messages, and the
 * closed flag that {@code accept} checks first and {@code close} sets.
 */
public abstract class AbstractListener implements Listener {
    private final byte[] handle;
    /** Names the listener in messages, e.g. "tcp listener 10.0.0.1:5000". */
    protected final String description;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param handle      the encoded handle, owned by the listener from now on
     * @param description names the listener in messages
     */
    protected AbstractListener(byte[] handle, String description) {
        this.handle = handle;
        this.description = description;
    }

    @Override
    public final byte[] handle() {
        return handle.clone();
    }

    /** @return whether {@link #close} was called */
    public final boolean isClosed() {
        return closed.get();
    }

    /** @throws NetException {@link NetException.Reason#CLOSED} once the listener is closed */
    protected final void throwIfClosed() {
        if (closed.get()) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
    }

    /**
     * Marks the listener closed, atomically: of two threads closing at once, one gets true.
     *
     * @return false when it was closed already (so that a close releases things once)
     */
    protected final boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    @Override
    public String toString() {
        return description;
    }
}
