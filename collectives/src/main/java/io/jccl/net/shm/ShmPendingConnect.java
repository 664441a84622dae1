package io.jccl.net.shm;

import io.jccl.net.AbstractPendingConnect;
import io.jccl.net.NetException;
import io.jccl.net.SendConnection;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A connection attempt to a listener: the listener's segment is mapped when the attempt starts; the first
 * {@link #poll()} claims a slot in it and writes the offer (so an attempt cancelled before its first poll never
 * reaches the listener); later polls wait for the listener's answer, within the connect timeout, while the listening
 * process lives.
 */
final class ShmPendingConnect extends AbstractPendingConnect {
    private static final VarHandle LONG = Layouts.LONG;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    private final ShmTransport transport;
    private final ShmHandle handle;
    private final Peer peer;
    private final long deadlineNs;
    private final Scratch scratch;
    private int slot = -1;
    private long at;
    private long lastLivenessCheckNs;

    ShmPendingConnect(ShmTransport transport, ShmHandle handle, Peer peer, long timeoutNs) {
        super("shm connection of rank " + transport.rank() + " to rank " + handle.rank() + " (pid " + handle.pid()
                + ")");
        this.transport = transport;
        this.handle = handle;
        this.peer = peer;
        this.deadlineNs = System.nanoTime() + timeoutNs;
        this.scratch = transport.newScratch();
    }

    @Override
    protected SendConnection attempt() {
        try {
            if (slot < 0) {
                offer();
            }
            return answer();
        } catch (IllegalStateException e) {
            throw new NetException(NetException.Reason.CLOSED, description + " failed: " + e.getMessage());
        }
    }

    private void offer() {
        MemorySegment m = peer.segment.memory;
        if (!listening()) {
            throw new NetException(NetException.Reason.PEER_CLOSED, description + " failed: its listener is closed");
        }
        long index = (long) LONG.getAndAdd(m, Layout.H_NEXT_SLOT, 1L);
        if (index < 0 || index >= peer.segment.slots) {
            throw new NetException(NetException.Reason.IO_ERROR, description + " failed: all " + peer.segment.slots
                    + " connection slots of its shm segment are taken");
        }
        slot = (int) index;
        at = peer.segment.slotOffset(slot);
        Segment own = transport.ownSegment();
        m.set(INT, at + Layout.S_LISTENER, handle.listenerId());
        m.set(INT, at + Layout.S_RANK, transport.rank());
        m.set(WORD, at + Layout.S_PID, own.pid);
        m.set(WORD, at + Layout.S_SEGMENT_FD, own.fd);
        m.set(WORD, at + Layout.S_SEGMENT_BYTES, own.bytes);
        MemorySegment.copy(MemorySegment.ofArray(own.token()), 0, m, at + Layout.S_SEGMENT_TOKEN, Layout.TOKEN_BYTES);
        boolean cma = transport.allowsCrossMemory();
        m.set(WORD, at + Layout.S_PROBE_ADDRESS, cma ? CrossMemory.probeAddress() : 0L);
        m.set(WORD, at + Layout.S_PROBE_VALUE, cma ? CrossMemory.probeValue() : 0L);
        m.set(INT, at + Layout.S_ALLOWS_CMA, cma ? 1 : 0);
        LONG.setRelease(m, at + Layout.S_STATE, Layout.STATE_OFFERED);
        VarHandle.fullFence();
        if (!listening() && LONG.compareAndSet(m, at + Layout.S_STATE, Layout.STATE_OFFERED,
                Layout.STATE_CANCELLED)) {
            throw new NetException(NetException.Reason.PEER_CLOSED, description + " failed: its listener closed");
        }
        Doorbell.ringIfAsleep(m, scratch);
    }

    private boolean listening() {
        return ((long) LONG.getAcquire(peer.segment.memory, Layout.H_LISTENERS) & (1L << handle.listenerId())) != 0;
    }

    private SendConnection answer() {
        MemorySegment m = peer.segment.memory;
        long state = (long) LONG.getAcquire(m, at + Layout.S_STATE);
        if (state == Layout.STATE_ACCEPTED) {
            int mode = m.get(INT, at + Layout.S_MODE);
            if (mode != Layout.MODE_CMA && mode != Layout.MODE_RING) {
                throw new NetException(NetException.Reason.PROTOCOL_ERROR, description + " failed: the listener"
                        + " answered with mode " + mode);
            }
            return transport.openSend(peer.segment.slot(slot), peer, handle.rank(), mode);
        }
        if (state == Layout.STATE_REFUSED) {
            int reason = m.get(INT, at + Layout.S_MODE);
            int errno = m.get(INT, at + Layout.S_MODE_ERRNO);
            throw switch (reason) {
                case ShmListener.REFUSED_CLOSED -> new NetException(NetException.Reason.PEER_CLOSED, description
                        + " failed: its listener closed");
                case ShmListener.REFUSED_NO_CMA -> new NetException(NetException.Reason.IO_ERROR, description
                        + " refused: rank " + handle.rank() + " cannot read this process's memory with process_vm_readv ("
                        + ShmListener.probeFailure(errno) + ") and its " + ShmOptions.LARGE + " is cma");
                default -> new NetException(NetException.Reason.PROTOCOL_ERROR, description + " refused: the"
                        + " listener found the offer invalid (see its log)");
            };
        }
        if (state != Layout.STATE_OFFERED) {
            throw new NetException(NetException.Reason.PROTOCOL_ERROR, description + " failed: its slot went to state "
                    + state);
        }
        long now = System.nanoTime();
        if (now - deadlineNs > 0) {
            if (LONG.compareAndSet(m, at + Layout.S_STATE, Layout.STATE_OFFERED, Layout.STATE_CANCELLED)) {
                throw new NetException(NetException.Reason.IO_ERROR, description + " timed out: the listener did not"
                        + " accept it within the connect timeout");
            }
            return answer();
        }
        if (now - lastLivenessCheckNs > ShmConnection.LIVENESS_CHECK_INTERVAL_NS) {
            lastLivenessCheckNs = now;
            if (!peer.isAlive(scratch)) {
                LONG.compareAndSet(m, at + Layout.S_STATE, Layout.STATE_OFFERED, Layout.STATE_CANCELLED);
                throw new NetException(NetException.Reason.PEER_CLOSED, description + " failed: the process is gone");
            }
        }
        return null;
    }

    /** Withdraws the offer; an accepted one the connection was never taken from is closed for the receiving end. */
    @Override
    protected void withdraw() {
        try {
            if (slot >= 0 && peer.segment.isOpen()) {
                MemorySegment m = peer.segment.memory;
                if (!LONG.compareAndSet(m, at + Layout.S_STATE, Layout.STATE_OFFERED, Layout.STATE_CANCELLED)
                        && (long) LONG.getAcquire(m, at + Layout.S_STATE) == Layout.STATE_ACCEPTED) {
                    // Accepted, but the connection was never taken: the receiving end learns it is closed.
                    LONG.setRelease(m, at + Layout.S_SENDER_CLOSED, 1L);
                    Doorbell.ringIfAsleep(m, scratch);
                }
            }
        } catch (IllegalStateException ignored) {
            // the transport is closing
        }
    }

    @Override
    protected void release() {
        transport.forget(this);
        transport.releasePeer(peer);
    }
}
