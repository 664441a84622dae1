package io.jccl.net.shm;

import io.jccl.net.NetException;
import io.jccl.net.PooledConnection;
import java.lang.foreign.MemorySegment;

/**
 * What both ends of a connection share: the slot (control block and ring, in the receiver's segment), the peer, the
 * request pool, and the rules for breaking and closing.
 *
 * <p>Progress is caller-driven: shared memory is read and written only inside {@link #progress()}, on the thread that
 * drives the connection (from {@link ShmRequest#test()}, and once when a request is posted to an idle connection).
 * {@link #close()} may come from any thread: it marks the connection closed, waits until a driving thread inside
 * {@code progress()} has left it (a volatile flag each side writes before it reads the other's, so one of them sees
 * the other), and then does the closing side's part in shared memory; the driving thread fails pending requests with
 * {@link NetException.Reason#CLOSED} the next time it tests one.
 */
abstract class ShmConnection extends PooledConnection<ShmRequest> {
    /** How often at most a stalled connection looks up its peer's process. */
    static final long LIVENESS_CHECK_INTERVAL_NS = 50_000_000L;

    final ShmTransport transport;
    /** The slot: control block then ring, in the receiver's segment. */
    final MemorySegment control;
    final MemorySegment ring;
    final long ringBytes;
    final long ringMask;
    /** The other end's transport: its segment and process. */
    final Peer peer;
    final Scratch scratch;

    /** The driving thread is inside {@link #progress()}. */
    private volatile boolean busy;
    /** Which thread is inside {@link #progress()} while {@link #busy} holds. */
    private Thread busyThread;
    private long lastLivenessCheckNs;
    /** Steps that found nothing to do, counted by {@link #checkPeerAlive()}. */
    private int idleSteps;
    /** The thread that last posted a request: tests step the connections of their own thread. */
    Thread driver;

    ShmConnection(ShmTransport transport, String description, MemorySegment slot, Peer peer) {
        super(ShmTransportProvider.NAME, ShmTransport.MAX_MESSAGE_BYTES, description, ShmRequest::new);
        this.transport = transport;
        this.control = slot.asSlice(0, Layout.CONTROL_BYTES);
        this.ring = slot.asSlice(Layout.CONTROL_BYTES);
        this.ringBytes = ring.byteSize();
        this.ringMask = ringBytes - 1;
        this.peer = peer;
        this.scratch = transport.newScratch();
    }

    /** Moves data for the pending requests as far as shared memory allows, without blocking. */
    abstract void step();

    /** Does the closing side's part in shared memory; called once, after the driving thread left. */
    abstract void closeShared();

    /**
     * Looks at shared memory without changing anything: whether {@link #progress()} would find something new. Called
     * by a thread about to sleep, which must be the one that drives the connection.
     */
    abstract boolean hasNews();

    /** Makes progress; called by {@link ShmRequest#test()} and after posts. */
    @Override
    protected final void progress() {
        busyThread = Thread.currentThread();
        busy = true;
        try {
            if (usable()) {
                step();
            }
        } catch (IllegalStateException e) {
            // A mapping closed under us (the transport closed from another thread).
            breakConnection(NetException.Reason.CLOSED, description + " was closed: " + e.getMessage());
        } catch (IndexOutOfBoundsException e) {
            // Every field read from shared memory is checked before use; should one slip through, the access is
            // refused by the segment's bounds and the peer is treated as broken, never followed.
            breakConnection(NetException.Reason.PROTOCOL_ERROR, description + ": " + peerName()
                    + " wrote shared memory that led outside its bounds: " + e.getMessage());
        } finally {
            busy = false;
        }
    }

    /**
     * Notes that the calling thread drives this connection: tests step the connections of their own thread.
     *
     * @param request a request just taken, or null when the in-flight limit was reached
     * @return {@code request}
     */
    final ShmRequest drivenByCaller(ShmRequest request) {
        if (request != null) {
            driver = Thread.currentThread();
        }
        return request;
    }

    /**
     * Called when a step made no progress while requests wait: at most every {@value #LIVENESS_CHECK_INTERVAL_NS} ns
     * (the clock is read on every 64th call), looks the peer's process up and breaks the connection with
     * {@link NetException.Reason#PEER_CLOSED} when it is gone.
     *
     * @return whether the peer is (still taken for) alive
     */
    final boolean checkPeerAlive() {
        if ((++idleSteps & 63) != 0) {
            return true;   // the clock (26 ns on these VMs) every 64th idle step: a waiting step stays short
        }
        long now = System.nanoTime();
        if (now - lastLivenessCheckNs < LIVENESS_CHECK_INTERVAL_NS) {
            return true;
        }
        lastLivenessCheckNs = now;
        if (peer.isAlive(scratch)) {
            return true;
        }
        breakConnection(NetException.Reason.PEER_CLOSED, description + " failed: " + peerName() + " (pid " + peer.pid
                + ") is gone");
        return false;
    }

    /** @return the peer, for messages */
    abstract String peerName();

    @Override
    public final void close() {
        if (!markClosed()) {
            return;
        }
        try {
            for (int spins = 0; busy && busyThread != Thread.currentThread(); spins++) {
                if (spins < 1000) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
            if (peer.segment.isOpen() && transport.ownSegmentOpen()) {
                closeShared();
            }
        } catch (IllegalStateException ignored) {
            // a mapping was closed under us: the transport is closing, nothing left to tell
        } finally {
            transport.forget(this);
        }
    }
}
