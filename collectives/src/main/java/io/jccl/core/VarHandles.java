package io.jccl.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Finds the {@link VarHandle}s of the core's lock-free fields, for the static initializers that keep them. */
final class VarHandles {
    private VarHandles() {
    }

    /**
     * @param lookup a lookup that can access the field (the caller's own)
     * @param owner  the class that declares the field
     * @param name   the field's name
     * @param type   the field's type
     * @return the field's handle
     * @throws ExceptionInInitializerError when there is no such field: a bug, found as the class initializes
     */
    static VarHandle field(MethodHandles.Lookup lookup, Class<?> owner, String name, Class<?> type) {
        try {
            return lookup.findVarHandle(owner, name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
