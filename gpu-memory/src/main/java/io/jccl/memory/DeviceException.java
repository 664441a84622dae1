package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

/**
 * A native memory call failed: the domain, the call with its arguments, and the native error code and name
 * (e.g. {@code hipMalloc(1048576 bytes) failed: hipErrorOutOfMemory (2): out of memory}). Code
 * {@link ErrorCode#SYSTEM_ERROR}.
 */
public final class DeviceException extends JcclException {
    private static final long serialVersionUID = 1L;

    private final String domain;
    private final String call;
    private final int nativeCode;
    private final String nativeName;

    /**
     * @param domain      the domain's name (e.g. {@code hip})
     * @param call        the failed call with its arguments, e.g. {@code hipFree(0x7f00)}
     * @param nativeCode  the native error code (e.g. a {@code hipError_t})
     * @param nativeName  its symbolic name (e.g. {@code hipErrorInvalidValue})
     * @param description the library's description of the error
     */
    public DeviceException(String domain, String call, int nativeCode, String nativeName, String description) {
        super(ErrorCode.SYSTEM_ERROR, call + " failed: " + nativeName + " (" + nativeCode + "): " + description
                + " [" + domain + " memory domain]");
        this.domain = domain;
        this.call = call;
        this.nativeCode = nativeCode;
        this.nativeName = nativeName;
    }

    /** @return the domain's name */
    public String domain() {
        return domain;
    }

    /** @return the failed call with its arguments */
    public String call() {
        return call;
    }

    /** @return the native error code */
    public int nativeCode() {
        return nativeCode;
    }

    /** @return the native error's symbolic name */
    public String nativeName() {
        return nativeName;
    }
}
