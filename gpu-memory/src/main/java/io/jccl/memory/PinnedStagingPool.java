package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.HostStaging;
import io.jccl.JcclException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Page-locked host memory for staging device buffers, bounded and reused: what communicators copy a device buffer
 * through when their transport cannot read device memory ({@link io.jccl.DeviceBuffer#hostStaging()}).
 *
 * <p>Segments come in power-of-two sizes from {@value #MIN_SEGMENT_BYTES} bytes, each in its own shared arena,
 * page-aligned, pinned by the domain (HIP: {@code hipHostRegister}) when allocated and unpinned when freed. A
 * released segment stays cached for the next {@link #acquire} of its size, so an application that repeats its
 * operations allocates and pins nothing once warm. The cache is bounded by {@code maxCachedBytes} and
 * {@value #MAX_CACHED_SEGMENTS} segments: to make room, idle segments of other sizes are freed; when every cached
 * segment is in use, a request is served by a segment outside the cache that is freed on release. So
 * {@code acquire} never waits for another caller — ranks of one JVM share a domain's pool, and a rank waiting for
 * staging that another rank holds until the collective they are both in finishes would deadlock.
 *
 * <p>Thread-safe (one lock; acquire and release happen once per staged buffer and operation, not per chunk).
 */
public final class PinnedStagingPool implements HostStaging, AutoCloseable {
    /** Smallest segment: one page. */
    public static final long MIN_SEGMENT_BYTES = 4096;
    /** Most segments kept cached. */
    public static final int MAX_CACHED_SEGMENTS = 64;
    /** The default bound of cached bytes: 256 MiB. */
    public static final long DEFAULT_MAX_CACHED_BYTES = 256L << 20;

    /** Makes host memory page-locked for a domain, and undoes it. */
    public interface Pinner {
        /**
         * @param segment page-aligned native memory to lock
         * @throws JcclException when the domain cannot pin it
         */
        void pin(MemorySegment segment);

        /** @param segment memory {@link #pin} locked */
        void unpin(MemorySegment segment);
    }

    /**
     * Counters, for tests and diagnostics.
     *
     * @param allocations      segments allocated and pinned so far (cached or not)
     * @param reuses           acquires served from the cache
     * @param uncached         acquires served outside the cache because it was full of segments in use
     * @param evictions        idle cached segments freed to make room
     * @param cachedBytes      bytes of the cached segments now
     * @param cachedSegments   cached segments now
     * @param inUse            segments handed out and not yet released
     */
    public record Stats(long allocations, long reuses, long uncached, long evictions, long cachedBytes,
                        int cachedSegments, int inUse) {
    }

    private static final class Entry {
        final MemorySegment segment;
        final Arena arena;
        final boolean cached;
        boolean busy;

        Entry(MemorySegment segment, Arena arena, boolean cached) {
            this.segment = segment;
            this.arena = arena;
            this.cached = cached;
        }
    }

    private final String domainName;
    private final Pinner pinner;
    private final long maxCachedBytes;
    private final List<Entry> entries = new ArrayList<>();
    private long cachedBytes;
    private int cachedSegments;
    private long allocations;
    private long reuses;
    private long uncached;
    private long evictions;
    private boolean closed;

    /**
     * @param domainName     the domain, for messages
     * @param pinner         locks and unlocks host memory for the domain
     * @param maxCachedBytes how many bytes of pinned memory the cache may keep, at least {@link #MIN_SEGMENT_BYTES}
     */
    public PinnedStagingPool(String domainName, Pinner pinner, long maxCachedBytes) {
        this.domainName = Objects.requireNonNull(domainName, "domainName");
        this.pinner = Objects.requireNonNull(pinner, "pinner");
        if (maxCachedBytes < MIN_SEGMENT_BYTES) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "maxCachedBytes must be at least "
                    + MIN_SEGMENT_BYTES + ", got " + maxCachedBytes);
        }
        this.maxCachedBytes = maxCachedBytes;
    }

    /** @return the segment size a request of {@code sizeBytes} gets: the next power of two, at least one page */
    static long segmentBytes(long sizeBytes) {
        if (sizeBytes <= MIN_SEGMENT_BYTES) {
            return MIN_SEGMENT_BYTES;
        }
        if (sizeBytes > 1L << 62) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "a staging request of " + sizeBytes
                    + " bytes is too large");
        }
        return Long.highestOneBit(sizeBytes - 1) << 1;
    }

    @Override
    public synchronized MemorySegment acquire(long sizeBytes) {
        if (sizeBytes < 1) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "sizeBytes must be at least 1, got " + sizeBytes);
        }
        if (closed) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the " + domainName + " staging pool is closed");
        }
        long bytes = segmentBytes(sizeBytes);
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (!e.busy && e.segment.byteSize() == bytes) {
                e.busy = true;
                reuses++;
                return e.segment;
            }
        }
        boolean cache = makeRoom(bytes);
        Entry e = allocate(bytes, cache);
        e.busy = true;
        entries.add(e);
        if (cache) {
            cachedBytes += bytes;
            cachedSegments++;
        } else {
            uncached++;
        }
        return e.segment;
    }

    /** Frees idle cached segments until {@code bytes} more fit the bounds; @return whether they fit */
    private boolean makeRoom(long bytes) {
        if (bytes > maxCachedBytes) {
            return false;
        }
        for (int i = entries.size() - 1; i >= 0 && !fits(bytes); i--) {
            Entry e = entries.get(i);
            if (!e.busy && e.cached) {
                entries.remove(i);
                cachedBytes -= e.segment.byteSize();
                cachedSegments--;
                evictions++;
                free(e);
            }
        }
        return fits(bytes);
    }

    private boolean fits(long bytes) {
        return cachedSegments < MAX_CACHED_SEGMENTS && cachedBytes + bytes <= maxCachedBytes;
    }

    private Entry allocate(long bytes, boolean cached) {
        ArenaSegment allocation;
        try {
            allocation = ArenaSegment.allocate(bytes, MIN_SEGMENT_BYTES);
        } catch (OutOfMemoryError | RuntimeException e) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "cannot allocate " + bytes + " bytes of "
                    + domainName + " staging memory: " + e, e);
        }
        try {
            pinner.pin(allocation.segment());
        } catch (RuntimeException e) {
            allocation.arena().close();
            throw e;
        }
        allocations++;
        return new Entry(allocation.segment(), allocation.arena(), cached);
    }

    private void free(Entry e) {
        try {
            pinner.unpin(e.segment);
        } finally {
            e.arena.close();
        }
    }

    @Override
    public synchronized void release(MemorySegment segment) {
        if (segment == null) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "segment must not be null");
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.segment.address() == segment.address() && e.segment.byteSize() == segment.byteSize()) {
                if (!e.busy) {
                    break;
                }
                e.busy = false;
                if (!e.cached) {
                    entries.remove(i);
                    free(e);
                }
                return;
            }
        }
        if (closed) {
            return;   // freed with the pool: a communicator finishing after its domain closed
        }
        throw new JcclException(ErrorCode.INVALID_ARGUMENT, "segment at 0x" + Long.toHexString(segment.address())
                + " (" + segment.byteSize() + " bytes) was not handed out by the " + domainName
                + " staging pool, or was released already (release the segment acquire returned, not a slice)");
    }

    /** @return the counters now */
    public synchronized Stats stats() {
        int busy = 0;
        for (Entry e : entries) {
            busy += e.busy ? 1 : 0;
        }
        return new Stats(allocations, reuses, uncached, evictions, cachedBytes, cachedSegments, busy);
    }

    /** @return the bound on cached bytes */
    public long maxCachedBytes() {
        return maxCachedBytes;
    }

    /**
     * Unpins and frees every segment, including those still handed out (their holders must be done with them:
     * close the communicators that use the domain first). Later acquires fail; later releases are ignored.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        for (Entry e : entries) {
            try {
                free(e);
            } catch (RuntimeException ex) {
                first = first == null ? ex : first;
            }
        }
        entries.clear();
        cachedBytes = 0;
        cachedSegments = 0;
        if (first != null) {
            throw first;
        }
    }
}
