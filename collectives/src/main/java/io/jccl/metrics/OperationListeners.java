package io.jccl.metrics;

import io.jccl.Communicator;
import io.jccl.core.CommImpl;

import java.util.Arrays;
import java.util.Objects;

/**
 * Where {@link OperationListener}s are registered. Registration copies an array (control path); the executors read
 * the current array once per operation (one volatile read), so the data path takes no lock and allocates nothing.
 */
public final class OperationListeners {
    private static final OperationListener[] NONE = new OperationListener[0];
    private static volatile OperationListener[] global = NONE;

    private OperationListeners() {
    }

    /** Registers a listener for every communicator of this JVM, existing and future. */
    public static synchronized void register(OperationListener listener) {
        Objects.requireNonNull(listener, "listener");
        OperationListener[] now = global;
        OperationListener[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = listener;
        global = next;
    }

    /** Removes a listener registered with {@link #register(OperationListener)}; does nothing when it is not. */
    public static synchronized void unregister(OperationListener listener) {
        global = without(global, listener);
    }

    /**
     * Registers a listener for one communicator (until it is closed or {@link #unregister(Communicator,
     * OperationListener)}).
     *
     * @throws IllegalArgumentException when the communicator is not one JCCL made
     */
    public static void register(Communicator communicator, OperationListener listener) {
        Objects.requireNonNull(listener, "listener");
        impl(communicator).addOperationListener(listener);
    }

    /** Removes a listener registered for one communicator. */
    public static void unregister(Communicator communicator, OperationListener listener) {
        impl(communicator).removeOperationListener(listener);
    }

    /** The executors: the listeners for all communicators (never null; do not modify). */
    public static OperationListener[] global() {
        return global;
    }

    /** @return {@code listeners} without {@code listener} (the same array when it is not there) */
    public static OperationListener[] without(OperationListener[] listeners, OperationListener listener) {
        for (int i = 0; i < listeners.length; i++) {
            if (listeners[i] == listener) {
                OperationListener[] next = new OperationListener[listeners.length - 1];
                System.arraycopy(listeners, 0, next, 0, i);
                System.arraycopy(listeners, i + 1, next, i, listeners.length - i - 1);
                return next;
            }
        }
        return listeners;
    }

    private static CommImpl impl(Communicator communicator) {
        if (communicator instanceof CommImpl c) {
            return c;
        }
        throw new IllegalArgumentException("not a JCCL communicator: " + communicator);
    }
}
