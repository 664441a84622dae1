package io.jccl.plan;

/** The operations a plan can carry; the ordinal is part of the wire fingerprint, so only append. */
public enum OpKind {
    /** All-reduce. */
    ALL_REDUCE("allReduce"),
    /** Broadcast. */
    BROADCAST("broadcast"),
    /** Reduce. */
    REDUCE("reduce"),
    /** All-gather. */
    ALL_GATHER("allGather"),
    /** Reduce-scatter. */
    REDUCE_SCATTER("reduceScatter"),
    /** All-to-all. */
    ALL_TO_ALL("allToAll"),
    /** All-to-all with counts per peer. */
    ALL_TO_ALLV("allToAllv"),
    /** Gather. */
    GATHER("gather"),
    /** Scatter. */
    SCATTER("scatter"),
    /** Point-to-point send or receive (one kind, so a send matches a receive). */
    P2P("send/recv"),
    /** Barrier. */
    BARRIER("barrier"),
    /** The exchanges a split performs over its parent. */
    SPLIT("split");

    private final String apiName;

    OpKind(String apiName) {
        this.apiName = apiName;
    }

    /** @return the name of the API call */
    public String apiName() {
        return apiName;
    }
}
