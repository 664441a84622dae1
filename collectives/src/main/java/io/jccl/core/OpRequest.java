package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.plan.OpKind;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** One queued operation, already checked. */
final class OpRequest {
    enum Type { COLLECTIVE, P2P, GROUP, SPLIT }

    final Type type;
    final OpKind kind;
    final long count;
    final DataType dataType;
    final ReduceOp op;
    final int root;
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
    final boolean inPlace;
    final long[] sendCounts;
    final long[] sendDispls;
    final long[] recvCounts;
    final long[] recvDispls;
    final List<OpRequest> members;
    final int color;
    final int key;
    final OpFuture future;
    final CompletableFuture<Optional<Communicator>> splitResult;

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
