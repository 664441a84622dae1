package io.jccl.memory;

/**
 * The runtime calls a GPU memory domain ({@link DeviceRuntimeDomain}) makes, one method per C function of the
 * vendor runtime (CUDA, HIP), on raw addresses and {@code long} handles; a failed call throws a
 * {@link DeviceException} naming it. Both runtimes have the same functions under their own prefix, so one domain
 * implementation serves both.
 */
public interface DeviceRuntime {
    /**
     * What differs between runtimes besides their functions: names for messages and the values of their enums.
     *
     * @param displayName       the runtime's name in messages, e.g. {@code "CUDA"}
     * @param deviceCountSource what reports the device count, for the message about a device that does not exist
     * @param hostToDevice      {@code memcpyKind} host to device
     * @param deviceToHost      {@code memcpyKind} device to host
     * @param deviceToDevice    {@code memcpyKind} device to device
     * @param portableHostRegister the {@code hostRegister} flag that pins for every device, not only the current one
     * @param notReady          the error a stream or event query returns while work is still pending
     */
    record Codes(String displayName, String deviceCountSource, int hostToDevice, int deviceToHost,
                 int deviceToDevice, int portableHostRegister, int notReady) {
        /** @return the runtime's {@code memcpyKind} for a copy direction */
        public int memcpyKind(CopyKind kind) {
            return switch (kind) {
                case HOST_TO_DEVICE -> hostToDevice;
                case DEVICE_TO_HOST -> deviceToHost;
                case DEVICE_TO_DEVICE -> deviceToDevice;
            };
        }
    }

    /** @return this runtime's names and enum values */
    Codes codes();

    /** {@code getDeviceCount(int* count)}. */
    int getDeviceCount();

    /** {@code setDevice(int device)}: the calling thread's current device. */
    void setDevice(int device);

    /** {@code malloc(void** ptr, size_t size)}: on the calling thread's current device. */
    long malloc(long sizeBytes);

    /** {@code free(void* ptr)}. */
    void free(long devPtr);

    /** {@code memcpy(void* dst, const void* src, size_t size, memcpyKind kind)}. */
    void memcpy(long dst, long src, long sizeBytes, int kind);

    /** {@code memcpyAsync(void* dst, const void* src, size_t size, memcpyKind kind, stream_t stream)}. */
    void memcpyAsync(long dst, long src, long sizeBytes, int kind, long stream);

    /** {@code hostRegister(void* ptr, size_t size, unsigned int flags)}. */
    void hostRegister(long hostPtr, long sizeBytes, int flags);

    /** {@code hostUnregister(void* ptr)}. */
    void hostUnregister(long hostPtr);

    /** {@code ipcGetMemHandle(ipcMemHandle_t* handle, void* devPtr)}: the handle's bytes. */
    byte[] ipcGetMemHandle(long devPtr);

    /** {@code streamCreate(stream_t* stream)}: on the calling thread's current device. */
    long streamCreate();

    /** {@code streamDestroy(stream_t stream)}. */
    void streamDestroy(long stream);

    /** {@code streamSynchronize(stream_t stream)}. */
    void streamSynchronize(long stream);

    /** {@code streamQuery(stream_t stream)}: true when done, false for "not ready". */
    boolean streamQuery(long stream);

    /** {@code eventCreate(event_t* event)}: on the calling thread's current device. */
    long eventCreate();

    /** {@code eventRecord(event_t event, stream_t stream)}. */
    void eventRecord(long event, long stream);

    /** {@code eventQuery(event_t event)}: true when done, false for "not ready". */
    boolean eventQuery(long event);

    /** {@code eventSynchronize(event_t event)}. */
    void eventSynchronize(long event);

    /** {@code eventDestroy(event_t event)}. */
    void eventDestroy(long event);
}
