package io.jccl.net.aeronipc;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out IPC stream ids that no other live process on the host uses: the low 22 bits of this process's pid
 * (Linux's {@code pid_max} is at most 2^22) in the high bits, a per-JVM counter in the low 10 bits. Ids still in use
 * in this JVM are skipped when the counter wraps. Every stream has exactly one publisher and one subscriber, so
 * two transports never read each other's messages.
 */
final class StreamIds {
    private static final int COUNTER_BITS = 10;
    private static final int COUNTER_MASK = (1 << COUNTER_BITS) - 1;
    private static final int PID_BITS = 32 - COUNTER_BITS;
    private static final int PID_PART = (int) (ProcessHandle.current().pid() & ((1L << PID_BITS) - 1)) << COUNTER_BITS;
    private static final Set<Integer> LIVE = ConcurrentHashMap.newKeySet();
    private static int counter;

    private StreamIds() {
    }

    /**
     * @return a stream id unused by any other live stream of this host
     * @throws IllegalStateException when all {@code 2^10} ids of this process are in use
     */
    static synchronized int allocate() {
        for (int i = 0; i <= COUNTER_MASK; i++) {
            counter = (counter + 1) & COUNTER_MASK;
            int id = PID_PART | counter;
            if (LIVE.add(id)) {
                return id;
            }
        }
        throw new IllegalStateException("all " + (COUNTER_MASK + 1) + " aeron-ipc stream ids of this process are in use");
    }

    /** Returns an id for reuse once its publication or subscription is closed. */
    static void release(int id) {
        LIVE.remove(id);
    }
}
