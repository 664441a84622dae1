package io.jccl.prims;

import io.jccl.plan.Buf;
import io.jccl.plan.Plan;
import io.jccl.plan.Step;

import java.util.ArrayList;
import java.util.List;

/** Records primitive calls as {@link Step}s and builds the {@link Plan}. */
public final class PlanBuilder implements Prims {
    private final int rank;
    private final int size;
    private final int elementBytes;
    private final long chunkElements;
    private final List<List<Step>> lanes = new ArrayList<>();
    private List<Step> lane;
    private int member;
    private long stagingBytes;

    /**
     * @param rank          this rank
     * @param size          number of ranks
     * @param elementBytes  bytes per element
     * @param chunkElements most elements per message, at least 1
     */
    public PlanBuilder(int rank, int size, int elementBytes, long chunkElements) {
        if (chunkElements < 1) {
            throw new IllegalArgumentException("chunkElements must be >= 1, got " + chunkElements);
        }
        this.rank = rank;
        this.size = size;
        this.elementBytes = elementBytes;
        this.chunkElements = chunkElements;
        newLane();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int elementBytes() {
        return elementBytes;
    }

    @Override
    public long chunkElements() {
        return chunkElements;
    }

    @Override
    public void newLane() {
        if (lane == null || !lane.isEmpty()) {
            lane = new ArrayList<>();
            lanes.add(lane);
        }
    }

    @Override
    public void member(int member) {
        this.member = member;
    }

    private long bytes(long elements) {
        return elements * elementBytes;
    }

    private void add(Step step) {
        lane.add(step);
    }

    private void staging(long count) {
        stagingBytes = Math.max(stagingBytes, bytes(count));
    }

    @Override
    public void send(int peer, Buf src, long srcIndex, long count) {
        add(new Step(Step.Kind.SEND, member, NO_PEER, NO_PEER, peer, NO_PEER, src, bytes(srcIndex), Buf.NONE, 0,
                count, false, false));
    }

    @Override
    public void sendContribution(int peer, Buf src, long srcIndex, long count) {
        staging(count);
        add(new Step(Step.Kind.SEND, member, NO_PEER, NO_PEER, peer, NO_PEER, src, bytes(srcIndex), Buf.NONE, 0,
                count, true, false));
    }

    @Override
    public void recv(int peer, Buf dst, long dstIndex, long count) {
        add(new Step(Step.Kind.RECV_COPY_SEND, member, peer, NO_PEER, NO_PEER, NO_PEER, Buf.NONE, 0, dst,
                bytes(dstIndex), count, false, false));
    }

    @Override
    public void recvCopySend(int recvPeer, Buf dst, long dstIndex, long count, int sendPeer0, int sendPeer1) {
        add(new Step(Step.Kind.RECV_COPY_SEND, member, recvPeer, NO_PEER, sendPeer0, sendPeer1, Buf.NONE, 0, dst,
                bytes(dstIndex), count, false, false));
    }

    @Override
    public void recvReduceSend(int recvPeer, Buf local, long localIndex, long count, int sendPeer) {
        recvReduceCopySend(recvPeer, NO_PEER, local, localIndex, true, Buf.NONE, 0, count, false, sendPeer, NO_PEER);
    }

    @Override
    public void recvReduceCopySend(int recvPeer0, int recvPeer1, Buf local, long localIndex, boolean localIsRaw,
                                   Buf dst, long dstIndex, long count, boolean finish, int sendPeer0,
                                   int sendPeer1) {
        if (recvPeer0 < 0) {
            throw new IllegalArgumentException("recvReduceCopySend needs a peer to receive from");
        }
        staging(count);
        add(new Step(Step.Kind.RECV_REDUCE_SEND, member, recvPeer0, recvPeer1, sendPeer0, sendPeer1, local,
                bytes(localIndex), dst, bytes(dstIndex), count, localIsRaw, finish));
    }

    @Override
    public void copy(Buf src, long srcIndex, Buf dst, long dstIndex, long count, boolean prepare, boolean finish) {
        if (src == dst && srcIndex == dstIndex && !prepare && !finish) {
            return;   // nothing to do in place
        }
        add(new Step(Step.Kind.COPY, member, NO_PEER, NO_PEER, NO_PEER, NO_PEER, src, bytes(srcIndex), dst,
                bytes(dstIndex), count, prepare, finish));
    }

    @Override
    public void exchangeReduce(int peer, Buf acc, long accIndex, long count) {
        staging(count);
        add(new Step(Step.Kind.EXCHANGE_REDUCE, member, peer, NO_PEER, peer, NO_PEER, Buf.NONE, 0, acc,
                bytes(accIndex), count, false, false));
    }

    @Override
    public void exchangeReduce(int peer, Buf src, long srcIndex, boolean prepare, Buf acc, long accIndex,
                               long count) {
        staging(count);
        add(new Step(Step.Kind.EXCHANGE_REDUCE, member, peer, NO_PEER, peer, NO_PEER, src, bytes(srcIndex), acc,
                bytes(accIndex), count, prepare, false));
    }

    /**
     * @param algorithm name of the algorithm, for logs
     * @return the plan
     */
    public Plan build(String algorithm) {
        List<List<Step>> nonEmpty = new ArrayList<>();
        for (List<Step> l : lanes) {
            if (!l.isEmpty()) {
                nonEmpty.add(l);
            }
        }
        return new Plan(nonEmpty, elementBytes, stagingBytes, algorithm);
    }
}
