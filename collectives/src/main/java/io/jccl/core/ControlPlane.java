package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.plan.Fingerprint;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Messages about the communicator itself between ranks, on connections separate from the data so they are never
 * stuck behind it. A receive is always posted on each peer's control connection.
 * <ul>
 * <li>ERROR: a rank that detects a failure sends one to every peer, so all ranks fail promptly with the same
 *     explanation.</li>
 * <li>HEARTBEAT: sent to every peer each fifth of the peer timeout ({@code JCCL_PEER_TIMEOUT_MS}); a peer heard
 *     from by no message for the whole timeout is declared dead. This is what catches a rank that was killed, or
 *     whose host or network failed, on transports that cannot see it (UDP has no connection to break).</li>
 * <li>BYE: sent by a rank that closes its communicator, so its peers tell that departure from a death: a control
 *     connection that breaks without a BYE fails the communicator at once.</li>
 * </ul>
 *
 * <pre>
 * int magic 'JCTL' | byte version 1 | byte type (1 ERROR, 2 HEARTBEAT, 3 BYE) | byte code | byte 0 |
 * int origin rank | int message length (at most 1008; 0 unless ERROR) | UTF-8 message
 * </pre>
 *
 * <p>Heartbeats are sent by one JVM-wide daemon thread ({@link #HEARTBEATS}), not by the communicator's thread,
 * so a rank whose thread is busy for a while (a long reduction before the JIT compiled it, a slow callback) still
 * looks alive; the communicator's thread reads them and checks the silences. A communicator stepped by its caller
 * ({@link SteppedCommunicator}) has no threads: its executor sends them when due ({@link #heartbeatIfDue}). Sends
 * on the control connections are serialized by a lock: the control plane is not the data path.
 *
 * <p>Nothing here waits: reports are started ({@link #broadcast}, {@link #sayGoodbye}) and the executor then
 * keeps testing them ({@link #reportsSettled}) until they left or their linger time passed. All times come from
 * the executor's clock.
 */
final class ControlPlane {
    private static final Logger LOG = JcclLog.logger(Subsystem.COLL, ControlPlane.class);
    static final int MAGIC = 0x4A43544C;
    static final int MESSAGE_BYTES = 1024;
    static final byte TYPE_ERROR = 1;
    static final byte TYPE_HEARTBEAT = 2;
    static final byte TYPE_BYE = 3;
    private static final int HEADER_BYTES = 16;
    private static final int MAX_TEXT_BYTES = MESSAGE_BYTES - HEADER_BYTES;
    /** Heartbeats per peer timeout: four may be lost or late before a live peer looks dead. */
    private static final int HEARTBEATS_PER_TIMEOUT = 5;
    /** How long a failing rank waits for its error reports to leave: it is failing, peers have heartbeats too. */
    private static final long ERROR_LINGER_NS = 50_000_000L;
    /**
     * How long a closing rank waits for its goodbyes to leave. Closing is not urgent, and a goodbye that is lost
     * because the connection closed first makes a peer still finishing its last operation take the departure for a
     * death (a loaded machine can take tens of milliseconds to acknowledge a message over UDP).
     */
    private static final long GOODBYE_LINGER_NS = 2_000_000_000L;
    /** Sends every communicator's heartbeats in this JVM: cheap work, one thread is plenty. */
    static final ScheduledExecutorService HEARTBEATS = heartbeatThread();

    private final int rank;
    private final PeerLinks links;
    private final NanoClock clock;
    /** Whether the executor sends the heartbeats ({@link #heartbeatIfDue}) rather than {@link #HEARTBEATS}. */
    private final boolean heartbeatsFromExecutor;
    private final String[] peerNames;
    private final long peerTimeoutNs;
    private final long heartbeatIntervalNs;
    private final MemorySegment recvBuffers;
    /** Per peer: one slot for reports (ERROR, BYE) and one for heartbeats, so neither waits for the other. */
    private final MemorySegment reportBuffers;
    private final MemorySegment heartbeatBuffers;
    private final NetRequest[] recvs;
    private final NetRequest[] reportSends;
    private final NetRequest[] heartbeatSends;
    private final boolean[] peerGone;
    private final boolean[] departed;
    private final long[] lastHeardNs;
    private final Object sendLock = new Object();
    /** Set under {@link #sendLock} once the connections may close: no send starts after it. */
    private boolean sendsStopped;
    private ScheduledFuture<?> heartbeatTask;
    /** When the executor sends the next heartbeats ({@link #heartbeatsFromExecutor} only). */
    private long nextHeartbeatNs = Long.MAX_VALUE;
    /** Until when the executor waits for the reports in flight to leave ({@link #reportsSettled}). */
    private long reportsLingerUntilNs;
    private long lastSilenceCheckNs;
    /** A failure this rank detected itself (a control connection lost without a BYE), until reported. */
    private JcclException detected;

    /**
     * @param peerNames              per rank, how to name it in messages (e.g. {@code rank 2 (pid 4711 on node3)})
     * @param peerTimeoutNs          silence after which a peer is declared dead; 0 turns heartbeats off
     * @param clock                  the executor's clock: liveness, heartbeat times and lingers
     * @param heartbeatsFromExecutor true when the executor sends the heartbeats ({@link #heartbeatIfDue}), as a
     *                               communicator without threads must; false: the JVM-wide heartbeat thread does
     */
    ControlPlane(int rank, PeerLinks links, Arena arena, String[] peerNames, long peerTimeoutNs, NanoClock clock,
                 boolean heartbeatsFromExecutor) {
        this.rank = rank;
        this.links = links;
        this.clock = clock;
        this.heartbeatsFromExecutor = heartbeatsFromExecutor;
        this.peerNames = peerNames;
        this.peerTimeoutNs = peerTimeoutNs;
        this.heartbeatIntervalNs = peerTimeoutNs / HEARTBEATS_PER_TIMEOUT;
        int n = links.controlRecv.length;
        this.recvBuffers = arena.allocate((long) n * MESSAGE_BYTES, 64);
        this.reportBuffers = arena.allocate((long) n * MESSAGE_BYTES, 64);
        this.heartbeatBuffers = arena.allocate((long) n * HEADER_BYTES, 64);
        this.recvs = new NetRequest[n];
        this.reportSends = new NetRequest[n];
        this.heartbeatSends = new NetRequest[n];
        this.peerGone = new boolean[n];
        this.departed = new boolean[n];
        this.lastHeardNs = new long[n];
        for (int p = 0; p < n; p++) {
            writeHeader(heartbeatBuffers, (long) p * HEADER_BYTES, TYPE_HEARTBEAT, ErrorCode.INVALID_ARGUMENT, 0);
        }
    }

    /** Posts the standing receive on every peer's control connection and starts the liveness clock. */
    void start() {
        long now = clock.nanoTime();
        lastSilenceCheckNs = now;
        for (int p = 0; p < recvs.length; p++) {
            if (p != rank) {
                lastHeardNs[p] = now;
                post(p);
            }
        }
        if (peerTimeoutNs > 0 && recvs.length > 1) {
            if (heartbeatsFromExecutor) {
                nextHeartbeatNs = now;
            } else {
                heartbeatTask = HEARTBEATS.scheduleAtFixedRate(this::sendHeartbeats, 0, heartbeatIntervalNs,
                        TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * Sends the heartbeats when they are due; for an executor that sends them itself, called on each step.
     *
     * @return whether they were due
     */
    boolean heartbeatIfDue(long nowNs) {
        if (nextHeartbeatNs == Long.MAX_VALUE || nowNs - nextHeartbeatNs < 0) {
            return false;
        }
        sendHeartbeats();
        // At a fixed rate, like the heartbeat thread; after a long gap the next one is an interval away.
        nextHeartbeatNs += heartbeatIntervalNs;
        if (nowNs - nextHeartbeatNs >= 0) {
            nextHeartbeatNs = nowNs + heartbeatIntervalNs;
        }
        return true;
    }

    /** @return when {@link #heartbeatIfDue} next sends, or {@link Long#MAX_VALUE} when it never does */
    long nextHeartbeatNs() {
        return nextHeartbeatNs;
    }

    private static ScheduledExecutorService heartbeatThread() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("jccl-heartbeats").factory());
        e.setRemoveOnCancelPolicy(true);   // closed communicators must not linger in its queue
        return e;
    }

    /** Stops heartbeats and reports for good; call before closing the control connections. */
    void stopSending() {
        if (heartbeatTask != null) {
            heartbeatTask.cancel(false);
        }
        nextHeartbeatNs = Long.MAX_VALUE;
        synchronized (sendLock) {
            sendsStopped = true;
        }
    }

    private void post(int peer) {
        try {
            recvs[peer] = links.controlRecv[peer].irecv(recvBuffers, (long) peer * MESSAGE_BYTES, MESSAGE_BYTES,
                    Fingerprint.CONTROL_TAG, null);
        } catch (NetException e) {
            connectionLost(peer, e);
        }
    }

    private void connectionLost(int peer, NetException e) {
        recvs[peer] = null;
        peerGone[peer] = true;
        if (!departed[peer] && detected == null) {
            detected = new JcclException(ErrorCode.REMOTE_ERROR, "lost the control connection to "
                    + peerNames[peer] + " without a goodbye: it died, or its host or the network failed ("
                    + e.getMessage() + ")");
        }
    }

    /**
     * Looks for reports from peers (and keeps the receives posted).
     *
     * @return the first error report turned into this rank's exception, or null
     */
    JcclException poll() {
        JcclException first = null;
        long now = 0;
        for (int p = 0; p < recvs.length; p++) {
            if (p == rank || peerGone[p] || departed[p]) {
                continue;
            }
            if (recvs[p] == null) {
                post(p);
                if (recvs[p] == null) {
                    continue;
                }
            }
            long bytes;
            try {
                bytes = recvs[p].test();
            } catch (NetException e) {
                connectionLost(p, e);
                continue;
            }
            if (bytes == NetRequest.NOT_DONE) {
                continue;
            }
            recvs[p] = null;
            if (now == 0) {
                now = clock.nanoTime();
            }
            lastHeardNs[p] = now;
            JcclException e = decode(p, bytes);
            if (!departed[p]) {
                post(p);
            }
            if (e != null && first == null) {
                first = e;
            }
        }
        return first;
    }

    /**
     * Checks that every peer was heard from recently (call after {@link #poll()}, which notes what arrived). Call
     * often; cheap when no check is due.
     *
     * @param now the executor's clock now
     * @return a failure this rank detected (a peer died or went silent), or null
     */
    JcclException liveness(long now) {
        JcclException lost = detected;
        if (lost != null) {
            detected = null;
            return lost;
        }
        if (peerTimeoutNs == 0) {
            return null;
        }
        if (now - lastSilenceCheckNs < heartbeatIntervalNs / 4) {
            return null;
        }
        lastSilenceCheckNs = now;
        for (int p = 0; p < recvs.length; p++) {
            if (p != rank && !departed[p] && now - lastHeardNs[p] > peerTimeoutNs) {
                return new JcclException(ErrorCode.REMOTE_ERROR, "heard nothing from " + peerNames[p] + " for "
                        + (now - lastHeardNs[p]) / 1_000_000 + " ms (" + io.jccl.CommConfig.PEER_TIMEOUT_MS + "="
                        + peerTimeoutNs / 1_000_000 + "): it died, hangs, or the network between us failed");
            }
        }
        return null;
    }

    /**
     * @return the earliest time at which {@link #liveness} can report a silent peer if nothing arrives before
     *         ({@link Long#MAX_VALUE} when it never can); a failure already detected is due at once
     */
    long nextLivenessCheckNs() {
        if (detected != null) {
            return Long.MIN_VALUE;
        }
        if (peerTimeoutNs == 0) {
            return Long.MAX_VALUE;
        }
        long oldestHeardNs = 0;
        boolean any = false;
        for (int p = 0; p < recvs.length; p++) {
            if (p != rank && !departed[p] && (!any || lastHeardNs[p] - oldestHeardNs < 0)) {
                oldestHeardNs = lastHeardNs[p];
                any = true;
            }
        }
        if (!any) {
            return Long.MAX_VALUE;
        }
        long silentNs = oldestHeardNs + peerTimeoutNs + 1;
        long checkAllowedNs = lastSilenceCheckNs + heartbeatIntervalNs / 4;
        return silentNs - checkAllowedNs > 0 ? silentNs : checkAllowedNs;
    }

    private void sendHeartbeats() {
        synchronized (sendLock) {
            if (!sendsStopped) {
                try {
                    sendHeartbeatsLocked();
                } catch (RuntimeException e) {   // a throw would cancel this rank's heartbeats for good
                    LOG.warn("rank {}: sending heartbeats failed", rank, e);
                }
            }
        }
    }

    private void sendHeartbeatsLocked() {
        for (int p = 0; p < heartbeatSends.length; p++) {
            if (p == rank || links.controlSend[p] == null || departed[p]) {
                continue;
            }
            if (heartbeatSends[p] != null && !finished(heartbeatSends, p)) {
                continue;   // the last one has not left yet: the peer or the path is slow, another would not help
            }
            try {
                heartbeatSends[p] = links.controlSend[p].isend(heartbeatBuffers, (long) p * HEADER_BYTES,
                        HEADER_BYTES, Fingerprint.CONTROL_TAG, null);
            } catch (RuntimeException e) {   // NetException, or a connection closed under us
                heartbeatSends[p] = null;   // the receive side notices a dead peer
            }
        }
    }

    private JcclException decode(int peer, long bytes) {
        long base = (long) peer * MESSAGE_BYTES;
        if (bytes < HEADER_BYTES || recvBuffers.get(ValueLayout.JAVA_INT_UNALIGNED, base) != MAGIC
                || recvBuffers.get(ValueLayout.JAVA_BYTE, base + 4) != 1) {
            LOG.warn("rank {}: ignoring a malformed control message of {} bytes from rank {}", rank, bytes, peer);
            return null;
        }
        byte type = recvBuffers.get(ValueLayout.JAVA_BYTE, base + 5);
        if (type == TYPE_HEARTBEAT) {
            return null;
        }
        if (type == TYPE_BYE) {
            departed[peer] = true;
            LOG.debug("rank {}: {} closed its communicator", rank, peerNames[peer]);
            return null;
        }
        int codeOrdinal = recvBuffers.get(ValueLayout.JAVA_BYTE, base + 6);
        int origin = recvBuffers.get(ValueLayout.JAVA_INT_UNALIGNED, base + 8);
        int length = recvBuffers.get(ValueLayout.JAVA_INT_UNALIGNED, base + 12);
        if (type != TYPE_ERROR || codeOrdinal < 0 || codeOrdinal >= ErrorCode.values().length || length < 0
                || length > bytes - HEADER_BYTES || origin < 0 || origin >= recvs.length) {
            LOG.warn("rank {}: ignoring a control message with invalid fields from rank {}", rank, peer);
            return null;
        }
        byte[] text = new byte[length];
        MemorySegment.copy(recvBuffers, ValueLayout.JAVA_BYTE, base + HEADER_BYTES, text, 0, length);
        String message = new String(text, StandardCharsets.UTF_8);
        ErrorCode code = ErrorCode.values()[codeOrdinal];
        if (code == ErrorCode.INVALID_USAGE) {
            return new JcclException(ErrorCode.INVALID_USAGE, message);
        }
        return new JcclException(ErrorCode.REMOTE_ERROR, "rank " + origin + " failed: " + code + ": " + message);
    }

    private void writeHeader(MemorySegment buffers, long base, byte type, ErrorCode code, int length) {
        buffers.set(ValueLayout.JAVA_INT_UNALIGNED, base, MAGIC);
        buffers.set(ValueLayout.JAVA_BYTE, base + 4, (byte) 1);
        buffers.set(ValueLayout.JAVA_BYTE, base + 5, type);
        buffers.set(ValueLayout.JAVA_BYTE, base + 6, (byte) code.ordinal());
        buffers.set(ValueLayout.JAVA_BYTE, base + 7, (byte) 0);
        buffers.set(ValueLayout.JAVA_INT_UNALIGNED, base + 8, rank);
        buffers.set(ValueLayout.JAVA_INT_UNALIGNED, base + 12, length);
    }

    /**
     * Starts telling every peer (best effort) that this rank failed; the executor then waits, without blocking,
     * until {@link #reportsSettled} (at most {@link #ERROR_LINGER_NS}).
     */
    void broadcast(ErrorCode code, String message) {
        report(TYPE_ERROR, code, message, ERROR_LINGER_NS);
    }

    /**
     * Starts telling every peer (best effort) that this rank is closing its communicator; the executor then waits,
     * without blocking, until {@link #reportsSettled} (at most {@link #GOODBYE_LINGER_NS}).
     */
    void sayGoodbye() {
        report(TYPE_BYE, ErrorCode.INVALID_ARGUMENT, "", GOODBYE_LINGER_NS);
    }

    private void report(byte type, ErrorCode code, String message, long lingerNs) {
        synchronized (sendLock) {
            if (!sendsStopped) {
                startReports(type, code, message);
            }
        }
        reportsLingerUntilNs = clock.nanoTime() + lingerNs;
    }

    /**
     * Tests the reports in flight: they get a moment to leave (transports that progress only when polled need
     * their requests tested).
     *
     * @param now the executor's clock now
     * @return true when every report left (or failed), or the linger time of the last ones started passed
     */
    boolean reportsSettled(long now) {
        boolean pending = false;
        synchronized (sendLock) {
            for (int p = 0; p < reportSends.length; p++) {
                if (reportSends[p] != null && !finished(reportSends, p)) {
                    pending = true;
                }
            }
        }
        return !pending || now - reportsLingerUntilNs >= 0;
    }

    /** @return until when {@link #reportsSettled} waits for the reports in flight */
    long reportsLingerUntilNs() {
        return reportsLingerUntilNs;
    }

    private void startReports(byte type, ErrorCode code, String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, MAX_TEXT_BYTES);
        for (int p = 0; p < reportSends.length; p++) {
            if (p == rank || links.controlSend[p] == null) {
                continue;
            }
            long base = (long) p * MESSAGE_BYTES;
            if (reportSends[p] != null && !finished(reportSends, p)) {
                continue;   // the previous report is still in flight: it suffices
            }
            writeHeader(reportBuffers, base, type, code, length);
            MemorySegment.copy(text, 0, reportBuffers, ValueLayout.JAVA_BYTE, base + HEADER_BYTES, length);
            try {
                reportSends[p] = links.controlSend[p].isend(reportBuffers, base, HEADER_BYTES + length,
                        Fingerprint.CONTROL_TAG, null);
            } catch (NetException e) {
                reportSends[p] = null;
            }
        }
    }

    private static boolean finished(NetRequest[] sends, int peer) {
        try {
            if (sends[peer].test() != NetRequest.NOT_DONE) {
                sends[peer] = null;
                return true;
            }
            return false;
        } catch (NetException e) {
            sends[peer] = null;
            return true;
        }
    }
}
