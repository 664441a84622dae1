/**
 * NVIDIA CUDA device memory through JCuda 12.6.0 ({@code org.jcuda:jcuda}, the runtime API only):
 * {@link io.jccl.memory.cuda.CudaMemoryDomain}, found as the {@code cuda} provider.
 *
 * <h2>Detection</h2>
 * {@code CudaLibrary} loads JCuda once per JVM inside a guard: missing JCuda classes, a missing native library
 * ({@code UnsatisfiedLinkError}, then {@code NoClassDefFoundError}), or any other loading failure becomes the
 * provider's unavailability reason, never an exception. JCuda's exceptions are turned off, so CUDA errors are
 * codes; {@code cudaGetDeviceCount} then tells "no driver" ({@code cudaErrorInsufficientDriver} with
 * {@code cudaDriverGetVersion} 0), "driver too old", and "no device" ({@code cudaErrorNoDevice}) apart. JCuda's
 * runtime library carries the CUDA runtime inside and opens the driver ({@code libcuda.so.1}) only when called, so it
 * loads on machines without one; JCuda's driver-API library ({@code JCudaDriver}) links the driver and is never
 * loaded.
 *
 * <h2>Calls</h2>
 * <pre>
 * cudaGetDeviceCount, cudaSetDevice, cudaGetDeviceProperties (name, totalGlobalMem),
 * cudaRuntimeGetVersion, cudaDriverGetVersion,
 * cudaMalloc, cudaFree, cudaMemcpy, cudaMemcpyAsync (HostToDevice, DeviceToHost, DeviceToDevice),
 * cudaHostRegister (cudaHostRegisterPortable), cudaHostUnregister, cudaIpcGetMemHandle (64 bytes),
 * cudaStreamCreate, cudaStreamSynchronize, cudaStreamQuery, cudaStreamDestroy,
 * cudaEventCreateWithFlags (cudaEventDisableTiming), cudaEventRecord, cudaEventQuery, cudaEventSynchronize,
 * cudaEventDestroy, cudaGetErrorName, cudaGetErrorString
 * </pre>
 * Raw addresses become JCuda {@code Pointer}s through its protected address constructor; streams and events are
 * kept in a table under their native handles. {@code cudaErrorNotReady} (600) from the queries means "not done".
 *
 * <h2>Tests</h2>
 * Without a GPU (the build machines), the tests check detection (no driver, no natives jar, no JCuda at all, in
 * child JVMs), the provider's place in {@code JCCL_MEMORY}, and that every binding reaches CUDA and comes back as a
 * {@code DeviceException} naming the call; the device conformance suite and the device all-reduce run for
 * {@code cuda} only where a GPU answers ({@code benchmarks/gpu/run-gpu-checks.sh}). See docs/memory.md.
 */
package io.jccl.memory.cuda;
