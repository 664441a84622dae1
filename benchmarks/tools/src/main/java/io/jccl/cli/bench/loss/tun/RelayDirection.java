package io.jccl.cli.bench.loss.tun;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One direction of a {@link TunLossLink}, run by its own thread: read a packet from one TUN device, drop it or
 * write it to the other, count. Packets are forwarded in the order read, one at a time, through one reusable
 * native buffer; nothing is allocated per packet.
 */
final class RelayDirection implements Runnable {
    /** Upper bound on how long a stop can go unnoticed should the wake descriptor fail; normally it is at once. */
    private static final int POLL_TIMEOUT_MS = 200;
    /** Interrupted waits in a row before the relay gives up: only a broken descriptor fails this often. */
    private static final int MAX_FAILED_WAITS = 1000;

    private final Tun from;
    private final Tun to;
    private final int wakeFd;
    private final PacketLoss loss;
    private final DirectionCounters counters = new DirectionCounters();
    private volatile boolean stopping;
    private volatile Throwable failure;

    /**
     * @param wakeFd an eventfd that becomes readable when the link stops
     */
    RelayDirection(Tun from, Tun to, int wakeFd, PacketLoss loss) {
        this.from = from;
        this.to = to;
        this.wakeFd = wakeFd;
        this.loss = loss;
    }

    @Override
    public void run() {
        try (Arena arena = Arena.ofConfined()) {
            Tun.Scratch scratch = new Tun.Scratch(arena);
            MemorySegment packet = arena.allocate(Tun.MAX_PACKET_BYTES, 64);
            int failedWaits = 0;
            while (!stopping) {
                int sizeBytes = from.read(scratch, packet);
                if (sizeBytes == Tun.AGAIN) {
                    failedWaits = from.awaitReadable(scratch, wakeFd, POLL_TIMEOUT_MS) ? 0 : failedWaits + 1;
                    if (failedWaits == MAX_FAILED_WAITS) { // rather than spin on a wait that fails at once
                        throw new IOException("poll(" + from.name() + ") failed " + MAX_FAILED_WAITS
                                + " times in a row");
                    }
                } else if (loss.drop()) {
                    counters.dropped(sizeBytes);
                } else if (to.write(scratch, packet, sizeBytes)) {
                    counters.forwarded(sizeBytes);
                } else {
                    counters.refused();
                }
            }
        } catch (Throwable t) {
            failure = t;
            // Said at once: the link's user sees only a stalled transfer, and may never ask relayFailure().
            System.err.println("jccl: packet-loss link relay " + Thread.currentThread().getName()
                    + " stopped: " + t);
        }
    }

    /** Makes {@link #run} return at its next packet or wake-up; the caller then signals the wake descriptor. */
    void stop() {
        stopping = true;
    }

    DirectionCounters counters() {
        return counters;
    }

    /** @return what ended the thread early, or null */
    Throwable failure() {
        return failure;
    }
}
