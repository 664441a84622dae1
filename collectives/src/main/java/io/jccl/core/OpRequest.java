package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One operation, already checked: queued, or run at once by the thread that issues it ({@link #inline()}: one per
 * communicator, reset for each such operation, which then has no future unless it is handed over).
 */
final class OpRequest {
    enum Type { COLLECTIVE, P2P, GROUP, SPLIT }

    /** {@link #inlineOutcome}: the inline operation has not ended (or the request is a queued one). */
    static final int RUNNING = 0;
    static final int DONE = 1;
    static final int FAILED = 2;

    final Type type;
    // Not final: the inline request is reset for each operation run at once (resetCollective).
    OpKind kind;
    long count;
    DataType dataType;
    ReduceOp op;
    int root;
    final int peer;
    final boolean p2pSend;
    /**
     * The buffers. Not final for device buffers ({@link #device}): the executor points them at host staging when
     * the operation starts and clears them afterwards, on its own thread.
     */
    MemorySegment send;
    MemorySegment recv;
    /** The device buffers to stage, or null for an operation on segments only. */
    DeviceArgs device;
    boolean inPlace;
    /** Whether this operation's sends ask to be read where they lie ({@code SendConnection.isendSingleCopy}). */
    boolean singleCopySends;
    final long[] sendCounts;
    final long[] sendDispls;
    final long[] recvCounts;
    final long[] recvDispls;
    final List<OpRequest> members;
    final int color;
    final int key;
    /**
     * What waiters wait on. Null only for the inline request while its issuing thread runs it: it completes or fails
     * {@link #inlineOutcome} instead, and gets a future when it is handed over unfinished.
     */
    OpFuture future;
    final CompletableFuture<Optional<Communicator>> splitResult;
    /** The inline request's outcome while it has no future: {@link #RUNNING}, {@link #DONE} or {@link #FAILED}. */
    int inlineOutcome;
    /** Why the inline request failed ({@link #FAILED}). */
    JcclException inlineError;

    private OpRequest(Type type, OpKind kind, long count, DataType dataType, ReduceOp op, int root, int peer,
                      boolean p2pSend, MemorySegment send, MemorySegment recv, boolean inPlace, long[] sendCounts,
                      long[] sendDispls, long[] recvCounts, long[] recvDispls, List<OpRequest> members, int color,
                      int key, OpFuture future, CompletableFuture<Optional<Communicator>> splitResult) {
        this.type = type;
        this.kind = kind;
        this.count = count;
        this.dataType = dataType;
        this.op = op;
        this.root = root;
        this.peer = peer;
        this.p2pSend = p2pSend;
        this.send = send;
        this.recv = recv;
        this.inPlace = inPlace;
        this.sendCounts = sendCounts;
        this.sendDispls = sendDispls;
        this.recvCounts = recvCounts;
        this.recvDispls = recvDispls;
        this.members = members;
        this.color = color;
        this.key = key;
        this.future = future;
        this.splitResult = splitResult;
    }

    static OpRequest collective(OpKind kind, long count, DataType type, ReduceOp op, int root, MemorySegment send,
                                MemorySegment recv, boolean inPlace, OpFuture future) {
        return new OpRequest(Type.COLLECTIVE, kind, count, type, op, root, -1, false, send, recv, inPlace, null,
                null, null, null, null, 0, 0, future, null);
    }

    /** @return the request a communicator reuses for the operations its issuing threads run at once */
    static OpRequest inline() {
        return new OpRequest(Type.COLLECTIVE, null, 0, null, null, -1, -1, false, null, null, false, null, null, null,
                null, null, 0, 0, null, null);
    }

    /** Makes the inline request the collective given, with no future yet and its outcome {@link #RUNNING}. */
    void resetCollective(OpKind kind, long count, DataType type, ReduceOp op, int root, MemorySegment send,
                         MemorySegment recv, boolean inPlace) {
        this.kind = kind;
        this.count = count;
        this.dataType = type;
        this.op = op;
        this.root = root;
        this.send = send;
        this.recv = recv;
        this.inPlace = inPlace;
        this.future = null;
        this.inlineOutcome = RUNNING;
        this.inlineError = null;
    }

    /** Lets go of the inline request's buffers once its operation ended (they are the caller's). */
    void clearInline() {
        this.send = null;
        this.recv = null;
    }

    static OpRequest allToAllv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                               long[] recvCounts, long[] recvDispls, DataType type, OpFuture future) {
        return new OpRequest(Type.COLLECTIVE, OpKind.ALL_TO_ALLV, 0, type, null, -1, -1, false, send, recv, false,
                sendCounts, sendDispls, recvCounts, recvDispls, null, 0, 0, future, null);
    }

    static OpRequest p2p(boolean isSend, MemorySegment buffer, long count, DataType type, int peer, OpFuture future) {
        return new OpRequest(Type.P2P, OpKind.P2P, count, type, null, -1, peer, isSend, isSend ? buffer : null,
                isSend ? null : buffer, false, null, null, null, null, null, 0, 0, future, null);
    }

    static OpRequest group(List<OpRequest> members, OpFuture future) {
        return new OpRequest(Type.GROUP, null, 0, null, null, -1, -1, false, null, null, false, null, null, null,
                null, List.copyOf(members), 0, 0, future, null);
    }

    static OpRequest split(int color, int key, OpFuture future, CompletableFuture<Optional<Communicator>> result) {
        return new OpRequest(Type.SPLIT, OpKind.SPLIT, 0, null, null, -1, -1, false, null, null, false, null, null,
                null, null, null, color, key, future, result);
    }

    /** The first counts of an all-to-allv, for messages. */
    private static String counts(long[] c) {
        int shown = Math.min(c.length, 8);
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < shown; i++) {
            sb.append(i == 0 ? "" : ", ").append(c[i]);
        }
        return sb.append(c.length > shown ? ", ...]" : "]").toString();
    }

    /** @return how the call looked, e.g. {@code allReduce(count=10, FLOAT32, sum)} */
    String describe() {
        return switch (type) {
            case GROUP -> "group of " + members.size() + " operations";
            case SPLIT -> "split(color=" + color + ", key=" + key + ")";
            case P2P -> (p2pSend ? "send" : "recv") + "(count=" + count + ", " + dataType + ", peer=" + peer + ")";
            case COLLECTIVE -> kind == OpKind.ALL_TO_ALLV ? "allToAllv(" + dataType + ", sendCounts="
                    + counts(sendCounts) + ", recvCounts=" + counts(recvCounts) + ")"
                    : kind.apiName() + "(count=" + count + (dataType == null ? "" : ", " + dataType)
                    + (op == null ? "" : ", " + op) + (root >= 0 ? ", root=" + root : "") + ")";
        };
    }
}
