package io.jccl.memory.cuda;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.memory.AbstractDeviceRuntime;
import io.jccl.memory.DeviceException;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaDeviceProp;
import jcuda.runtime.cudaError;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaIpcMemHandle;
import jcuda.runtime.cudaMemcpyKind;
import jcuda.runtime.cudaStream_t;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;

/**
 * The CUDA runtime functions JCCL uses, through JCuda ({@code jcuda.runtime.JCuda}), one Java method per C
 * function, on raw addresses and {@code long} handles: arguments checked, the call made, a non-zero
 * {@code cudaError_t} turned into a {@link DeviceException} naming the call, its arguments, and the error's name and
 * description ({@code cudaGetErrorName} / {@code cudaGetErrorString}).
 *
 * <p>Constructing it loads JCuda's native library ({@code JCudaRuntime-12.6.0-<os>-<arch>}, which links the CUDA
 * runtime statically and opens the driver, {@code libcuda.so.1}, only when first called) and turns JCuda's
 * exceptions off, so that errors come back as codes. Only {@link CudaLibrary} constructs it, inside a guard that
 * turns every loading failure into a reason. JCuda's {@code JCudaDriver} library is never loaded: it links
 * {@code libcuda.so.1} directly and would fail to load on a machine without the driver.
 *
 * <p>Should an application turn JCuda's exceptions back on, a {@link CudaException} is mapped back to its code,
 * so callers see the same {@link DeviceException}s (and {@code cudaErrorNotReady} still means "not done").
 *
 * <p>Addresses reach JCuda as {@link Pointer}s made from the raw address ({@link Address}); streams and events are
 * JCuda objects kept in a table under their native handle, which is what the domain sees.
 */
final class CudaRuntime extends AbstractDeviceRuntime {
    static final int SUCCESS = cudaError.cudaSuccess;
    static final int ERROR_NOT_READY = cudaError.cudaErrorNotReady;
    static final int ERROR_INSUFFICIENT_DRIVER = cudaError.cudaErrorInsufficientDriver;
    static final int ERROR_NO_DEVICE = cudaError.cudaErrorNoDevice;
    /** {@code cudaMemcpyKind}: the directions JCCL uses. */
    static final int MEMCPY_HOST_TO_DEVICE = cudaMemcpyKind.cudaMemcpyHostToDevice;
    static final int MEMCPY_DEVICE_TO_HOST = cudaMemcpyKind.cudaMemcpyDeviceToHost;
    static final int MEMCPY_DEVICE_TO_DEVICE = cudaMemcpyKind.cudaMemcpyDeviceToDevice;
    /** {@code cudaHostRegisterPortable}: pinned for every device, not only the current one. */
    static final int HOST_REGISTER_PORTABLE = JCuda.cudaHostRegisterPortable;
    /** {@code CUDA_IPC_HANDLE_SIZE}: bytes of a {@code cudaIpcMemHandle_t}. */
    static final int IPC_HANDLE_BYTES = 64;
    /** Error codes searched when mapping a {@link CudaException}'s name back to its code. */
    private static final int MAX_ERROR_CODE = 1000;

    /** A JCuda pointer at a raw address: device memory, or native host memory. */
    static final class Address extends Pointer {
        Address(long address) {
            super(address);
        }

        /** @return the address (after JCuda filled it in, e.g. by {@code cudaMalloc}) */
        long value() {
            return getNativePointer() + getByteOffset();
        }
    }

    /** A {@code cudaStream_t} whose native handle can be read. */
    private static final class Stream extends cudaStream_t {
        long handle() {
            return getNativePointer();
        }
    }

    /** A {@code cudaEvent_t} whose native handle can be read. */
    private static final class Event extends cudaEvent_t {
        long handle() {
            return getNativePointer();
        }
    }

    /** A device's name and memory, from one {@code cudaGetDeviceProperties}. */
    record Properties(String name, long totalGlobalMemBytes) {
    }

    private static volatile Map<String, Integer> codesByName;

    private static final Codes CODES = new Codes("CUDA", "cudaGetDeviceCount", MEMCPY_HOST_TO_DEVICE,
            MEMCPY_DEVICE_TO_HOST, MEMCPY_DEVICE_TO_DEVICE, HOST_REGISTER_PORTABLE, ERROR_NOT_READY);

    private final Map<Long, Stream> streams = new ConcurrentHashMap<>();
    private final Map<Long, Event> events = new ConcurrentHashMap<>();

