package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.jccl.memory.MemoryAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The staging pool's contract with a recording pinner: power-of-two page-aligned segments, reuse without pinning
 * again, the byte and count bounds (evicting idle segments, serving beyond the bound uncached rather than waiting),
 * refusing foreign and double releases, pin failures leaking nothing, and close unpinning everything.
 */
class PinnedStagingPoolTest {
    /** Counts pins and unpins and checks they pair up. */
    static final class RecordingPinner implements PinnedStagingPool.Pinner {
        final Set<Long> pinned = new HashSet<>();
        int pins;
        int unpins;
        boolean failNext;

        @Override
        public void pin(MemorySegment segment) {
            if (failNext) {
                failNext = false;
                throw new JcclException(ErrorCode.SYSTEM_ERROR, "pin refused");
            }
            assertThat(segment.address() % 4096).isZero();
            assertThat(pinned.add(segment.address())).isTrue();
            pins++;
        }

        @Override
        public void unpin(MemorySegment segment) {
            assertThat(pinned.remove(segment.address())).as("unpinning what was pinned").isTrue();
            unpins++;
        }
    }

    @Test
    void segmentSizesArePowersOfTwoFromOnePage() {
        assertThat(PinnedStagingPool.segmentBytes(1)).isEqualTo(4096);
        assertThat(PinnedStagingPool.segmentBytes(4096)).isEqualTo(4096);
        assertThat(PinnedStagingPool.segmentBytes(4097)).isEqualTo(8192);
        assertThat(PinnedStagingPool.segmentBytes((1 << 20) + 3)).isEqualTo(2 << 20);
    }

    @Test
    void releasedSegmentsAreReusedWithoutPinningAgain() {
        RecordingPinner pinner = new RecordingPinner();
        try (PinnedStagingPool pool = new PinnedStagingPool("test", pinner, 1 << 20)) {
            MemorySegment a = pool.acquire(1000);
            assertThat(a.byteSize()).isEqualTo(4096);
            assertThat(a.isNative()).isTrue();
            pool.release(a);
            for (int i = 0; i < 100; i++) {
                MemorySegment b = pool.acquire(3000);
                assertThat(b.address()).isEqualTo(a.address());
                pool.release(b);
            }
            assertThat(pinner.pins).isEqualTo(1);
            PinnedStagingPool.Stats s = pool.stats();
            assertThat(s.allocations()).isEqualTo(1);
            assertThat(s.reuses()).isEqualTo(100);
            assertThat(s.inUse()).isZero();
            MemorySegment c = pool.acquire(10);
            MemorySegment d = pool.acquire(10);
            assertThat(d.address()).as("a held segment is not handed out twice").isNotEqualTo(c.address());
            assertThat(pool.stats().inUse()).isEqualTo(2);
        }
        assertThat(pinner.pinned).as("close unpins everything, held segments too").isEmpty();
    }

    @Test
    void theCacheStaysWithinItsBoundsAndNeverWaits() {
        RecordingPinner pinner = new RecordingPinner();
        long max = 64 << 10;
        try (PinnedStagingPool pool = new PinnedStagingPool("test", pinner, max)) {
            MemorySegment a = pool.acquire(32 << 10);
            MemorySegment b = pool.acquire(32 << 10);
            MemorySegment c = pool.acquire(32 << 10);   // the cache is full of segments in use: served outside it
            assertThat(pool.stats().uncached()).isEqualTo(1);
            assertThat(pool.stats().cachedBytes()).isEqualTo(max);
            pool.release(c);
            assertThat(pinner.unpins).as("the uncached segment is freed on release").isEqualTo(1);
            pool.release(a);
            pool.release(b);
            MemorySegment big = pool.acquire(64 << 10);   // evicts both idle 32 KiB segments
            assertThat(pool.stats().evictions()).isEqualTo(2);
            assertThat(pool.stats().cachedBytes()).isEqualTo(max);
            pool.release(big);
            MemorySegment huge = pool.acquire(1 << 20);   // larger than the whole bound: never cached
            pool.release(huge);
            assertThat(pool.stats().cachedBytes()).isLessThanOrEqualTo(max);
            assertThat(pool.stats().cachedSegments()).isEqualTo(1);
        }
        assertThat(pinner.pins).isEqualTo(pinner.unpins);
    }

    @Test
    void atMostSixtyFourSegmentsAreCached() {
        RecordingPinner pinner = new RecordingPinner();
        try (PinnedStagingPool pool = new PinnedStagingPool("test", pinner, 1L << 30)) {
            List<MemorySegment> held = new ArrayList<>();
            for (int i = 0; i < PinnedStagingPool.MAX_CACHED_SEGMENTS + 6; i++) {
                held.add(pool.acquire(1));
            }
            assertThat(pool.stats().cachedSegments()).isEqualTo(PinnedStagingPool.MAX_CACHED_SEGMENTS);
            assertThat(pool.stats().uncached()).isEqualTo(6);
            held.forEach(pool::release);
            assertThat(pinner.pinned).hasSize(PinnedStagingPool.MAX_CACHED_SEGMENTS);
        }
    }

    @Test
    void badReleasesAndUseAfterClose() {
        RecordingPinner pinner = new RecordingPinner();
        PinnedStagingPool pool = new PinnedStagingPool("test", pinner, 1 << 20);
        MemorySegment a = pool.acquire(100);
        assertFailsWith(ErrorCode.INVALID_ARGUMENT, () -> pool.release(a.asSlice(0, 100)),
                "was not handed out by the test staging pool, or was released already");
        pool.release(a);
        assertThatThrownBy(() -> pool.release(a)).hasMessageContaining("released already");
        assertThatThrownBy(() -> pool.acquire(0)).hasMessageContaining("at least 1");
        pinner.failNext = true;
        assertThatThrownBy(() -> pool.acquire(1 << 16)).hasMessageContaining("pin refused");
        assertThat(pool.stats().cachedBytes()).isEqualTo(4096);
        pool.close();
        assertThat(pinner.pinned).isEmpty();
        assertFailsWith(ErrorCode.INVALID_USAGE, () -> pool.acquire(1), "closed");
        pool.release(a);   // after close: ignored (a communicator finishing late)
        assertThatThrownBy(() -> new PinnedStagingPool("test", pinner, 100))
                .hasMessageContaining("maxCachedBytes must be at least 4096");
    }
}
