package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.util.Locale;

/**
 * What the CUDA and HIP bindings share: every call returns an error code, and a code other than success (0) becomes a
 * {@link DeviceException} naming the call with its arguments, the code, and the error's name and description (from
 * the runtime's own {@code GetErrorName} / {@code GetErrorString}); a query's "not ready" code means "not done".
 */
public abstract class AbstractDeviceRuntime implements DeviceRuntime {
    /** {@code cudaSuccess}, {@code hipSuccess}. */
    private static final int SUCCESS = 0;

    /** Made by the CUDA and HIP bindings. */
    protected AbstractDeviceRuntime() {
    }

    /**
     * @return the domain's name ({@code cuda}, {@code hip}): the runtime's display name in lower case, which is also
     *         the prefix of its function names
     */
    protected final String domain() {
        return codes().displayName().toLowerCase(Locale.ROOT);
    }

    /**
     * @param error an error code of the runtime
     * @return its symbolic name, from the runtime when it can say
     */
    protected abstract String errorName(int error);

    /**
     * @param error an error code of the runtime
     * @return the runtime's description of it
     */
    protected abstract String errorString(int error);

    /**
     * @param error the code a call returned
     * @param call  the call with its arguments, e.g. {@code hipFree(0x7f00)}
     * @return the exception that reports it
     */
    protected final DeviceException failure(int error, String call) {
        return new DeviceException(domain(), call, error, errorName(error), errorString(error));
    }

    /**
     * @param error the code a call returned
     * @param call  the call with its arguments
     * @throws DeviceException unless the code is success
     */
    protected final void check(int error, String call) {
        if (error != SUCCESS) {
            throw failure(error, call);
        }
    }

    /**
     * @param error the code a query returned
     * @param call  the call with its arguments
     * @return a query's answer: true when done, false for "not ready"
     * @throws DeviceException for any other failure
     */
    protected final boolean done(int error, String call) {
        if (error == codes().notReady()) {
            return false;
        }
        check(error, call);
        return true;
    }

    /**
     * {@link #done(int, String)} for a query polled on a progress path: the call's text is made only for a failure.
     *
     * @param error    the code a query returned
     * @param function the query's function, e.g. {@code hipEventQuery}
     * @param handle   the stream or event it asked about
     * @return true when done, false for "not ready"
     * @throws DeviceException for any other failure
     */
    protected final boolean done(int error, String function, long handle) {
        if (error == SUCCESS) {
            return true;
        }
        if (error == codes().notReady()) {
            return false;
        }
        throw failure(error, function + "(" + hex(handle) + ")");
    }

    /**
     * @param function  the copy function's name, e.g. {@code hipMemcpyAsync}
     * @param dst       where the copy writes
     * @param src       where it reads
     * @param sizeBytes bytes
     * @param kind      the runtime's {@code MemcpyKind}
     * @param more      further arguments, each with its leading ", " (or empty)
     * @return the call with its arguments, for messages
     */
    protected final String copyCall(String function, long dst, long src, long sizeBytes, int kind, String more) {
        return function + "(dst " + hex(dst) + ", src " + hex(src) + ", " + sizeBytes + " bytes, " + kindName(kind)
                + more + ")";
    }

    private String kindName(int kind) {
        Codes c = codes();
        String direction = kind == c.hostToDevice() ? "HostToDevice" : kind == c.deviceToHost() ? "DeviceToHost"
                : kind == c.deviceToDevice() ? "DeviceToDevice" : null;
        return direction == null ? domain() + "MemcpyKind " + kind : domain() + "Memcpy" + direction;
    }

    /**
     * @param call      the function's name
     * @param sizeBytes a size argument
     * @throws JcclException INVALID_ARGUMENT when it is negative
     */
    protected static void checkSize(String call, long sizeBytes) {
        if (sizeBytes < 0) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, call + ": sizeBytes must not be negative, got "
                    + sizeBytes);
        }
    }

    /**
     * @param address an address or handle
     * @return it as messages show it, {@code 0x} and hexadecimal digits
     */
    public static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }
}
