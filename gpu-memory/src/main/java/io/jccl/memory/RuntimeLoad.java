package io.jccl.memory;

import java.util.function.Supplier;

/**
 * The outcome of loading a vendor runtime's bindings (CUDA's through JCuda, HIP's through FFM): the runtime, or why
 * there is none. Loading never throws: every failure becomes the reason.
 *
 * @param runtime the bindings, or null
 * @param reason  why there are none (what is missing, or every candidate tried and what went wrong), or empty
 * @param <R>     the bindings' type
 */
public record RuntimeLoad<R extends DeviceRuntime>(R runtime, String reason) {
    /** @return whether there is a runtime */
    public boolean loaded() {
        return runtime != null;
    }

    /**
     * A JVM's one load of a runtime, made by the first caller of {@link #get()} and kept (a runtime once loaded
     * stays loaded, and a failure is not retried).
     *
     * @param <R> the bindings' type
     */
    public static final class Shared<R extends DeviceRuntime> {
        private final Supplier<RuntimeLoad<R>> load;
        private volatile RuntimeLoad<R> value;

        /** @param load makes the load, once */
        public Shared(Supplier<RuntimeLoad<R>> load) {
            this.load = load;
        }

        /** @return the load, made on the first call */
        public RuntimeLoad<R> get() {
            RuntimeLoad<R> l = value;
            if (l == null) {
                synchronized (this) {
                    l = value;
                    if (l == null) {
                        l = load.get();
                        value = l;
                    }
                }
            }
            return l;
        }
    }
}
