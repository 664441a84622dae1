/**
 * ROCm HIP device memory through hand-written Panama FFM bindings to {@code libamdhip64} (no JNI, no generated
 * code): {@link io.jccl.memory.hip.HipMemoryDomain} on {@code HipRuntime}, found as the {@code hip} provider.
 *
 * <h2>Loading</h2>
 * {@code -Djccl.hip.library} or {@code JCCL_HIP_LIBRARY} names the library (path or soname); otherwise
 * {@code libamdhip64.so.7}, {@code .so.6}, {@code .so.5}, {@code .so} through the dynamic loader, then under
 * {@code $ROCM_PATH/lib} and {@code /opt/rocm/lib}. Missing library, missing function, no device or no native
 * access make the provider unavailable with a reason; nothing escapes as an exception.
 *
 * <h2>ABI assumptions (LP64 Linux, x86-64 and AArch64; from ROCm's {@code hip_runtime_api.h})</h2>
 * <table>
 * <caption>C types and their FFM layouts</caption>
 * <tr><th>C</th><th>FFM</th></tr>
 * <tr><td>{@code hipError_t} (enum; 0 = hipSuccess)</td><td>{@code JAVA_INT}</td></tr>
 * <tr><td>{@code hipMemcpyKind} (enum: HostToDevice 1, DeviceToHost 2, DeviceToDevice 3)</td>
 *     <td>{@code JAVA_INT}</td></tr>
 * <tr><td>{@code hipMemRangeHandleType} (enum: DmaBufFd 1)</td><td>{@code JAVA_INT}</td></tr>
 * <tr><td>{@code hipDevice_t}, {@code int}, {@code unsigned int} flags</td><td>{@code JAVA_INT}</td></tr>
 * <tr><td>{@code size_t}, {@code unsigned long long}</td><td>{@code JAVA_LONG}</td></tr>
 * <tr><td>{@code void*}, {@code hipDeviceptr_t}, {@code hipStream_t}, {@code hipEvent_t}, {@code const char*}</td>
 *     <td>{@code ADDRESS} (handles are pointers, kept as {@code long})</td></tr>
 * <tr><td>{@code hipIpcMemHandle_t} ({@code struct { char reserved[64]; }}, passed by pointer)</td>
 *     <td>64 bytes, 8-aligned</td></tr>
 * </table>
 *
 * <h2>Functions</h2>
 * <pre>
 * hipError_t hipGetDeviceCount(int* count);
 * hipError_t hipSetDevice(int deviceId);
 * hipError_t hipGetDevice(int* deviceId);
 * hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device);
 * hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device);
 * hipError_t hipRuntimeGetVersion(int* runtimeVersion);
 * hipError_t hipMalloc(void** ptr, size_t size);
 * hipError_t hipFree(void* ptr);
 * hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind);
 * hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream);
 * hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags);
 * hipError_t hipHostUnregister(void* hostPtr);
 * hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t* handle, void* devPtr);
 * hipError_t hipMemGetHandleForAddressRange(void* handle, hipDeviceptr_t dptr, size_t size,
 *                                           hipMemRangeHandleType handleType, unsigned long long flags); // optional
 * hipError_t hipStreamCreate(hipStream_t* stream);
 * hipError_t hipStreamDestroy(hipStream_t stream);
 * hipError_t hipStreamSynchronize(hipStream_t stream);
 * hipError_t hipStreamQuery(hipStream_t stream);          // hipErrorNotReady (600): not done
 * hipError_t hipEventCreate(hipEvent_t* event);
 * hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
 * hipError_t hipEventQuery(hipEvent_t event);             // hipErrorNotReady (600): not done
 * hipError_t hipEventSynchronize(hipEvent_t event);
 * hipError_t hipEventDestroy(hipEvent_t event);
 * const char* hipGetErrorName(hipError_t error);
 * const char* hipGetErrorString(hipError_t error);
 * </pre>
 * Functions whose symbols ROCm versions (e.g. {@code hipGetDeviceProperties}, {@code hipDeviceProp_t} changed
 * layout in ROCm 6) are avoided on purpose: the name and total memory come from {@code hipDeviceGetName} and
 * {@code hipDeviceTotalMem}, whose signatures have not changed.
 *
 * <h2>Tests</h2>
 * The bindings run against {@code src/test/native/hipstub.c}, a C library with the same symbols and ABI backed by
 * host memory (device bytes stored scrambled, so only copies reach them), which the build compiles with gcc into
 * {@code target/native/libhipstub.so}; see docs/memory.md.
 */
package io.jccl.memory.hip;
