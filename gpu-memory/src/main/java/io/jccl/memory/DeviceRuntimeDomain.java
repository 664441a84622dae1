package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

/**
 * A GPU's memory through its vendor runtime ({@link DeviceRuntime}): the CUDA and HIP domains are this one mapping
 * of {@link MemoryDomain}'s {@code do*} methods onto runtime calls, and differ only in their runtime, in device
 * properties and dma-buf export, and in which calls need the domain's device current.
 *
 * <p>A runtime's current device is per thread: calls that create something on a device (allocations, streams,
 * events) first make this domain's device current on the calling thread, remembering per thread which device that
 * is, so that the usual case costs no call. A runtime whose every call needs it (CUDA: its first call on a thread
 * that never chose a device creates a context on device 0) asks for that at construction.
 */
public abstract class DeviceRuntimeDomain<R extends DeviceRuntime> extends MemoryDomain {
    /**
     * Per runtime class, the device each thread made current through a domain of that runtime (-1: none yet): one
     * record for all the domains of a runtime, as the runtime keeps one current device per thread for all of them.
     */
    private static final ClassValue<ThreadLocal<int[]>> CURRENT_DEVICE = new ClassValue<>() {
        @Override
        protected ThreadLocal<int[]> computeValue(Class<?> runtimeClass) {
            return ThreadLocal.withInitial(() -> new int[] {-1});
        }
    };

    private final R runtime;
    private final DeviceRuntime.Codes codes;
    /** {@link #CURRENT_DEVICE} of this domain's runtime. */
    private final ThreadLocal<int[]> currentDevice;
    private final boolean deviceForEveryCall;

    /**
     * Checks that the device exists and makes it current on the constructing thread.
     *
     * @param name               the domain's name
     * @param device             the device index, checked against the runtime's device count
     * @param runtime            the bindings
     * @param deviceForEveryCall whether every call, not only those that create something, needs the device current
     */
    protected DeviceRuntimeDomain(String name, int device, R runtime, boolean deviceForEveryCall) {
        super(name, device, PinnedStagingPool.DEFAULT_MAX_CACHED_BYTES);
        this.runtime = runtime;
        this.codes = runtime.codes();
        this.currentDevice = CURRENT_DEVICE.get(runtime.getClass());
        this.deviceForEveryCall = deviceForEveryCall;
        int count = runtime.getDeviceCount();
        if (device >= count) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, codes.displayName() + " device " + device
                    + " does not exist: " + codes.deviceCountSource() + " reports " + count + " device"
                    + (count == 1 ? "" : "s"));
        }
        useDevice();
    }

    /** @return the bindings this domain calls */
    protected final R runtime() {
        return runtime;
    }

    /** Makes this domain's device current on the calling thread unless it already is. */
    private void useDevice() {
        int[] current = currentDevice.get();
        if (current[0] != device()) {
            runtime.setDevice(device());
            current[0] = device();
        }
    }

    /** Before a call on existing memory, streams or events: the device, where the runtime wants it for every call. */
    private void beforeCall() {
        if (deviceForEveryCall) {
            useDevice();
        }
    }

    @Override
    protected int doDeviceCount() {
        return runtime.getDeviceCount();
    }

    @Override
    protected long doAllocate(long sizeBytes, long alignmentBytes) {
        useDevice();
        return runtime.malloc(sizeBytes);
    }

    @Override
    protected void doFree(long address) {
        beforeCall();
        runtime.free(address);
    }

    @Override
    protected void doCopy(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes) {
        beforeCall();
        runtime.memcpy(destinationAddress, sourceAddress, sizeBytes, codes.memcpyKind(kind));
    }

    @Override
    protected void doCopyAsync(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes,
                               long stream) {
        beforeCall();
        runtime.memcpyAsync(destinationAddress, sourceAddress, sizeBytes, codes.memcpyKind(kind), stream);
    }

    @Override
    protected long doCreateStream() {
        useDevice();
        return runtime.streamCreate();
    }

    @Override
    protected void doSynchronizeStream(long stream) {
        beforeCall();
        runtime.streamSynchronize(stream);
    }

    @Override
    protected boolean doQueryStream(long stream) {
        beforeCall();
        return runtime.streamQuery(stream);
    }

    @Override
    protected void doDestroyStream(long stream) {
        beforeCall();
        runtime.streamDestroy(stream);
    }

    @Override
    protected long doCreateEvent() {
        useDevice();
        return runtime.eventCreate();
    }

    @Override
    protected void doRecordEvent(long event, long stream) {
        beforeCall();
        runtime.eventRecord(event, stream);
    }

    @Override
    protected boolean doQueryEvent(long event) {
        beforeCall();
        return runtime.eventQuery(event);
    }

    @Override
    protected void doSynchronizeEvent(long event) {
        beforeCall();
        runtime.eventSynchronize(event);
    }

    @Override
    protected void doDestroyEvent(long event) {
        beforeCall();
        runtime.eventDestroy(event);
    }

    @Override
    protected void doPinHost(long address, long sizeBytes) {
        beforeCall();
        runtime.hostRegister(address, sizeBytes, codes.portableHostRegister());
    }

    @Override
    protected void doUnpinHost(long address) {
        beforeCall();
        runtime.hostUnregister(address);
    }

    @Override
    protected byte[] doIpcHandle(long address) {
        beforeCall();
        return runtime.ipcGetMemHandle(address);
    }
}
