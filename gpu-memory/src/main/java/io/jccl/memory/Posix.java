package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** The one libc call the domains need: {@code close(2)} for exported descriptors. */
final class Posix {
    private static final MethodHandle CLOSE = Linker.nativeLinker().defaultLookup().find("close")
            .map(a -> Linker.nativeLinker().downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT)))
            .orElse(null);

    private Posix() {
    }

    static void close(int fd) {
        if (CLOSE == null) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "libc has no close(): cannot close descriptor " + fd);
        }
        int rc;
        try {
            rc = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "close(" + fd + ") failed: " + t, t);
        }
        if (rc != 0) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "close(" + fd + ") failed");
        }
    }
}