    /**
     * Loads JCuda (its class initializer loads the native library) and turns its exceptions off.
     *
     * @throws LinkageError when JCuda or its native library is missing: {@link CudaLibrary} catches it
     */
    CudaRuntime() {
        JCuda.setExceptionsEnabled(false);
    }

    @Override
    public Codes codes() {
        return CODES;
    }

    // ---- Errors ----

    /** {@code const char* cudaGetErrorName(cudaError_t)}. */
    @Override
    protected String errorName(int error) {
        try {
            String n = JCuda.cudaGetErrorName(error);
            return n == null || n.isBlank() ? cudaError.stringFor(error) : n;
        } catch (RuntimeException | LinkageError e) {
            return cudaError.stringFor(error);
        }
    }

    /** {@code const char* cudaGetErrorString(cudaError_t)}. */
    @Override
    protected String errorString(int error) {
        try {
            String s = JCuda.cudaGetErrorString(error);
            return s == null || s.isBlank() ? "(no description)" : s;
        } catch (RuntimeException | LinkageError e) {
            return "(no description)";
        }
    }

    /**
     * Makes a call and returns its {@code cudaError_t}, also when JCuda's exceptions were turned on again (JCuda then
     * throws a {@link CudaException} carrying the error's name instead of returning it).
     */
    private static int call(IntSupplier call) {
        try {
            return call.getAsInt();
        } catch (CudaException e) {
            return codeOf(e.getMessage());
        }
    }

    /** @return the {@code cudaError_t} whose name JCuda gives as {@code name}, or -1 */
    static int codeOf(String name) {
        Map<String, Integer> m = codesByName;
        if (m == null) {
            m = new HashMap<>();
            for (int code = 0; code <= MAX_ERROR_CODE; code++) {
                m.putIfAbsent(cudaError.stringFor(code), code);
            }
            codesByName = m;
        }
        Integer code = name == null ? null : m.get(name.trim());
        return code == null ? -1 : code;
    }

    // ---- Devices and versions ----

    /** {@code cudaError_t cudaGetDeviceCount(int* count)}. */
    @Override
    public int getDeviceCount() {
        int[] count = new int[1];
        check(call(() -> JCuda.cudaGetDeviceCount(count)), "cudaGetDeviceCount()");
        return count[0];
    }

    /** {@code cudaError_t cudaSetDevice(int device)}: the calling thread's current device. */
    @Override
    public void setDevice(int device) {
        check(call(() -> JCuda.cudaSetDevice(device)), "cudaSetDevice(" + device + ")");
    }

    /** {@code cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device)}: name and memory. */
    Properties deviceProperties(int device) {
        cudaDeviceProp p = new cudaDeviceProp();
        check(call(() -> JCuda.cudaGetDeviceProperties(p, device)), "cudaGetDeviceProperties(device " + device + ")");
        return new Properties(cString(p.name), p.totalGlobalMem);
    }

