package io.jccl.net.shm;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.AbstractListener;
import io.jccl.net.NetException;
import io.jccl.net.RecvConnection;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.slf4j.Logger;

/**
 * Accepts connections into this rank's segment. A connecting peer claims a slot (fetch-and-add on the header's slot
 * counter), writes its offer into the slot's control block and publishes the state OFFERED; {@link #accept()} finds
 * offers for this listener, checks them, maps the peer's segment, probes cross-memory attach, writes its answer and
 * publishes ACCEPTED with a compare-and-set (the peer may cancel with one at the same time: one of them wins).
 *
 * <p>An offer that fails a check (impossible values, a segment that is not what it claims, a process that is gone) is
 * refused with a warning and never surfaces from {@code accept()}. Closing clears the listener's bit in the header,
 * then refuses the offers still waiting; a peer that offers after the bit is clear sees it and cancels.
 */
final class ShmListener extends AbstractListener {
    private static final Logger LOG = JcclLog.logger(Subsystem.SHM, ShmListener.class);
    private static final VarHandle LONG = Layouts.LONG;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    /** Refusal reasons, written into {@code S_MODE} with the state REFUSED. */
    static final int REFUSED_CLOSED = 1;
    static final int REFUSED_BAD_OFFER = 2;
    static final int REFUSED_NO_CMA = 3;

    private final ShmTransport transport;
    private final int id;
    private final Segment own;
    /** Slots below this index are settled (accepted, cancelled or refused). */
    private int settled;

    ShmListener(ShmTransport transport, int id, ShmHandle handle) {
        super(handle.encode(), "shm listener of rank " + transport.rank());
        this.transport = transport;
        this.id = id;
        this.own = transport.ownSegment();
    }

    int id() {
        return id;
    }

    @Override
    public synchronized RecvConnection accept() {
        throwIfClosed();
        long claimed = Math.min((long) LONG.getAcquire(own.memory, Layout.H_NEXT_SLOT), own.slots);
        boolean allSettled = true;
        for (int i = settled; i < claimed; i++) {
            long at = own.slotOffset(i);
            long state = (long) LONG.getAcquire(own.memory, at + Layout.S_STATE);
            if (state == Layout.STATE_OFFERED && own.memory.get(INT, at + Layout.S_LISTENER) == id) {
                RecvConnection accepted = offered(i, at);
                if (accepted != null) {
                    return accepted;
                }
                state = (long) LONG.getAcquire(own.memory, at + Layout.S_STATE);
            }
            boolean done = state == Layout.STATE_ACCEPTED || state == Layout.STATE_CANCELLED
                    || state == Layout.STATE_REFUSED;
            allSettled &= done;
            if (allSettled) {
                settled = i + 1;
            }
        }
        return null;
    }

    /** Checks and accepts the offer in slot {@code index}. @return the connection, or null when refused or cancelled */
    private RecvConnection offered(int index, long at) {
        MemorySegment m = own.memory;
        int rank = m.get(INT, at + Layout.S_RANK);
        long pid = m.get(WORD, at + Layout.S_PID);
        long fd = m.get(WORD, at + Layout.S_SEGMENT_FD);
        long bytes = m.get(WORD, at + Layout.S_SEGMENT_BYTES);
        byte[] token = m.asSlice(at + Layout.S_SEGMENT_TOKEN, Layout.TOKEN_BYTES).toArray(ValueLayout.JAVA_BYTE);
        long probeAddress = m.get(WORD, at + Layout.S_PROBE_ADDRESS);
        long probeValue = m.get(WORD, at + Layout.S_PROBE_VALUE);
        boolean peerAllowsCma = m.get(INT, at + Layout.S_ALLOWS_CMA) != 0;
        if (rank < 0 || pid <= 0 || pid > Integer.MAX_VALUE) {
            refuse(at, REFUSED_BAD_OFFER, 0, "an offer naming rank " + rank + " and pid " + pid);
            return null;
        }
        Peer peer;
        try {
            peer = transport.acquirePeer(pid, fd, bytes, token);
        } catch (NetException e) {
            refuse(at, REFUSED_BAD_OFFER, 0, "an offer from rank " + rank + " (pid " + pid + "): " + e.getMessage());
            return null;
        }
        int mode = Layout.MODE_RING;
        int errno = 0;
        if (peerAllowsCma && transport.allowsCrossMemory()) {
            errno = CrossMemory.probePeer(pid, probeAddress, probeValue);
            mode = errno == 0 ? Layout.MODE_CMA : Layout.MODE_RING;
            if (errno != 0) {
                if (transport.options().large() == ShmOptions.Large.CMA) {
                    transport.releasePeer(peer);
                    refuse(at, REFUSED_NO_CMA, errno, "rank " + rank + " (pid " + pid + "): process_vm_readv of its"
                            + " memory failed (" + probeFailure(errno) + ") and " + ShmOptions.LARGE + "=cma");
                    return null;
                }
                transport.noteRefusedCrossMemory(rank, pid, probeFailure(errno));
            }
        }
        m.set(INT, at + Layout.S_MODE, mode);
        m.set(INT, at + Layout.S_MODE_ERRNO, errno);
        if (!LONG.compareAndSet(m, at + Layout.S_STATE, Layout.STATE_OFFERED, Layout.STATE_ACCEPTED)) {
            transport.releasePeer(peer);   // the peer cancelled meanwhile
            return null;
        }
        return transport.openRecv(own.slot(index), peer, rank, mode);
    }

    static String probeFailure(int errno) {
        return errno < 0 ? "it read another value: another process has that pid" : LinuxCalls.errnoName(errno);
    }

    private void refuse(long at, int reason, int errno, String why) {
        own.memory.set(INT, at + Layout.S_MODE, reason);
        own.memory.set(INT, at + Layout.S_MODE_ERRNO, errno);
        if (LONG.compareAndSet(own.memory, at + Layout.S_STATE, Layout.STATE_OFFERED, Layout.STATE_REFUSED)) {
            LOG.warn("{} refused {}", description, why);
        }
    }

    @Override
    public synchronized void close() {
        if (!markClosed()) {
            return;
        }
        try {
            if (transport.ownSegmentOpen()) {
                LONG.getAndBitwiseAnd(own.memory, Layout.H_LISTENERS, ~(1L << id));
                VarHandle.fullFence();
                long claimed = Math.min((long) LONG.getAcquire(own.memory, Layout.H_NEXT_SLOT), own.slots);
                for (int i = settled; i < claimed; i++) {
                    long at = own.slotOffset(i);
                    if ((long) LONG.getAcquire(own.memory, at + Layout.S_STATE) == Layout.STATE_OFFERED
                            && own.memory.get(INT, at + Layout.S_LISTENER) == id) {
                        own.memory.set(INT, at + Layout.S_MODE, REFUSED_CLOSED);
                        LONG.compareAndSet(own.memory, at + Layout.S_STATE, Layout.STATE_OFFERED,
                                Layout.STATE_REFUSED);
                    }
                }
            }
        } finally {
            transport.forgetListener(this);
        }
    }

    @Override
    public String toString() {
        return description + " (id " + id + ")";
    }
}
