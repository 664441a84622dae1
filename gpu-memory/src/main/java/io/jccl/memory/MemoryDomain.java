package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Memory of one device of one kind (host, ROCm HIP, CUDA): allocation, copies between host and device memory
 * (synchronous, or asynchronous on a {@link DeviceStream}), events, device properties, a
 * {@link PinnedStagingPool} for staging, pinning host memory for a transport, and exporting device memory to
 * other processes and NICs. Opened by {@link MemoryDomains#open} (or a provider); closed by {@link #close()},
 * which frees whatever is left.
 *
 * <h2>For users</h2>
 * The public methods check every argument (ranges, ownership, freed memory, a closed domain) and fail with
 * {@link JcclException}: INVALID_ARGUMENT for bad arguments, INVALID_USAGE for freed or closed things, and
 * {@link DeviceException} (SYSTEM_ERROR, naming the native call and error) when the device refuses. An allocation
 * is a {@link DeviceMemory}, which every {@link io.jccl.Communicator} operation accepts. Thread-safe, except that
 * {@link #close()} must not race with other calls.
 *
 * <h2>For implementers (the SPI)</h2>
 * A domain implements the protected {@code do*} methods on raw addresses and opaque handles; this class does all
 * checking and bookkeeping before it calls them, so they may assume valid, live, in-range arguments. They turn
 * native error codes into {@link DeviceException}s and must never let a {@link LinkageError} escape. Addresses
 * are in the process's virtual address space (device pointers for GPUs, as with HIP's and CUDA's unified
 * addressing); handles (streams, events) are whatever the native API uses, as a {@code long}. Register a
 * {@link MemoryDomainProvider} through {@link java.util.ServiceLoader} to make the domain selectable.
 */
public abstract class MemoryDomain implements AutoCloseable {
    /** Alignment of {@link #allocate(long)}: what GPU allocators guarantee anyway. */
    public static final long DEFAULT_ALIGNMENT_BYTES = 256;
    /** Largest alignment {@link #allocate(long, long)} accepts: 1 GiB. */
    public static final long MAX_ALIGNMENT_BYTES = 1L << 30;
    /** Page size assumed for dma-buf exports. */
    static final long PAGE_BYTES = 4096;

    private final String name;
    private final int device;
    private final PinnedStagingPool staging;
    private final Set<DeviceMemory> live = ConcurrentHashMap.newKeySet();
    private final Set<DeviceStream> streams = ConcurrentHashMap.newKeySet();
    private final Set<DeviceEvent> events = ConcurrentHashMap.newKeySet();
    private final Set<HostRegistration> registrations = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param name                  the domain's name, as {@code JCCL_MEMORY} selects it (e.g. {@code hip})
     * @param device                the device index this domain works on
     * @param stagingMaxCachedBytes bound of the staging pool's cache ({@link PinnedStagingPool})
     */
    protected MemoryDomain(String name, int device, long stagingMaxCachedBytes) {
        if (name == null || name.isBlank()) {
            throw invalid("name must not be blank");
        }
        if (device < 0) {
            throw invalid("device must not be negative, got " + device);
        }
        this.name = name;
        this.device = device;
        this.staging = new PinnedStagingPool(name, new PinnedStagingPool.Pinner() {
            @Override
            public void pin(MemorySegment segment) {
                doPinHost(segment.address(), segment.byteSize());
            }

            @Override
            public void unpin(MemorySegment segment) {
                doUnpinHost(segment.address());
            }
        }, stagingMaxCachedBytes);
    }

    // ---- Identity and devices ----

    /** @return the domain's name ({@code host}, {@code hip}, ...) */
    public final String name() {
        return name;
    }

    /** @return the device index this domain allocates on */
    public final int device() {
        return device;
    }

    /** @return whether {@link #close()} was called */
    public final boolean isClosed() {
        return closed;
    }

    /** @return how many devices of this kind the machine has */
    public final int deviceCount() {
        checkOpen();
        return doDeviceCount();
    }

    /** @return the properties of this domain's device */
    public final DeviceProperties properties() {
        return properties(device);
    }

    /**
     * @param deviceIndex a device, 0 to {@link #deviceCount()} - 1
     * @return its name and memory
     */
    public final DeviceProperties properties(int deviceIndex) {
        checkOpen();
        int count = doDeviceCount();
        if (deviceIndex < 0 || deviceIndex >= count) {
            throw invalid("device " + deviceIndex + " is out of range: the " + name + " domain has devices 0 to "
                    + (count - 1));
        }
        return doProperties(deviceIndex);
    }

    // ---- Allocation ----

    /**
     * {@link #allocate(long, long)} with {@link #DEFAULT_ALIGNMENT_BYTES}.
     *
     * @param sizeBytes bytes, 0 or more
     * @return the memory
     */
    public final DeviceMemory allocate(long sizeBytes) {
        return allocate(sizeBytes, DEFAULT_ALIGNMENT_BYTES);
    }

    /**
     * Allocates memory on this domain's device. Its contents are undefined.
     *
     * @param sizeBytes      bytes, 0 or more (0 gives an empty buffer at address 0)
     * @param alignmentBytes a power of two up to {@link #MAX_ALIGNMENT_BYTES}
     * @return the memory; free it with {@link #free} or {@link DeviceMemory#close()}
     * @throws DeviceException when the device cannot allocate it (e.g. out of memory)
     */
    public final DeviceMemory allocate(long sizeBytes, long alignmentBytes) {
        checkOpen();
        if (sizeBytes < 0) {
            throw invalid("sizeBytes must not be negative, got " + sizeBytes);
        }
        if (alignmentBytes < 1 || alignmentBytes > MAX_ALIGNMENT_BYTES || Long.bitCount(alignmentBytes) != 1) {
            throw invalid("alignmentBytes must be a power of two from 1 to " + MAX_ALIGNMENT_BYTES + ", got "
                    + alignmentBytes);
        }
        if (sizeBytes == 0) {
            return track(new DeviceMemory(this, 0, 0, 0, doHostView(0, 0)));
        }
        long base = doAllocate(sizeBytes, alignmentBytes);
        long address = base;
        if ((base & (alignmentBytes - 1)) != 0) {
            // The allocator's own alignment is smaller: allocate enough to start at an aligned address inside.
            doFree(base);
            if (sizeBytes > Long.MAX_VALUE - alignmentBytes) {
                throw invalid("sizeBytes " + sizeBytes + " + alignment " + alignmentBytes + " overflows");
            }
            base = doAllocate(sizeBytes + alignmentBytes - 1, alignmentBytes);
            address = (base + alignmentBytes - 1) & -alignmentBytes;
        }
        return track(new DeviceMemory(this, address, base, sizeBytes, doHostView(address, sizeBytes)));
    }

    private DeviceMemory track(DeviceMemory m) {
        live.add(m);
        return m;
    }

    /**
     * Frees memory this domain allocated.
     *
     * @param memory the memory
     * @throws JcclException INVALID_ARGUMENT for memory of another domain, INVALID_USAGE when already freed
     */
    public final void free(DeviceMemory memory) {
        checkOpen();
        Objects.requireNonNull(memory, "memory");
        if (memory.domain() != this) {
            throw invalid(memory + " belongs to another " + memory.domainName() + " domain, not to this one ("
                    + this + ")");
        }
        if (!memory.markReleased()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, memory + " was freed already");
        }
        live.remove(memory);
        release(memory);
    }

    /** {@link DeviceMemory#close()}: frees unless freed already (by anyone, or by closing this domain). */
    final void freeIfAlive(DeviceMemory memory) {
        if (!closed && memory.markReleased()) {
            live.remove(memory);
            release(memory);
        }
    }

    private void release(DeviceMemory memory) {
        if (memory.byteSize() > 0) {
            doFree(memory.baseAddress());
        }
    }

    /** @return how many allocations are live (not freed) */
    public final int liveAllocations() {
        return live.size();
    }

    // ---- Synchronous copies ----

    /**
     * Copies host memory into device memory; returns when done. Heap segments are copied through the staging
     * pool (device copies need native memory).
     *
     * @param source                 host memory
     * @param sourceOffsetBytes      where to start reading
     * @param destination            device memory of this domain
     * @param destinationOffsetBytes where to start writing
     * @param sizeBytes              bytes
     */
    public final void copyHostToDevice(MemorySegment source, long sourceOffsetBytes, DeviceMemory destination,
                                       long destinationOffsetBytes, long sizeBytes) {
        checkOpen();
        checkHost("source", source, sourceOffsetBytes, sizeBytes, false);
        checkDevice("destination", destination, destinationOffsetBytes, sizeBytes);
        if (sizeBytes == 0) {
            return;
        }
        long to = destination.address() + destinationOffsetBytes;
        if (source.isNative()) {
            doCopy(CopyKind.HOST_TO_DEVICE, to, source.address() + sourceOffsetBytes, sizeBytes);
            return;
        }
        MemorySegment bounce = staging.acquire(sizeBytes);
        try {
            MemorySegment.copy(source, sourceOffsetBytes, bounce, 0, sizeBytes);
            doCopy(CopyKind.HOST_TO_DEVICE, to, bounce.address(), sizeBytes);
        } finally {
            staging.release(bounce);
        }
    }

    /**
     * Copies device memory into host memory; returns when done. Heap segments are copied through the staging pool.
     *
     * @param source                 device memory of this domain
     * @param sourceOffsetBytes      where to start reading
     * @param destination            host memory, writable
     * @param destinationOffsetBytes where to start writing
     * @param sizeBytes              bytes
     */
    public final void copyDeviceToHost(DeviceMemory source, long sourceOffsetBytes, MemorySegment destination,
                                       long destinationOffsetBytes, long sizeBytes) {
        checkOpen();
        checkDevice("source", source, sourceOffsetBytes, sizeBytes);
        checkHost("destination", destination, destinationOffsetBytes, sizeBytes, true);
        if (sizeBytes == 0) {
            return;
        }
        long from = source.address() + sourceOffsetBytes;
        if (destination.isNative()) {
            doCopy(CopyKind.DEVICE_TO_HOST, destination.address() + destinationOffsetBytes, from, sizeBytes);
            return;
        }
        MemorySegment bounce = staging.acquire(sizeBytes);
        try {
            doCopy(CopyKind.DEVICE_TO_HOST, bounce.address(), from, sizeBytes);
            MemorySegment.copy(bounce, 0, destination, destinationOffsetBytes, sizeBytes);
        } finally {
            staging.release(bounce);
        }
    }

    /**
     * Copies between two allocations of this domain (they may be the same; overlapping ranges are undefined, as
     * with the native calls); returns when done.
     *
     * @param source                 device memory
     * @param sourceOffsetBytes      where to start reading
     * @param destination            device memory
     * @param destinationOffsetBytes where to start writing
     * @param sizeBytes              bytes
     */
    public final void copyDeviceToDevice(DeviceMemory source, long sourceOffsetBytes, DeviceMemory destination,
                                         long destinationOffsetBytes, long sizeBytes) {
        checkOpen();
        checkDevice("source", source, sourceOffsetBytes, sizeBytes);
        checkDevice("destination", destination, destinationOffsetBytes, sizeBytes);
        if (sizeBytes > 0) {
            doCopy(CopyKind.DEVICE_TO_DEVICE, destination.address() + destinationOffsetBytes,
                    source.address() + sourceOffsetBytes, sizeBytes);
        }
    }

    // ---- Asynchronous copies ----

    /**
     * Queues a copy of native host memory into device memory on {@code stream}; it is done once the stream is
     * {@linkplain #synchronize(DeviceStream) synchronized} (or an event recorded after it completes). The source
     * must stay alive and unchanged until then; pinned memory (the staging pool, {@link #register}) lets the
     * device copy without an intermediate buffer.
     *
     * @param source                 native host memory
     * @param sourceOffsetBytes      where to start reading
     * @param destination            device memory of this domain
     * @param destinationOffsetBytes where to start writing
     * @param sizeBytes              bytes
     * @param stream                 a stream of this domain
     */
    public final void copyHostToDeviceAsync(MemorySegment source, long sourceOffsetBytes, DeviceMemory destination,
                                            long destinationOffsetBytes, long sizeBytes, DeviceStream stream) {
        checkOpen();
        checkHost("source", source, sourceOffsetBytes, sizeBytes, false);
        checkNative("source", source);
        checkDevice("destination", destination, destinationOffsetBytes, sizeBytes);
        queueCopy(CopyKind.HOST_TO_DEVICE, destination.address() + destinationOffsetBytes,
                source.address() + sourceOffsetBytes, sizeBytes, stream);
    }

    /**
     * Queues a copy of device memory into native host memory on {@code stream}; the destination holds the data
     * once the stream is synchronized.
     *
     * @param source                 device memory of this domain
     * @param sourceOffsetBytes      where to start reading
     * @param destination            native host memory, writable
     * @param destinationOffsetBytes where to start writing
     * @param sizeBytes              bytes
     * @param stream                 a stream of this domain
     */
    public final void copyDeviceToHostAsync(DeviceMemory source, long sourceOffsetBytes, MemorySegment destination,
                                            long destinationOffsetBytes, long sizeBytes, DeviceStream stream) {
        checkOpen();
        checkDevice("source", source, sourceOffsetBytes, sizeBytes);
        checkHost("destination", destination, destinationOffsetBytes, sizeBytes, true);
        checkNative("destination", destination);
        queueCopy(CopyKind.DEVICE_TO_HOST, destination.address() + destinationOffsetBytes,
                source.address() + sourceOffsetBytes, sizeBytes, stream);
    }

    /**
     * Queues a copy between two allocations of this domain on {@code stream}.
     *
     * @param source                 device memory
     * @param sourceOffsetBytes      where to start reading
     * @param destination            device memory
     * @param destinationOffsetBytes where to start writing
     * @param sizeBytes              bytes
     * @param stream                 a stream of this domain
     */
    public final void copyDeviceToDeviceAsync(DeviceMemory source, long sourceOffsetBytes, DeviceMemory destination,
                                              long destinationOffsetBytes, long sizeBytes, DeviceStream stream) {
        checkOpen();
        checkDevice("source", source, sourceOffsetBytes, sizeBytes);
        checkDevice("destination", destination, destinationOffsetBytes, sizeBytes);
        queueCopy(CopyKind.DEVICE_TO_DEVICE, destination.address() + destinationOffsetBytes,
                source.address() + sourceOffsetBytes, sizeBytes, stream);
    }

    /** The end of every asynchronous copy, once its memory is checked: the stream checked, the copy queued. */
    private void queueCopy(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes,
                           DeviceStream stream) {
        checkStream(stream);
        if (sizeBytes > 0) {
            doCopyAsync(kind, destinationAddress, sourceAddress, sizeBytes, stream.handle());
        }
    }

    // ---- Streams and events ----

    /** @return a new stream on this domain's device; close it when done */
    public final DeviceStream createStream() {
        checkOpen();
        DeviceStream s = new DeviceStream(this, doCreateStream());
        streams.add(s);
        return s;
    }

    /**
     * Waits until everything queued on {@code stream} is done.
     *
     * @param stream a stream of this domain
     * @throws DeviceException when queued work failed
     */
    public final void synchronize(DeviceStream stream) {
        checkOpen();
        checkStream(stream);
        doSynchronizeStream(stream.handle());
    }

    /**
     * @param stream a stream of this domain
     * @return whether everything queued on it is done (without waiting)
     */
    public final boolean isComplete(DeviceStream stream) {
        checkOpen();
        checkStream(stream);
        return doQueryStream(stream.handle());
    }

    /** Finishes and destroys a stream (through {@link DeviceStream#close()}); idempotent. */
    final void destroy(DeviceStream stream) {
        if (stream.markReleased()) {
            streams.remove(stream);
            doDestroyStream(stream.handle());
        }
    }

    /**
     * Records an event after the work queued on {@code stream} so far.
     *
     * @param stream a stream of this domain
     * @return the event; close it when done
     */
    public final DeviceEvent recordEvent(DeviceStream stream) {
        checkOpen();
        checkStream(stream);
        long handle = doCreateEvent();
        try {
            doRecordEvent(handle, stream.handle());
        } catch (RuntimeException e) {
            doDestroyEvent(handle);
            throw e;
        }
        DeviceEvent event = new DeviceEvent(this, handle);
        events.add(event);
        return event;
    }

    /**
     * @param event an event of this domain
     * @return whether the work before it is done (without waiting)
     */
    public final boolean isComplete(DeviceEvent event) {
        checkOpen();
        checkEvent(event);
        return doQueryEvent(event.handle());
    }

    /**
     * Waits until the work before {@code event} is done.
     *
     * @param event an event of this domain
     */
    public final void synchronize(DeviceEvent event) {
        checkOpen();
        checkEvent(event);
        doSynchronizeEvent(event.handle());
    }

    /** Destroys an event (through {@link DeviceEvent#close()}); idempotent. */
    final void destroy(DeviceEvent event) {
        if (event.markReleased()) {
            events.remove(event);
            doDestroyEvent(event.handle());
        }
    }

    // ---- Host memory for transports and staging ----

    /** @return the domain's pinned staging memory, which communicators stage its buffers through */
    public final PinnedStagingPool stagingPool() {
        return staging;
    }

    /**
     * Pins host memory for the device (HIP: {@code hipHostRegister}), so that copies and DMA from it need no
     * intermediate buffer, and returns it as a transport {@link io.jccl.net.MemoryRegistration}.
     *
     * @param segment native host memory, not empty; must outlive the registration
     * @return the registration; close it to unpin
     * @throws DeviceException when the device refuses (e.g. already pinned)
     */
    public final HostRegistration register(MemorySegment segment) {
        checkOpen();
        checkHost("segment", segment, 0, segment == null ? 0 : segment.byteSize(), false);
        checkNative("segment", segment);
        if (segment.byteSize() == 0) {
            throw invalid("segment is empty: there is nothing to register");
        }
        doPinHost(segment.address(), segment.byteSize());
        HostRegistration r = new HostRegistration(this, segment);
        registrations.add(r);
        return r;
    }

    /** Unpins a registration (through {@link HostRegistration#close()}); idempotent. */
    final void deregister(HostRegistration registration) {
        if (registration.markClosed()) {
            registrations.remove(registration);
            doUnpinHost(registration.segment().address());
        }
    }

    // ---- Sharing device memory ----

    /**
     * An inter-process handle for an allocation (HIP: {@code hipIpcGetMemHandle}, 64 bytes), which another process
     * on the host opens to map the same memory.
     *
     * @param memory an allocation of this domain, not empty
     * @return the handle's bytes
     * @throws JcclException INVALID_USAGE when the domain has no such handles (the host domain)
     */
    public final byte[] ipcHandle(DeviceMemory memory) {
        checkOpen();
        checkDevice("memory", memory, 0, 0);
        if (memory.byteSize() == 0) {
            throw invalid("memory is empty: there is nothing to share");
        }
        return doIpcHandle(memory.address());
    }

    /**
     * Exports an allocation as a dma-buf file descriptor (HIP: {@code hipMemGetHandleForAddressRange}), which a
     * NIC registers to read and write the device memory directly. The range is the allocation rounded up to whole
     * pages (allocators hand out pages).
     *
     * @param memory an allocation of this domain, not empty
     * @return the descriptor; close it when the NIC registration is gone
     * @throws JcclException INVALID_USAGE when the domain cannot export (the host domain; HIP before ROCm 6.2)
     */
    public final DmaBufHandle exportDmaBuf(DeviceMemory memory) {
        checkOpen();
        checkDevice("memory", memory, 0, 0);
        if (memory.byteSize() == 0) {
            throw invalid("memory is empty: there is nothing to export");
        }
        long size = (memory.byteSize() + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
        return new DmaBufHandle(doExportDmaBuf(memory.address(), size), size);
    }

    // ---- Closing ----

    /**
     * Destroys the events and streams, unpins the registrations, frees the allocations and the staging pool, in
     * that order, then closes the native side. Close the communicators that use this domain's memory first.
     * Idempotent.
     *
     * @throws JcclException the first failure among those (the rest is still released)
     */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        for (DeviceEvent e : List.copyOf(events)) {
            attempt(failures, () -> destroy(e));
        }
        for (DeviceStream s : List.copyOf(streams)) {
            attempt(failures, () -> destroy(s));
        }
        for (HostRegistration r : List.copyOf(registrations)) {
            attempt(failures, () -> deregister(r));
        }
        for (DeviceMemory m : List.copyOf(live)) {
            if (m.markReleased()) {
                live.remove(m);
                attempt(failures, () -> release(m));
            }
        }
        attempt(failures, staging::close);
        attempt(failures, this::doClose);
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            for (int i = 1; i < failures.size(); i++) {
                first.addSuppressed(failures.get(i));
            }
            throw first;
        }
    }

    private static void attempt(List<RuntimeException> failures, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    @Override
    public String toString() {
        return name + " memory domain (device " + device + (closed ? ", closed" : "") + ")";
    }

    // ---- Checks ----

    private void checkOpen() {
        if (closed) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the " + this.name + " memory domain (device "
                    + device + ") is closed");
        }
    }

    private static JcclException invalid(String message) {
        return new JcclException(ErrorCode.INVALID_ARGUMENT, message);
    }

    private static void checkRange(String what, long limit, long offsetBytes, long sizeBytes) {
        if (sizeBytes < 0) {
            throw invalid("sizeBytes must not be negative, got " + sizeBytes);
        }
        if (offsetBytes < 0 || offsetBytes > limit - sizeBytes) {
            throw invalid(what + ": offset " + offsetBytes + " + " + sizeBytes + " bytes is outside its "
                    + limit + " bytes");
        }
    }

    private void checkDevice(String what, DeviceMemory memory, long offsetBytes, long sizeBytes) {
        if (memory == null) {
            throw invalid(what + " must not be null");
        }
        if (memory.domain() != this) {
            throw invalid(what + " (" + memory + ") belongs to another domain than " + this);
        }
        if (!memory.isAlive()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, what + " (" + memory + ") was freed");
        }
        checkRange(what, memory.byteSize(), offsetBytes, sizeBytes);
    }

    private static void checkHost(String what, MemorySegment segment, long offsetBytes, long sizeBytes,
                                  boolean written) {
        if (segment == null) {
            throw invalid(what + " must not be null");
        }
        if (!segment.scope().isAlive()) {
            throw invalid(what + " belongs to an arena that is already closed");
        }
        if (written && segment.isReadOnly() && sizeBytes > 0) {
            throw invalid(what + " is read-only");
        }
        checkRange(what, segment.byteSize(), offsetBytes, sizeBytes);
    }

    private static void checkNative(String what, MemorySegment segment) {
        if (!segment.isNative()) {
            throw invalid(what + " must be native memory (the copy runs after this call returns, or the device "
                    + "pins it), not a heap segment");
        }
    }

    private void checkStream(DeviceStream stream) {
        if (stream == null) {
            throw invalid("stream must not be null");
        }
        if (stream.domain() != this) {
            throw invalid(stream + " belongs to another domain than " + this);
        }
        if (!stream.isOpen()) {
            throw new JcclException(ErrorCode.INVALID_USAGE, stream + " is closed");
        }
    }

    private void checkEvent(DeviceEvent event) {
        if (event == null) {
            throw invalid("event must not be null");
        }
        if (!events.contains(event)) {
            throw new JcclException(ErrorCode.INVALID_USAGE, event + " is closed or belongs to another domain");
        }
    }

    /** An exception for an optional capability the domain lacks. */
    protected final JcclException unsupported(String what) {
        return new JcclException(ErrorCode.INVALID_USAGE, "the " + name + " memory domain does not support " + what);
    }

    // ---- The SPI: raw operations on valid, live, in-range arguments ----

    /** @return how many devices of this kind the machine has */
    protected abstract int doDeviceCount();

    /**
     * @param deviceIndex a valid device index
     * @return its properties
     */
    protected abstract DeviceProperties doProperties(int deviceIndex);

    /**
     * Allocates on {@link #device()}. An address that misses {@code alignmentBytes} is freed and the request
     * repeated with room to align inside it.
     *
     * @param sizeBytes      bytes, at least 1
     * @param alignmentBytes the alignment the caller asked for (a hint)
     * @return the address
     */
    protected abstract long doAllocate(long sizeBytes, long alignmentBytes);

    /** @param address what {@link #doAllocate} returned */
    protected abstract void doFree(long address);

    /**
     * A segment over device memory when host code can address it (host or unified memory).
     *
     * @param address   an allocation's address (0 for an empty one)
     * @param sizeBytes its size
     * @return the view, or null when host code cannot address it (the default)
     */
    protected MemorySegment doHostView(long address, long sizeBytes) {
        return null;
    }

    /**
     * Copies synchronously.
     *
     * @param kind               the direction
     * @param destinationAddress device or (native) host address
     * @param sourceAddress      device or host address
     * @param sizeBytes          bytes, at least 1
     */
    protected abstract void doCopy(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes);

    /**
     * Queues a copy on a stream.
     *
     * @param kind               the direction
     * @param destinationAddress device or (native) host address
     * @param sourceAddress      device or host address
     * @param sizeBytes          bytes, at least 1
     * @param stream             a live stream handle
     */
    protected abstract void doCopyAsync(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes,
                                        long stream);

    /** @return a new stream's handle, on {@link #device()} */
    protected abstract long doCreateStream();

    /** @param stream a live stream handle to wait for */
    protected abstract void doSynchronizeStream(long stream);

    /**
     * @param stream a live stream handle
     * @return whether its work is done
     */
    protected abstract boolean doQueryStream(long stream);

    /** @param stream a live stream handle to finish and destroy */
    protected abstract void doDestroyStream(long stream);

    /** @return a new event's handle */
    protected abstract long doCreateEvent();

    /**
     * @param event  a live event handle
     * @param stream a live stream handle to record it on
     */
    protected abstract void doRecordEvent(long event, long stream);

    /**
     * @param event a live event handle
     * @return whether the work before it is done
     */
    protected abstract boolean doQueryEvent(long event);

    /** @param event a live event handle to wait for */
    protected abstract void doSynchronizeEvent(long event);

    /** @param event a live event handle to destroy */
    protected abstract void doDestroyEvent(long event);

    /**
     * Page-locks host memory for the device (a no-op where that means nothing).
     *
     * @param address   native host memory
     * @param sizeBytes bytes, at least 1
     */
    protected abstract void doPinHost(long address, long sizeBytes);

    /** @param address what {@link #doPinHost} locked */
    protected abstract void doUnpinHost(long address);

    /**
     * @param address a live allocation's address
     * @return its inter-process handle; by default the capability is unsupported
     */
    protected byte[] doIpcHandle(long address) {
        throw unsupported("inter-process memory handles");
    }

    /**
     * @param address   a live allocation's address
     * @param sizeBytes the range, whole pages
     * @return a dma-buf file descriptor the caller owns; by default the capability is unsupported
     */
    protected int doExportDmaBuf(long address, long sizeBytes) {
        throw unsupported("dma-buf export");
    }

    /** Releases the native side after everything else was freed; nothing by default. */
    protected void doClose() {
    }
}
