package io.jccl.memory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What an allocation ({@link DeviceMemory}), a stream or event ({@link DeviceHandle}) and a {@link DmaBufHandle}
 * share: each is released (freed, destroyed, closed) once, however often and from however many threads that is
 * asked for; the one caller that {@link #markReleased()} answers true for does it.
 */
abstract class ReleasedOnce {
    private final AtomicBoolean released = new AtomicBoolean();

    /** @return true for the one call that releases it, false when it already was */
    final boolean markReleased() {
        return released.compareAndSet(false, true);
    }

    /** @return whether it was released */
    final boolean isReleased() {
        return released.get();
    }
}
