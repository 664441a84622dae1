/**
 * Memory domains: where device buffers live, and how communicators and transports use them.
 *
 * <ul>
 * <li>{@link io.jccl.memory.MemoryDomain}: one device's memory — allocate and free, synchronous and stream-ordered
 *     copies host↔device and device↔device, streams and events as opaque handles, device properties, a
 *     {@link io.jccl.memory.PinnedStagingPool}, pinning host memory for a transport ({@code register}), and
 *     exporting device memory (IPC handle, dma-buf). Its allocations, {@link io.jccl.memory.DeviceMemory}, are
 *     {@link io.jccl.DeviceBuffer}s, which every {@link io.jccl.Communicator} operation accepts.</li>
 * <li>The SPI: a {@link io.jccl.memory.MemoryDomainProvider} found by {@link java.util.ServiceLoader} (name,
 *     priority, {@code availability()} with a reason) opens domains, which implement {@code MemoryDomain}'s
 *     protected {@code do*} methods on raw addresses and handles; the base class checks every argument first.
 *     Native failures are codes turned into {@link io.jccl.memory.DeviceException}s; a missing library is an
 *     unavailability reason, never an escaping {@link java.lang.LinkageError}.</li>
 * <li>{@link io.jccl.memory.MemoryDomains} picks the provider {@code JCCL_MEMORY} names ({@code host}, {@code hip},
 *     {@code cuda}, {@code auto}).</li>
 * <li>{@link io.jccl.memory.HostMemoryDomain}: FFM arenas, aligned; always available.</li>
 * <li>{@code io.jccl.memory.hip}: ROCm HIP through hand-written FFM bindings.</li>
 * <li>{@code io.jccl.memory.cuda}: NVIDIA CUDA through JCuda's runtime API.</li>
 * </ul>
 *
 * <p>Design, selection and the staging path: docs/memory.md.
 */
package io.jccl.memory;
