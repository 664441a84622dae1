package io.jccl.memory.hip;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.AbstractDeviceRuntime;
import io.jccl.memory.DeviceException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import java.util.function.Function;

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
final class HipRuntime extends AbstractDeviceRuntime {
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
                HOST_REGISTER_PORTABLE, HIP_ERROR_NOT_READY);
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
    @Override
    protected String errorName(int error) {
        try {
            return string((MemorySegment) getErrorName.invokeExact(error), "hipError" + error);
        } catch (Throwable t) {
            return "hipError" + error;
        }
    }

    /** {@code const char* hipGetErrorString(hipError_t)}. */
    @Override
    protected String errorString(int error) {
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

    private static JcclException bindingBug(String call, Throwable t) {
        return new JcclException(ErrorCode.INTERNAL_ERROR, "calling " + call + " through FFM failed: " + t, t);
    }

    /** A downcall; it returns the {@code hipError_t}. */
    @FunctionalInterface
    private interface Call {
        int invoke() throws Throwable;
    }

    /**
     * @param function the C function, for a binding failure
     * @return the {@code hipError_t} the call returned
     */
    private static int call(String function, Call c) {
        try {
            return c.invoke();
        } catch (Throwable t) {
            throw bindingBug(function, t);
        }
    }

    /** A downcall that answers through the pointer it is given; it returns the {@code hipError_t}. */
    @FunctionalInterface
    private interface OutCall {
        int invoke(MemorySegment out) throws Throwable;
    }

    /**
     * Makes a call that answers through an out-parameter: allocates it ({@code layout}), calls, throws a failure
     * naming {@code call}, and reads the answer before the memory is freed.
     *
     * @param function the C function, for a binding failure
     */
    private <T> T callWithOut(MemoryLayout layout, String function, String call, OutCall c,
                              Function<MemorySegment, T> read) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(layout);
            check(call(function, () -> c.invoke(out)), call);
            return read.apply(out);
        }
    }

    private static int intAnswer(MemorySegment out) {
        return out.get(JAVA_INT, 0);
    }

    private static MemorySegment pointer(long address) {
        return MemorySegment.ofAddress(address);
    }

    // ---- Devices ----

    /** {@code hipError_t hipGetDeviceCount(int* count)}. */
    @Override
    public int getDeviceCount() {
        return callWithOut(JAVA_INT, "hipGetDeviceCount", "hipGetDeviceCount()",
                count -> (int) getDeviceCount.invokeExact(count), HipRuntime::intAnswer);
    }

    /** {@code hipError_t hipSetDevice(int deviceId)}: the calling thread's current device. */
    @Override
    public void setDevice(int device) {
        check(call("hipSetDevice", () -> (int) setDevice.invokeExact(device)), "hipSetDevice(" + device + ")");
    }

    /** {@code hipError_t hipGetDevice(int* deviceId)}. */
    int getDevice() {
        return callWithOut(JAVA_INT, "hipGetDevice", "hipGetDevice()", device -> (int) getDevice.invokeExact(device),
                HipRuntime::intAnswer);
    }

    /** {@code hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device)}. */
    String deviceName(int device) {
        return callWithOut(MemoryLayout.sequenceLayout(NAME_BYTES, ValueLayout.JAVA_BYTE), "hipDeviceGetName",
                "hipDeviceGetName(device " + device + ")",
                name -> (int) deviceGetName.invokeExact(name, NAME_BYTES, device), name -> {
                    name.set(ValueLayout.JAVA_BYTE, NAME_BYTES - 1, (byte) 0);   // whatever the library did
                    return name.getString(0);
                });
    }

    /** {@code hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device)}. */
    long deviceTotalMem(int device) {
        return callWithOut(JAVA_LONG, "hipDeviceTotalMem", "hipDeviceTotalMem(device " + device + ")",
                bytes -> (int) deviceTotalMem.invokeExact(bytes, device), bytes -> bytes.get(JAVA_LONG, 0));
    }

    /** {@code hipError_t hipRuntimeGetVersion(int* runtimeVersion)}. */
    int runtimeVersion() {
        return callWithOut(JAVA_INT, "hipRuntimeGetVersion", "hipRuntimeGetVersion()",
                version -> (int) runtimeGetVersion.invokeExact(version), HipRuntime::intAnswer);
    }

    // ---- Device memory ----

    /** {@code hipError_t hipMalloc(void** ptr, size_t size)}: on the calling thread's current device. */
    @Override
    public long malloc(long sizeBytes) {
        checkSize("hipMalloc", sizeBytes);
        return callWithOut(ADDRESS, "hipMalloc", "hipMalloc(" + sizeBytes + " bytes)",
                ptr -> (int) malloc.invokeExact(ptr, sizeBytes), HipRuntime::addressAnswer);
    }

    private static long addressAnswer(MemorySegment out) {
        return out.get(ADDRESS, 0).address();
    }

    /** {@code hipError_t hipFree(void* ptr)}. */
    @Override
    public void free(long ptr) {
        check(call("hipFree", () -> (int) free.invokeExact(pointer(ptr))), "hipFree(" + hex(ptr) + ")");
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
            throw failure(rc, copyCall("hipMemcpy", dst, src, sizeBytes, kind, ""));
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
            throw failure(rc, copyCall("hipMemcpyAsync", dst, src, sizeBytes, kind, ", stream " + hex(stream)));
        }
    }

    // ---- Pinned host memory ----

    /** {@code hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags)}. */
    @Override
    public void hostRegister(long hostPtr, long sizeBytes, int flags) {
        checkSize("hipHostRegister", sizeBytes);
        check(call("hipHostRegister", () -> (int) hostRegister.invokeExact(pointer(hostPtr), sizeBytes, flags)),
                "hipHostRegister(" + hex(hostPtr) + ", " + sizeBytes + " bytes, flags " + flags + ")");
    }

    /** {@code hipError_t hipHostUnregister(void* hostPtr)}. */
    @Override
    public void hostUnregister(long hostPtr) {
        check(call("hipHostUnregister", () -> (int) hostUnregister.invokeExact(pointer(hostPtr))),
                "hipHostUnregister(" + hex(hostPtr) + ")");
    }

    // ---- Sharing ----

    /** {@code hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t* handle, void* devPtr)}: the handle's 64 bytes. */
    @Override
    public byte[] ipcGetMemHandle(long devPtr) {
        return callWithOut(MemoryLayout.sequenceLayout(IPC_HANDLE_BYTES, ValueLayout.JAVA_BYTE).withByteAlignment(8),
                "hipIpcGetMemHandle", "hipIpcGetMemHandle(" + hex(devPtr) + ")",
                handle -> (int) ipcGetMemHandle.invokeExact(handle, pointer(devPtr)),
                handle -> handle.toArray(ValueLayout.JAVA_BYTE));
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
            throw new DeviceException(domain(), call, HIP_ERROR_NOT_SUPPORTED, "hipErrorNotSupported",
                    library + " does not export it (ROCm 6.2 or later does)");
        }
        return callWithOut(JAVA_INT, "hipMemGetHandleForAddressRange", call, fd -> {
            fd.set(JAVA_INT, 0, -1);
            return (int) memGetHandleForAddressRange.invokeExact(fd, pointer(dptr), sizeBytes, handleType, flags);
        }, HipRuntime::intAnswer);
    }

    // ---- Streams ----

    private long create(MethodHandle h, String call) {
        return callWithOut(ADDRESS, call, call + "()", out -> (int) h.invokeExact(out), HipRuntime::addressAnswer);
    }

    /** Called directly, not through {@link #call}: the queries are polled, and a capturing lambda may allocate. */
    private int onHandle(MethodHandle h, String function, long handle) {
        try {
            return (int) h.invokeExact(pointer(handle));
        } catch (Throwable t) {
            throw bindingBug(function, t);
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
        return done(onHandle(streamQuery, "hipStreamQuery", stream), "hipStreamQuery", stream);
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
        check(call("hipEventRecord", () -> (int) eventRecord.invokeExact(pointer(event), pointer(stream))),
                "hipEventRecord(" + hex(event) + ", stream " + hex(stream) + ")");
    }

    /** {@code hipError_t hipEventQuery(hipEvent_t event)}: true when done, false for hipErrorNotReady. */
    @Override
    public boolean eventQuery(long event) {
        return done(onHandle(eventQuery, "hipEventQuery", event), "hipEventQuery", event);
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
