package io.jccl.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Host memory as a domain: each allocation is an FFM segment in a shared {@link Arena} of its own (so it can be
 * freed alone, and used from any thread), aligned as asked. Its buffers have host views, so communicators use
 * them directly with no staging. Streams and events exist so that code written for GPUs runs unchanged: work on
 * them runs at once, and they are always complete. Pinning is a no-op; IPC handles and dma-buf export are
 * unsupported. Always available, priority 0.
 */
public final class HostMemoryDomain extends MemoryDomain {
    /** The name {@code JCCL_MEMORY} selects it by. */
    public static final String NAME = "host";

    private final Map<Long, ArenaSegment> allocations = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();

    /** A host domain (device 0), staging pool bounded by {@link PinnedStagingPool#DEFAULT_MAX_CACHED_BYTES}. */
    public HostMemoryDomain() {
        super(NAME, 0, PinnedStagingPool.DEFAULT_MAX_CACHED_BYTES);
    }

    @Override
    protected int doDeviceCount() {
        return 1;
    }

    @Override
    protected DeviceProperties doProperties(int deviceIndex) {
        long total;
        try {
            total = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getTotalMemorySize();
        } catch (RuntimeException | LinkageError e) {
            total = Runtime.getRuntime().maxMemory();   // a JVM without the management extensions
        }
        return new DeviceProperties(deviceIndex, "host memory (" + System.getProperty("os.arch") + ")", total);
    }

    @Override
    protected long doAllocate(long sizeBytes, long alignmentBytes) {
        ArenaSegment allocation;
        try {
            allocation = ArenaSegment.allocate(sizeBytes, alignmentBytes);
        } catch (OutOfMemoryError | RuntimeException e) {
            throw new DeviceException(NAME, "Arena.allocate(" + sizeBytes + " bytes, alignment " + alignmentBytes
                    + ")", 0, "OutOfMemory", String.valueOf(e.getMessage()));
        }
        long address = allocation.segment().address();
        allocations.put(address, allocation);
        return address;
    }

    @Override
    protected void doFree(long address) {
        ArenaSegment allocation = allocations.remove(address);
        if (allocation != null) {
            allocation.arena().close();
        }
    }

    @Override
    protected MemorySegment doHostView(long address, long sizeBytes) {
        if (sizeBytes == 0) {
            return MemorySegment.NULL;
        }
        // The allocation's own segment, so that a use after free fails in Java instead of touching freed memory.
        ArenaSegment allocation = allocations.get(address);
        return allocation == null ? null : allocation.segment().asSlice(0, sizeBytes);
    }

    @Override
    protected void doCopy(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes) {
        MemorySegment.copy(MemorySegment.ofAddress(sourceAddress).reinterpret(sizeBytes), 0,
                MemorySegment.ofAddress(destinationAddress).reinterpret(sizeBytes), 0, sizeBytes);
    }

    @Override
    protected void doCopyAsync(CopyKind kind, long destinationAddress, long sourceAddress, long sizeBytes,
                               long stream) {
        doCopy(kind, destinationAddress, sourceAddress, sizeBytes);
    }

    @Override
    protected long doCreateStream() {
        return handles.incrementAndGet();
    }

    @Override
    protected void doSynchronizeStream(long stream) {
    }

    @Override
    protected boolean doQueryStream(long stream) {
        return true;
    }

    @Override
    protected void doDestroyStream(long stream) {
    }

    @Override
    protected long doCreateEvent() {
        return handles.incrementAndGet();
    }

    @Override
    protected void doRecordEvent(long event, long stream) {
    }

    @Override
    protected boolean doQueryEvent(long event) {
        return true;
    }

    @Override
    protected void doSynchronizeEvent(long event) {
    }

    @Override
    protected void doDestroyEvent(long event) {
    }

    @Override
    protected void doPinHost(long address, long sizeBytes) {
    }

    @Override
    protected void doUnpinHost(long address) {
    }
}
