package io.jccl.net;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What every transport's listener shares: the encoded handle it hands out, a description for messages, and the
 * closed flag that {@code accept} checks first and {@code close} sets.
 */
public abstract class AbstractListener implements Listener {
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(AbstractListener.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final byte[] handle;
    /** Names the listener in messages, e.g. "tcp listener 10.0.0.1:5000". */
    protected final String description;
    private volatile boolean closed;

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
        return closed;
    }

    /** @throws NetException {@link NetException.Reason#CLOSED} once the listener is closed */
    protected final void throwIfClosed() {
        if (closed) {
            throw new NetException(NetException.Reason.CLOSED, description + " is closed");
        }
    }

    /**
     * Marks the listener closed, atomically: of two threads closing at once, one gets true.
     *
     * @return false when it was closed already (so that a close releases things once)
     */
    protected final boolean markClosed() {
        return CLOSED.compareAndSet(this, false, true);
    }

    @Override
    public String toString() {
        return description;
    }
}
