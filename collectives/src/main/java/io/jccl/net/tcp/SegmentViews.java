package io.jccl.net.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * {@link ByteBuffer} views of native segments for channel I/O, cached so that sending from or receiving into
 * the same buffers again (what collectives do) allocates nothing. An entry is reused only for a segment of the
 * same scope, address, size and access mode whose scope is still alive, which is then the same memory.
 *
 * <p>The cache keeps up to {@value #ENTRIES} segments' scopes reachable until they are evicted or the connection
 * closes. Segments larger than 2 GiB, which one buffer cannot view, get a fresh view of a 1 GiB chunk each time.
 */
final class SegmentViews {
    private static final int ENTRIES = 4;
    private static final long CHUNK_BYTES = 1L << 30;

    private final MemorySegment.Scope[] scopes = new MemorySegment.Scope[ENTRIES];
    private final long[] addresses = new long[ENTRIES];
    private final long[] sizes = new long[ENTRIES];
    private final boolean[] readOnly = new boolean[ENTRIES];
    private final ByteBuffer[] views = new ByteBuffer[ENTRIES];
    private int nextVictim;

    /**
     * @param segment a native segment
     * @param offset  where the range starts in the segment
     * @param length  bytes in the range, at least 1
     * @return a buffer whose position is the range's start and whose limit is its end, or an earlier point for
     *         ranges longer than one view can hold
     */
    ByteBuffer view(MemorySegment segment, long offset, long length) {
        long size = segment.byteSize();
        if (size > Integer.MAX_VALUE) {
            return segment.asSlice(offset, Math.min(length, CHUNK_BYTES)).asByteBuffer();
        }
        MemorySegment.Scope scope = segment.scope();
        long address = segment.address();
        ByteBuffer view = null;
        for (int i = 0; i < ENTRIES; i++) {
            if (scopes[i] == scope && addresses[i] == address && sizes[i] == size
                    && readOnly[i] == segment.isReadOnly() && scope.isAlive()) {
                view = views[i];
                break;
            }
        }
        if (view == null) {
            view = segment.asByteBuffer();
            int i = nextVictim;
            nextVictim = (i + 1) % ENTRIES;
            scopes[i] = scope;
            addresses[i] = address;
            sizes[i] = size;
            readOnly[i] = segment.isReadOnly();
            views[i] = view;
        }
        view.limit((int) (offset + length)).position((int) offset);
        return view;
    }

    /** Forgets all cached views. */
    void clear() {
        for (int i = 0; i < ENTRIES; i++) {
            scopes[i] = null;
            views[i] = null;
        }
    }
}
