package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.net.NetException;
import io.jccl.net.NetRequest;
import io.jccl.plan.Fingerprint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Error messages between ranks, on connections separate from the data so they are never stuck behind it.
 * A receive is always posted on each peer's control connection; a rank that detects a failure sends an ERROR
 * to every peer, so all ranks fail promptly with the same explanation.
 *
 * <pre>
 * ERROR: int magic 'JCTL' | byte version 1 | byte type 1 | byte code | byte 0 | int origin rank |
 *        int message length (at most 1000) | UTF-8 message
 * </pre>
 */
final class ControlPlane {
    private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);
    static final int MAGIC = 0x4A43544C;
    static final int MESSAGE_BYTES = 1024;
    private static final int HEADER_BYTES = 16;
    private static final int MAX_TEXT_BYTES = MESSAGE_BYTES - HEADER_BYTES;

    private final int rank;
    private final PeerLinks links;
    private final MemorySegment recvBuffers;
    private final MemorySegment sendBuffers;
    private final NetRequest[] recvs;
    private final NetRequest[] sends;
    private final boolean[] peerGone;

    ControlPlane(int rank, PeerLinks links, Arena arena) {
        this.rank = rank;
        this.links = links;
        int n = links.controlRecv.length;
        this.recvBuffers = arena.allocate((long) n * MESSAGE_BYTES, 64);
        this.sendBuffers = arena.allocate((long) n * MESSAGE_BYTES, 64);
        this.recvs = new NetRequest[n];
        this.sends = new NetRequest[n];
        this.peerGone = new boolean[n];
    }

    /** Posts the standing receive on every peer's control connection. */
    void start() {
        for (int p = 0; p < recvs.length; p++) {
            if (p != rank) {
                post(p);
            }
        }
    }

    private void post(int peer) {
        try {
            recvs[peer] = links.controlRecv[peer].irecv(recvBuffers, (long) peer * MESSAGE_BYTES, MESSAGE_BYTES,
                    Fingerprint.CONTROL_TAG, null);
        } catch (NetException e) {
            peerGone[peer] = true;
        }
    }

    /**
     * Looks for error reports from peers.
     *
     * @return the first report turned into this rank's exception, or null
     */
    JcclException poll() {
        JcclException first = null;
        for (int p = 0; p < recvs.length; p++) {
            if (p == rank || peerGone[p]) {
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
                recvs[p] = null;
                peerGone[p] = true;   // a peer that closes is noticed on the data path when it matters
                continue;
            }
            if (bytes == NetRequest.NOT_DONE) {
                continue;
            }
            recvs[p] = null;
            JcclException e = decode(p, bytes);
            post(p);
            if (e != null && first == null) {
                first = e;
            }
        }
        return first;
    }

    private JcclException decode(int peer, long bytes) {
        long base = (long) peer * MESSAGE_BYTES;
        if (bytes < HEADER_BYTES || recvBuffers.get(ValueLayout.JAVA_INT_UNALIGNED, base) != MAGIC
                || recvBuffers.get(ValueLayout.JAVA_BYTE, base + 4) != 1
                || recvBuffers.get(ValueLayout.JAVA_BYTE, base + 5) != 1) {
            LOG.warn("rank {}: ignoring a malformed control message of {} bytes from rank {}", rank, bytes, peer);
            return null;
        }
        int codeOrdinal = recvBuffers.get(ValueLayout.JAVA_BYTE, base + 6);
        int origin = recvBuffers.get(ValueLayout.JAVA_INT_UNALIGNED, base + 8);
        int length = recvBuffers.get(ValueLayout.JAVA_INT_UNALIGNED, base + 12);
        if (codeOrdinal < 0 || codeOrdinal >= ErrorCode.values().length || length < 0 || length > bytes - HEADER_BYTES
                || origin < 0 || origin >= recvs.length) {
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

    /** Tells every peer (best effort, without waiting long) that this rank failed. */
    void broadcast(ErrorCode code, String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, MAX_TEXT_BYTES);
        for (int p = 0; p < sends.length; p++) {
            if (p == rank || links.controlSend[p] == null) {
                continue;
            }
            long base = (long) p * MESSAGE_BYTES;
            if (sends[p] != null && !finished(p)) {
                continue;   // the previous report is still in flight: it suffices
            }
            sendBuffers.set(ValueLayout.JAVA_INT_UNALIGNED, base, MAGIC);
            sendBuffers.set(ValueLayout.JAVA_BYTE, base + 4, (byte) 1);
            sendBuffers.set(ValueLayout.JAVA_BYTE, base + 5, (byte) 1);
            sendBuffers.set(ValueLayout.JAVA_BYTE, base + 6, (byte) code.ordinal());
            sendBuffers.set(ValueLayout.JAVA_BYTE, base + 7, (byte) 0);
            sendBuffers.set(ValueLayout.JAVA_INT_UNALIGNED, base + 8, rank);
            sendBuffers.set(ValueLayout.JAVA_INT_UNALIGNED, base + 12, length);
            MemorySegment.copy(text, 0, sendBuffers, ValueLayout.JAVA_BYTE, base + HEADER_BYTES, length);
            try {
                sends[p] = links.controlSend[p].isend(sendBuffers, base, HEADER_BYTES + length,
                        Fingerprint.CONTROL_TAG, null);
            } catch (NetException e) {
                sends[p] = null;
            }
        }
        // Give the reports a moment to leave (transports that progress only when polled need it).
        long deadline = System.nanoTime() + 50_000_000L;
        boolean pending = true;
        while (pending && System.nanoTime() < deadline) {
            pending = false;
            for (int p = 0; p < sends.length; p++) {
                if (sends[p] != null && !finished(p)) {
                    pending = true;
                }
            }
            if (pending) {
                Thread.onSpinWait();
            }
        }
    }

    private boolean finished(int peer) {
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
