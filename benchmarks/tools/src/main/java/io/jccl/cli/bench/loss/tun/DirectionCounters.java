package io.jccl.cli.bench.loss.tun;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters of one direction. One thread (the relay's) writes them; any thread reads them while it runs. Writes
 * are opaque (no fence: the relay pays nothing for them) and reads acquire, so a reader sees each counter grow
 * monotonically, though the counters of one snapshot may be a packet apart.
 */
final class DirectionCounters {
    private static final VarHandle PACKETS_FORWARDED;
    private static final VarHandle BYTES_FORWARDED;
    private static final VarHandle PACKETS_DROPPED;
    private static final VarHandle BYTES_DROPPED;
    private static final VarHandle PACKETS_REFUSED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PACKETS_FORWARDED = lookup.findVarHandle(DirectionCounters.class, "packetsForwarded", long.class);
            BYTES_FORWARDED = lookup.findVarHandle(DirectionCounters.class, "bytesForwarded", long.class);
            PACKETS_DROPPED = lookup.findVarHandle(DirectionCounters.class, "packetsDropped", long.class);
            BYTES_DROPPED = lookup.findVarHandle(DirectionCounters.class, "bytesDropped", long.class);
            PACKETS_REFUSED = lookup.findVarHandle(DirectionCounters.class, "packetsRefused", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through PACKETS_FORWARDED
    private long packetsForwarded;
    @SuppressWarnings("unused")
    private long bytesForwarded;
    @SuppressWarnings("unused")
    private long packetsDropped;
    @SuppressWarnings("unused")
    private long bytesDropped;
    @SuppressWarnings("unused")
    private long packetsRefused;

    /** Relay thread only. */
    void forwarded(int sizeBytes) {
        PACKETS_FORWARDED.setOpaque(this, (long) PACKETS_FORWARDED.getOpaque(this) + 1);
        BYTES_FORWARDED.setOpaque(this, (long) BYTES_FORWARDED.getOpaque(this) + sizeBytes);
    }

    /** Relay thread only. */
    void dropped(int sizeBytes) {
        PACKETS_DROPPED.setOpaque(this, (long) PACKETS_DROPPED.getOpaque(this) + 1);
        BYTES_DROPPED.setOpaque(this, (long) BYTES_DROPPED.getOpaque(this) + sizeBytes);
    }

    /** Relay thread only: the receiving device refused the packet (see {@link Tun#write}). */
    void refused() {
        PACKETS_REFUSED.setOpaque(this, (long) PACKETS_REFUSED.getOpaque(this) + 1);
    }

    /** Any thread. */
    TunLossLink.Counters snapshot() {
        return new TunLossLink.Counters((long) PACKETS_FORWARDED.getAcquire(this),
                (long) BYTES_FORWARDED.getAcquire(this), (long) PACKETS_DROPPED.getAcquire(this),
                (long) BYTES_DROPPED.getAcquire(this), (long) PACKETS_REFUSED.getAcquire(this));
    }
}