    private static String cString(byte[] bytes) {
        if (bytes == null) {
            return "";
        }
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    /** {@code cudaError_t cudaRuntimeGetVersion(int*)}: 1000 * major + 10 * minor of the runtime JCuda links. */
    int runtimeVersion() {
        int[] v = new int[1];
        check(call(() -> JCuda.cudaRuntimeGetVersion(v)), "cudaRuntimeGetVersion()");
        return v[0];
    }

    /** {@code cudaError_t cudaDriverGetVersion(int*)}: the CUDA version the driver supports, 0 without a driver. */
    int driverVersion() {
        int[] v = new int[1];
        check(call(() -> JCuda.cudaDriverGetVersion(v)), "cudaDriverGetVersion()");
        return v[0];
    }

    // ---- Device memory ----

    /** {@code cudaError_t cudaMalloc(void** devPtr, size_t size)}: on the calling thread's current device. */
    @Override
    public long malloc(long sizeBytes) {
        checkSize("cudaMalloc", sizeBytes);
        Address p = new Address(0);
        check(call(() -> JCuda.cudaMalloc(p, sizeBytes)), "cudaMalloc(" + sizeBytes + " bytes)");
        return p.value();
    }

    /** {@code cudaError_t cudaFree(void* devPtr)}. */
    @Override
    public void free(long devPtr) {
        check(call(() -> JCuda.cudaFree(new Address(devPtr))), "cudaFree(" + hex(devPtr) + ")");
    }

    /** {@code cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind)}. */
    @Override
    public void memcpy(long dst, long src, long sizeBytes, int kind) {
        checkSize("cudaMemcpy", sizeBytes);
        int rc = call(() -> JCuda.cudaMemcpy(new Address(dst), new Address(src), sizeBytes, kind));
        if (rc != SUCCESS) {
            throw failure(rc, copyCall("cudaMemcpy", dst, src, sizeBytes, kind, ""));
        }
    }

    /**
     * {@code cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
     * cudaStream_t stream)}.
     */
    @Override
    public void memcpyAsync(long dst, long src, long sizeBytes, int kind, long stream) {
        checkSize("cudaMemcpyAsync", sizeBytes);
        String call = copyCall("cudaMemcpyAsync", dst, src, sizeBytes, kind, ", stream " + hex(stream));
        Stream s = stream(stream, call);
        int rc = call(() -> JCuda.cudaMemcpyAsync(new Address(dst), new Address(src), sizeBytes, kind, s));
        if (rc != SUCCESS) {
            throw failure(rc, call);
        }
    }

    // ---- Pinned host memory ----

    /** {@code cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags)}. */
    @Override
    public void hostRegister(long hostPtr, long sizeBytes, int flags) {
        checkSize("cudaHostRegister", sizeBytes);
        check(call(() -> JCuda.cudaHostRegister(new Address(hostPtr), sizeBytes, flags)),
                "cudaHostRegister(" + hex(hostPtr) + ", " + sizeBytes + " bytes, flags " + flags + ")");
    }

    /** {@code cudaError_t cudaHostUnregister(void* ptr)}. */
    @Override
    public void hostUnregister(long hostPtr) {
        check(call(() -> JCuda.cudaHostUnregister(new Address(hostPtr))), "cudaHostUnregister(" + hex(hostPtr) + ")");
    }

    // ---- Sharing ----

    /** {@code cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t* handle, void* devPtr)}: the handle's 64 bytes. */
    @Override
    public byte[] ipcGetMemHandle(long devPtr) {
        cudaIpcMemHandle handle = new cudaIpcMemHandle();
        check(call(() -> JCuda.cudaIpcGetMemHandle(handle, new Address(devPtr))),
                "cudaIpcGetMemHandle(" + hex(devPtr) + ")");
        return handleBytes(handle);
    }

    /**
     * The bytes JCuda copied into a {@code cudaIpcMemHandle}: its private {@code reserved} array, which JCuda offers
     * no accessor for (its native code fills that field by name).
     */
    static byte[] handleBytes(cudaIpcMemHandle handle) {
        try {
            byte[] reserved = (byte[]) IpcHandleField.RESERVED.get(handle);
            if (reserved == null || reserved.length != IPC_HANDLE_BYTES) {
                throw new JcclException(ErrorCode.INTERNAL_ERROR, "JCuda's cudaIpcMemHandle holds "
                        + (reserved == null ? "no bytes" : reserved.length + " bytes") + ", not " + IPC_HANDLE_BYTES);
            }
            return reserved.clone();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            if (e instanceof JcclException j) {
                throw j;
            }
            throw new JcclException(ErrorCode.INTERNAL_ERROR, "cannot read the bytes of JCuda's cudaIpcMemHandle "
                    + "(its field 'reserved'): " + e, e);
        }
    }

    /** The reflective access to {@code cudaIpcMemHandle.reserved}, made once on first use. */
    private static final class IpcHandleField {
        static final Field RESERVED;

        static {
            try {
                Field f = cudaIpcMemHandle.class.getDeclaredField("reserved");
                f.setAccessible(true);
                RESERVED = f;
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException("this JCuda's cudaIpcMemHandle has no field 'reserved'", e);
            }
        }
    }

    // ---- Streams ----

    private Stream stream(long handle, String call) {
        return live(streams, "stream", handle, call);
    }

    private Event event(long handle, String call) {
        return live(events, "event", handle, call);
    }

    /** @return the JCuda object of a stream or event created here and not yet destroyed */
    private static <T> T live(Map<Long, T> table, String what, long handle, String call) {
        T object = table.get(handle);
        if (object == null) {
            throw notLive(what, handle, call);
        }
        return object;
    }

    private static JcclException notLive(String what, long handle, String call) {
        return new JcclException(ErrorCode.INTERNAL_ERROR, call + ": no live " + what + " " + hex(handle)
                + " was created through this runtime");
    }

    /** Forgets a live stream or event of {@code table}, then destroys it (forgotten even when that fails). */
    private <H> void destroy(Map<Long, H> table, String what, String function, long handle, ToIntFunction<H> fn) {
        String call = function + "(" + hex(handle) + ")";
        H h = live(table, what, handle, call);
        table.remove(handle);
        check(call(() -> fn.applyAsInt(h)), call);
    }

    /**
     * Calls {@code fn} on a live stream or event of {@code table}: the one path of the synchronize and query calls,
     * whose text ({@code function(handle)}) is made only for a message, as queries are polled.
     *
     * @return the {@code cudaError_t}
     */
    private <H> int on(Map<Long, H> table, String what, String function, long handle,
                       ToIntFunction<? super H> fn) {
        H h = table.get(handle);
        if (h == null) {
            throw notLive(what, handle, function + "(" + hex(handle) + ")");
        }
        return call(() -> fn.applyAsInt(h));
    }

    /** {@link #on} for a call that must succeed. */
    private <H> void checkOn(Map<Long, H> table, String what, String function, long handle,
                             ToIntFunction<? super H> fn) {
        int rc = on(table, what, function, handle, fn);
        if (rc != SUCCESS) {
            throw failure(rc, function + "(" + hex(handle) + ")");
        }
    }

    /** {@code cudaError_t cudaStreamCreate(cudaStream_t* stream)}: on the calling thread's current device. */
    @Override
    public long streamCreate() {
        Stream s = new Stream();
        check(call(() -> JCuda.cudaStreamCreate(s)), "cudaStreamCreate()");
        streams.put(s.handle(), s);
        return s.handle();
    }

    /** {@code cudaError_t cudaStreamDestroy(cudaStream_t stream)}; forgets the stream even when that fails. */
    @Override
    public void streamDestroy(long stream) {
        destroy(streams, "stream", "cudaStreamDestroy", stream, JCuda::cudaStreamDestroy);
    }

    /** {@code cudaError_t cudaStreamSynchronize(cudaStream_t stream)}. */
    @Override
    public void streamSynchronize(long stream) {
        checkOn(streams, "stream", "cudaStreamSynchronize", stream, JCuda::cudaStreamSynchronize);
    }

    /** {@code cudaError_t cudaStreamQuery(cudaStream_t stream)}: true when done, false for cudaErrorNotReady. */
    @Override
    public boolean streamQuery(long stream) {
        return done(on(streams, "stream", "cudaStreamQuery", stream, JCuda::cudaStreamQuery), "cudaStreamQuery",
                stream);
    }

    // ---- Events ----

    /**
     * {@code cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, cudaEventDisableTiming)}: JCCL's events
     * only order and signal, and events without timing are the cheaper kind to record and query.
     */
    @Override
    public long eventCreate() {
        Event e = new Event();
        check(call(() -> JCuda.cudaEventCreateWithFlags(e, JCuda.cudaEventDisableTiming)),
                "cudaEventCreateWithFlags(cudaEventDisableTiming)");
        events.put(e.handle(), e);
        return e.handle();
    }

    /** {@code cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)}. */
    @Override
    public void eventRecord(long event, long stream) {
        String call = "cudaEventRecord(" + hex(event) + ", stream " + hex(stream) + ")";
        Event e = event(event, call);
        Stream s = stream(stream, call);
        check(call(() -> JCuda.cudaEventRecord(e, s)), call);
    }

    /** {@code cudaError_t cudaEventQuery(cudaEvent_t event)}: true when done, false for cudaErrorNotReady. */
    @Override
    public boolean eventQuery(long event) {
        return done(on(events, "event", "cudaEventQuery", event, JCuda::cudaEventQuery), "cudaEventQuery", event);
    }

    /** {@code cudaError_t cudaEventSynchronize(cudaEvent_t event)}. */
    @Override
    public void eventSynchronize(long event) {
        checkOn(events, "event", "cudaEventSynchronize", event, JCuda::cudaEventSynchronize);
    }

    /** {@code cudaError_t cudaEventDestroy(cudaEvent_t event)}; forgets the event even when that fails. */
    @Override
    public void eventDestroy(long event) {
        destroy(events, "event", "cudaEventDestroy", event, JCuda::cudaEventDestroy);
    }

    /** @return streams and events created and not yet destroyed (for tests) */
    int liveHandles() {
        return streams.size() + events.size();
    }
}
