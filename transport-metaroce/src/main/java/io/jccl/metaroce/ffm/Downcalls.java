package io.jccl.metaroce.ffm;

import java.lang.invoke.MethodHandle;

/**
 * Helpers for FFM downcall wrappers. A wrapper on a steady path calls its handle with {@code invokeExact} itself (no
 * boxing, no array) and passes what it throws to {@link #rethrow}; a wrapper called once in a while (setup,
 * discovery) may use {@link #call}, which boxes.
 */
public final class Downcalls {
    private Downcalls() {
    }

    /**
     * Calls {@code handle} with {@code arguments}, boxed and converted as {@link MethodHandle#invokeWithArguments}
     * does: for calls off the steady path only.
     *
     * @param handle    a downcall handle
     * @param arguments its arguments
     * @return what it returned, boxed ({@code null} for a {@code void} function)
     */
    public static Object call(MethodHandle handle, Object... arguments) {
        try {
            return handle.invokeWithArguments(arguments);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Rethrows what a downcall threw: unchecked exceptions and errors as they are, anything else (which a downcall
     * does not throw) wrapped in an {@link IllegalStateException}. Use it as {@code throw rethrow(t)}, so the
     * compiler sees the wrapper end.
     *
     * @param t what the call threw
     * @return never: it always throws
     */
    public static RuntimeException rethrow(Throwable t) {
        switch (t) {
            case RuntimeException r -> throw r;
            case Error e -> throw e;
            default -> throw new IllegalStateException(t);
        }
    }
}
