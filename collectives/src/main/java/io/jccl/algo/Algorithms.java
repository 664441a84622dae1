package io.jccl.algo;

import io.jccl.Algorithm;
import io.jccl.plan.Buf;
import io.jccl.plan.OpShape;
import io.jccl.prims.Prims;

/** Chooses the algorithm code for an operation and records its steps. */
public final class Algorithms {
    private Algorithms() {
    }

    /**
     * Records the steps of one operation on {@code p}. A reduction or rooted copy that needs no exchange (one rank,
     * or no elements) is planned by {@link EdgeCases} alike for every algorithm, which then plans nothing.
     *
     * @param p         primitives (already set to the operation's group member)
     * @param shape     the operation
     * @param allReduce the all-reduce algorithm to use (ignored for other operations); not AUTO
     * @return a short name of what was used
     */
    public static String build(Prims p, OpShape shape, Algorithm allReduce) {
        switch (shape.kind()) {
            case ALL_REDUCE -> {
                if (!EdgeCases.reduction(p, shape.count())) {
                    switch (allReduce) {
                        case TREE -> TreeAllReduce.build(p, shape.count());
                        case RECURSIVE_DOUBLING -> RecursiveDoublingAllReduce.build(p, shape.count());
                        default -> RingAllReduce.build(p, shape.count());
                    }
                }
                return allReduce == Algorithm.AUTO ? "ring" : allReduce.name().toLowerCase(java.util.Locale.ROOT);
            }
            case BROADCAST -> {
                if (!EdgeCases.singleRankCopy(p, shape.count(), shape.inPlace())) {
                    ChainBroadcast.build(p, shape.count(), shape.root(), shape.inPlace());
                }
                return "chain";
            }
            case REDUCE -> {
                ChainReduce.build(p, shape.count(), shape.root());
                return "chain";
            }
            case ALL_GATHER -> {
                RingAllGather.build(p, shape.count(), shape.inPlace());
                return "ring";
            }
            case REDUCE_SCATTER -> {
                if (!EdgeCases.reduction(p, shape.count())) {
                    RingReduceScatter.build(p, shape.count());
                }
                return "ring";
            }
            case ALL_TO_ALL -> {
                PairwiseAllToAll.build(p, shape.count());
                return "pairwise";
            }
            case ALL_TO_ALLV -> {
                PairwiseAllToAll.build(p, shape.sendCounts(), shape.sendDispls(), shape.recvCounts(),
                        shape.recvDispls());
                return "pairwise";
            }
            case GATHER -> {
                if (!EdgeCases.singleRankCopy(p, shape.count(), shape.inPlace())) {
                    DirectGatherScatter.gather(p, shape.count(), shape.root(), shape.inPlace());
                }
                return "direct";
            }
            case SCATTER -> {
                if (!EdgeCases.singleRankCopy(p, shape.count(), shape.inPlace())) {
                    DirectGatherScatter.scatter(p, shape.count(), shape.root(), shape.inPlace());
                }
                return "direct";
            }
            case BARRIER -> {
                DisseminationBarrier.build(p);
                return "dissemination";
            }
            case P2P -> {
                if (shape.p2pSend()) {
                    p.send(shape.peer(), Buf.SEND, 0, shape.count());
                } else {
                    p.recv(shape.peer(), Buf.RECV, 0, shape.count());
                }
                return "p2p";
            }
            default -> throw new IllegalArgumentException("no algorithm for " + shape.kind());
        }
    }
}
