package io.jccl.memory.hip;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.DeviceException;
import io.jccl.memory.DeviceRuntime;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Hand-written FFM bindings to the HIP runtime functions JCCL uses, one Java method per C function: arguments
 * checked, the call made, a non-zero {@code hipError_t} turned into a {@link DeviceException} naming the call, its
 * arguments, and the error's name and description (from {@code hipGetErrorName} / {@code hipGetErrorString}).
 * The C signatures, from ROCm's {@code hip_runtime_api.h}, and their Java layouts are in the package
 * documentation.
 *
 * <p>Construction binds every required symbol at once, so a library that lacks one (too old, or not HIP) fails
 * there ({@link MissingSymbolException}) and never on first use. {@code hipMemGetHandleForAddressRange} (ROCm 6.2+)
 * is optional: without it {@link #memGetHandleForAddressRange} reports hipErrorNotSupported.
 */
final class HipRuntime implements DeviceRuntime {
    static final String DOMAIN = "hip";

    static final int HIP_SUCCESS = 0;
    static final int HIP_ERROR_NOT_READY = 600;
    static final int HIP_ERROR_NOT_SUPPORTED = 801;
    /** {@code hipMemcpyKind}: the directions JCCL uses. */
    static final int MEMCPY_HOST_TO_DEVICE = 1;
    static final int MEMCPY_DEVICE_TO_HOST = 2;
    static final int MEMCPY_DEVICE_TO_DEVICE = 3;
    /** {@code hipHostRegisterPortable}: pinned for every device, not only the current one. */
    static final int HOST_REGISTER_PORTABLE = 1;
    /** {@code hipMemRangeHandleTypeDmaBufFd}. */
    static final int MEM_RANGE_HANDLE_DMA_BUF_FD = 1;
    /** {@code HIP_IPC_HANDLE_SIZE}: bytes of a {@code hipIpcMemHandle_t}. */
    static final int IPC_HANDLE_BYTES = 64;
    /** Longest device name read by {@link #deviceName}. */
    static final int NAME_BYTES = 256;

    /** A required function the library does not export. */
    static final class MissingSymbolException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MissingSymbolException(String symbol) {
            super(symbol, null, false, false);
        }
    }

    private final String library;
    private final Codes codes;
    private final MethodHandle getDeviceCount;
    private final MethodHandle setDevice;
    private final MethodHandle getDevice;
    private final MethodHandle deviceGetName;
    private final MethodHandle deviceTotalMem;
    private final MethodHandle runtimeGetVersion;
    private final MethodHandle malloc;
    private final MethodHandle free;
    private final MethodHandle memcpy;
    private final MethodHandle memcpyAsync;
    private final MethodHandle hostRegister;
    private final MethodHandle hostUnregister;
    private final MethodHandle ipcGetMemHandle;
    private final MethodHandle memGetHandleForAddressRange;
    private final MethodHandle streamCreate;
    private final MethodHandle streamDestroy;
    private final MethodHandle streamSynchronize;
    private final MethodHandle streamQuery;
    private final MethodHandle eventCreate;
    private final MethodHandle eventRecord;
    private final MethodHandle eventQuery;
    private final MethodHandle eventSynchronize;
    private final MethodHandle eventDestroy;
    private final MethodHandle getErrorName;
    private final MethodHandle getErrorString;

    /**
     * @param lookup  the loaded library's symbols
     * @param library what was loaded (a path or soname), for messages
     * @throws MissingSymbolException when a required function is missing
     */
    HipRuntime(SymbolLookup lookup, String library) {
        this.library = library;
        this.codes = new Codes("HIP", library, MEMCPY_HOST_TO_DEVICE, MEMCPY_DEVICE_TO_HOST, MEMCPY_DEVICE_TO_DEVICE,
                HOST_REGISTER_PORTABLE);
        Linker linker = Linker.nativeLinker();
        Binder b = new Binder(linker, lookup);
        getDeviceCount = b.required("hipGetDeviceCount", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        setDevice = b.required("hipSetDevice", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        getDevice = b.required("hipGetDevice", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        deviceGetName = b.required("hipDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        deviceTotalMem = b.required("hipDeviceTotalMem", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        runtimeGetVersion = b.required("hipRuntimeGetVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        malloc = b.required("hipMalloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        free = b.required("hipFree", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        memcpy = b.required("hipMemcpy", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        memcpyAsync = b.required("hipMemcpyAsync",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        hostRegister = b.required("hipHostRegister", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        hostUnregister = b.required("hipHostUnregister", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        ipcGetMemHandle = b.required("hipIpcGetMemHandle", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        memGetHandleForAddressRange = b.optional("hipMemGetHandleForAddressRange",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG));
        streamCreate = b.required("hipStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        streamDestroy = b.required("hipStreamDestroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        streamSynchronize = b.required("hipStreamSynchronize", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        streamQuery = b.required("hipStreamQuery", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        eventCreate = b.required("hipEventCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        eventRecord = b.required("hipEventRecord", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        eventQuery = b.required("hipEventQuery", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        eventSynchronize = b.required("hipEventSynchronize", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        eventDestroy = b.required("hipEventDestroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getErrorName = b.required("hipGetErrorName", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        getErrorString = b.required("hipGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /** Looks symbols up and makes downcall handles. */
    private record Binder(Linker linker, SymbolLookup lookup) {
        MethodHandle required(String name, FunctionDescriptor fd) {
            MethodHandle h = optional(name, fd);
            if (h == null) {
                throw new MissingSymbolException(name);
            }
            return h;
        }

        MethodHandle optional(String name, FunctionDescriptor fd) {
            Optional<MemorySegment> symbol = lookup.find(name);
            return symbol.map(s -> linker.downcallHandle(s, fd)).orElse(null);
        }
    }

    /** @return the library this runtime was loaded from */
    String library() {
        return library;
    }

    /** @return whether {@code hipMemGetHandleForAddressRange} exists (ROCm 6.2 and later) */
    boolean hasMemGetHandleForAddressRange() {
        return memGetHandleForAddressRange != null;
    }

    @Override
    public Codes codes() {
        return codes;
    }

    // ---- Errors ----

    /** {@code const char* hipGetErrorName(hipError_t)}. */
    String errorName(int error) {
        try {
            return string((MemorySegment) getErrorName.invokeExact(error), "hipError" + error);
        } catch (Throwable t) {
            return "hipError" + error;
        }
    }

    /** {@code const char* hipGetErrorString(hipError_t)}. */
    String errorString(int error) {
        try {
            return string((MemorySegment) getErrorString.invokeExact(error), "(no description)");
        } catch (Throwable t) {
            return "(no description)";
        }
    }

    private static String string(MemorySegment cString, String fallback) {
        if (cString == null || cString.address() == 0) {
            return fallback;
        }
        return cString.reinterpret(Integer.MAX_VALUE).getString(0);
    }

    private DeviceException failure(int error, String call) {
        return new DeviceException(DOMAIN, call, error, errorName(error), errorString(error));
    }

    private void check(int error, String call) {
        if (error != HIP_SUCCESS) {
            throw failure(error, call);
        }
    }

    /** @return a query's answer: true when done, false for hipErrorNotReady; throws for a failure */
    private boolean done(int error, String call) {
        if (error == HIP_ERROR_NOT_READY) {
            return false;
        }
        check(error, call);
        return true;
    }

    private static JcclException bindingBug(String call, Throwable t) {
        return new JcclException(ErrorCode.INTERNAL_ERROR, "calling " + call + " through FFM failed: " + t, t);
    }

    static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }

    private static MemorySegment pointer(long address) {
        return MemorySegment.ofAddress(address);
    }

    // ---- Devices ----

    /** {@code hipError_t hipGetDeviceCount(int* count)}. */
    @Override
    public int getDeviceCount() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment count = a.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) getDeviceCount.invokeExact(count);
            } catch (Throwable t) {
                throw bindingBug("hipGetDeviceCount", t);
            }
            check(rc, "hipGetDeviceCount()");
            return count.get(JAVA_INT, 0);
        }
    }

    /** {@code hipError_t hipSetDevice(int deviceId)}: the calling thread's current device. */
    @Override
    public void setDevice(int device) {
        int rc;
        try {
            rc = (int) setDevice.invokeExact(device);
        } catch (Throwable t) {
            throw bindingBug("hipSetDevice", t);
        }
        check(rc, "hipSetDevice(" + device + ")");
    }

    /** {@code hipError_t hipGetDevice(int* deviceId)}. */
    int getDevice() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment device = a.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) getDevice.invokeExact(device);
            } catch (Throwable t) {
                throw bindingBug("hipGetDevice", t);
            }
            check(rc, "hipGetDevice()");
            return device.get(JAVA_INT, 0);
        }
    }

    /** {@code hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device)}. */
    String deviceName(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment name = a.allocate(NAME_BYTES);
            int rc;
            try {
                rc = (int) deviceGetName.invokeExact(name, NAME_BYTES, device);
            } catch (Throwable t) {
                throw bindingBug("hipDeviceGetName", t);
            }
            check(rc, "hipDeviceGetName(device " + device + ")");
            name.set(ValueLayout.JAVA_BYTE, NAME_BYTES - 1, (byte) 0);   // whatever the library did
            return name.getString(0);
        }
    }

    /** {@code hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device)}. */
    long deviceTotalMem(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment bytes = a.allocate(JAVA_LONG);
            int rc;
            try {
                rc = (int) deviceTotalMem.invokeExact(bytes, device);
            } catch (Throwable t) {
                throw bindingBug("hipDeviceTotalMem", t);
            }
            check(rc, "hipDeviceTotalMem(device " + device + ")");
            return bytes.get(JAVA_LONG, 0);
        }
    }

    /** {@code hipError_t hipRuntimeGetVersion(int* runtimeVersion)}. */
    int runtimeVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment version = a.allocate(JAVA_INT);
            int rc;
            try {
                rc = (int) runtimeGetVersion.invokeExact(version);
            } catch (Throwable t) {
                throw bindingBug("hipRuntimeGetVersion", t);
            }
            check(rc, "hipRuntimeGetVersion()");
            return version.get(JAVA_INT, 0);
        }
    }

    // ---- Device memory ----

    /** {@code hipError_t hipMalloc(void** ptr, size_t size)}: on the calling thread's current device. */
    @Override
    public long malloc(long sizeBytes) {
        if (sizeBytes < 0) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "hipMalloc: sizeBytes must not be negative, got "
                    + sizeBytes);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ptr = a.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) malloc.invokeExact(ptr, sizeBytes);
            } catch (Throwable t) {
                throw bindingBug("hipMalloc", t);
            }
            check(rc, "hipMalloc(" + sizeBytes + " bytes)");
            return ptr.get(ADDRESS, 0).address();
        }
    }

    /** {@code hipError_t hipFree(void* ptr)}. */
    @Override
    public void free(long ptr) {
        int rc;
        try {
            rc = (int) free.invokeExact(pointer(ptr));
        } catch (Throwable t) {
            throw bindingBug("hipFree", t);
        }
        check(rc, "hipFree(" + hex(ptr) + ")");
    }

    private static String kindName(int kind) {
        return switch (kind) {
            case MEMCPY_HOST_TO_DEVICE -> "hipMemcpyHostToDevice";
            case MEMCPY_DEVICE_TO_HOST -> "hipMemcpyDeviceToHost";
            case MEMCPY_DEVICE_TO_DEVICE -> "hipMemcpyDeviceToDevice";
            default -> "hipMemcpyKind " + kind;
        };
    }

    private static void checkSize(String call, long sizeBytes) {
        if (sizeBytes < 0) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, call + ": sizeBytes must not be negative, got "
                    + sizeBytes);
        }
    }

    /** {@code hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind)}. */
    @Override
    public void memcpy(long dst, long src, long sizeBytes, int kind) {
        checkSize("hipMemcpy", sizeBytes);
        int rc;
        try {
            rc = (int) memcpy.invokeExact(pointer(dst), pointer(src), sizeBytes, kind);
        } catch (Throwable t) {
            throw bindingBug("hipMemcpy", t);
        }
        if (rc != HIP_SUCCESS) {
            throw failure(rc, "hipMemcpy(dst " + hex(dst) + ", src " + hex(src) + ", " + sizeBytes + " bytes, "
                    + kindName(kind) + ")");
        }
    }

    /**
     * {@code hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
     * hipStream_t stream)}.
     */
    @Override
    public void memcpyAsync(long dst, long src, long sizeBytes, int kind, long stream) {
        checkSize("hipMemcpyAsync", sizeBytes);
        int rc;
        try {
            rc = (int) memcpyAsync.invokeExact(pointer(dst), pointer(src), sizeBytes, kind, pointer(stream));
        } catch (Throwable t) {
            throw bindingBug("hipMemcpyAsync", t);
        }
        if (rc != HIP_SUCCESS) {
            throw failure(rc, "hipMemcpyAsync(dst " + hex(dst) + ", src " + hex(src) + ", " + sizeBytes + " bytes, "
                    + kindName(kind) + ", stream " + hex(stream) + ")");
        }
    }

    // ---- Pinned host memory ----

    /** {@code hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags)}. */
    @Override
    public void hostRegister(long hostPtr, long sizeBytes, int flags) {
        checkSize("hipHostRegister", sizeBytes);
        int rc;
        try {
            rc = (int) hostRegister.invokeExact(pointer(hostPtr), sizeBytes, flags);
        } catch (Throwable t) {
            throw bindingBug("hipHostRegister", t);
        }
        check(rc, "hipHostRegister(" + hex(hostPtr) + ", " + sizeBytes + " bytes, flags " + flags + ")");
    }

    /** {@code hipError_t hipHostUnregister(void* hostPtr)}. */
    @Override
    public void hostUnregister(long hostPtr) {
        int rc;
        try {
            rc = (int) hostUnregister.invokeExact(pointer(hostPtr));
        } catch (Throwable t) {
            throw bindingBug("hipHostUnregister", t);
        }
        check(rc, "hipHostUnregister(" + hex(hostPtr) + ")");
    }

    // ---- Sharing ----

    /** {@code hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t* handle, void* devPtr)}: the handle's 64 bytes. */
    @Override
    public byte[] ipcGetMemHandle(long devPtr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment handle = a.allocate(IPC_HANDLE_BYTES, 8);
            int rc;
            try {
                rc = (int) ipcGetMemHandle.invokeExact(handle, pointer(devPtr));
            } catch (Throwable t) {
                throw bindingBug("hipIpcGetMemHandle", t);
            }
            check(rc, "hipIpcGetMemHandle(" + hex(devPtr) + ")");
            return handle.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * {@code hipError_t hipMemGetHandleForAddressRange(void* handle, hipDeviceptr_t dptr, size_t size,
     * hipMemRangeHandleType handleType, unsigned long long flags)}; for {@link #MEM_RANGE_HANDLE_DMA_BUF_FD} the
     * handle is an {@code int} file descriptor, which this returns.
     */
    int memGetHandleForAddressRange(long dptr, long sizeBytes, int handleType, long flags) {
        checkSize("hipMemGetHandleForAddressRange", sizeBytes);
        String call = "hipMemGetHandleForAddressRange(" + hex(dptr) + ", " + sizeBytes + " bytes, handle type "
                + handleType + ", flags " + flags + ")";
        if (memGetHandleForAddressRange == null) {
            throw new DeviceException(DOMAIN, call, HIP_ERROR_NOT_SUPPORTED, "hipErrorNotSupported",
                    library + " does not export it (ROCm 6.2 or later does)");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fd = a.allocate(JAVA_INT);
            fd.set(JAVA_INT, 0, -1);
            int rc;
            try {
                rc = (int) memGetHandleForAddressRange.invokeExact(fd, pointer(dptr), sizeBytes, handleType, flags);
            } catch (Throwable t) {
                throw bindingBug("hipMemGetHandleForAddressRange", t);
            }
            check(rc, call);
            return fd.get(JAVA_INT, 0);
        }
    }

    // ---- Streams ----

    private long create(MethodHandle h, String call) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            int rc;
            try {
                rc = (int) h.invokeExact(out);
            } catch (Throwable t) {
                throw bindingBug(call, t);
            }
            check(rc, call + "()");
            return out.get(ADDRESS, 0).address();
        }
    }

    private int onHandle(MethodHandle h, String call, long handle) {
        try {
            return (int) h.invokeExact(pointer(handle));
        } catch (Throwable t) {
            throw bindingBug(call, t);
        }
    }

    /** {@code hipError_t hipStreamCreate(hipStream_t* stream)}: on the calling thread's current device. */
    @Override
    public long streamCreate() {
        return create(streamCreate, "hipStreamCreate");
    }

    /** {@code hipError_t hipStreamDestroy(hipStream_t stream)}. */
    @Override
    public void streamDestroy(long stream) {
        check(onHandle(streamDestroy, "hipStreamDestroy", stream), "hipStreamDestroy(" + hex(stream) + ")");
    }

    /** {@code hipError_t hipStreamSynchronize(hipStream_t stream)}. */
    @Override
    public void streamSynchronize(long stream) {
        check(onHandle(streamSynchronize, "hipStreamSynchronize", stream),
                "hipStreamSynchronize(" + hex(stream) + ")");
    }

    /** {@code hipError_t hipStreamQuery(hipStream_t stream)}: true when done, false for hipErrorNotReady. */
    @Override
    public boolean streamQuery(long stream) {
        return done(onHandle(streamQuery, "hipStreamQuery", stream), "hipStreamQuery(" + hex(stream) + ")");
    }

    // ---- Events ----

    /** {@code hipError_t hipEventCreate(hipEvent_t* event)}. */
    @Override
    public long eventCreate() {
        return create(eventCreate, "hipEventCreate");
    }

    /** {@code hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)}. */
    @Override
    public void eventRecord(long event, long stream) {
        int rc;
        try {
            rc = (int) eventRecord.invokeExact(pointer(event), pointer(stream));
        } catch (Throwable t) {
            throw bindingBug("hipEventRecord", t);
        }
        check(rc, "hipEventRecord(" + hex(event) + ", stream " + hex(stream) + ")");
    }

    /** {@code hipError_t hipEventQuery(hipEvent_t event)}: true when done, false for hipErrorNotReady. */
    @Override
    public boolean eventQuery(long event) {
        return done(onHandle(eventQuery, "hipEventQuery", event), "hipEventQuery(" + hex(event) + ")");
    }

    /** {@code hipError_t hipEventSynchronize(hipEvent_t event)}. */
    @Override
    public void eventSynchronize(long event) {
        check(onHandle(eventSynchronize, "hipEventSynchronize", event), "hipEventSynchronize(" + hex(event) + ")");
    }

    /** {@code hipError_t hipEventDestroy(hipEvent_t event)}. */
    @Override
    public void eventDestroy(long event) {
        check(onHandle(eventDestroy, "hipEventDestroy", event), "hipEventDestroy(" + hex(event) + ")");
    }
}
