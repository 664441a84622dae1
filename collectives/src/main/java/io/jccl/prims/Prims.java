package io.jccl.prims;

import io.jccl.plan.Buf;

/**
 * The primitives, addressed in elements of the operation's type. Each call appends one step to the current
 * lane. {@code NO_PEER} stands for "nobody".
 */
public interface Prims {
    /** No peer. */
    int NO_PEER = -1;

    /** @return this rank */
    int rank();

    /** @return the number of ranks */
    int size();

    /** @return bytes per element */
    int elementBytes();

    /** @return the most elements one message may carry (the chunk size) */
    long chunkElements();

    /**
     * Sends data as it is.
     *
     * @param peer     destination rank
     * @param src      buffer
     * @param srcIndex first element
     * @param count    elements
     */
    void send(int peer, Buf src, long srcIndex, long count);

    /**
     * Sends this rank's raw input as a contribution to a reduction (pre-multiplied when the operation says so).
     *
     * @param peer     destination rank
     * @param src      buffer with the raw input
     * @param srcIndex first element
     * @param count    elements
     */
    void sendContribution(int peer, Buf src, long srcIndex, long count);

    /**
     * Receives into place.
     *
     * @param peer     source rank
     * @param dst      buffer
     * @param dstIndex first element
     * @param count    elements
     */
    void recv(int peer, Buf dst, long dstIndex, long count);

    /**
     * Receives into place, then forwards the same data.
     *
     * @param recvPeer  source rank
     * @param dst       buffer
     * @param dstIndex  first element
     * @param count     elements
     * @param sendPeer0 first rank to forward to
     * @param sendPeer1 second rank to forward to, or {@link #NO_PEER}
     */
    void recvCopySend(int recvPeer, Buf dst, long dstIndex, long count, int sendPeer0, int sendPeer1);

    /**
     * Receives a partial, folds in this rank's raw input, and forwards the new partial.
     *
     * @param recvPeer   source rank
     * @param local      buffer with this rank's raw input
     * @param localIndex first element
     * @param count      elements
     * @param sendPeer   destination rank
     */
    void recvReduceSend(int recvPeer, Buf local, long localIndex, long count, int sendPeer);

    /**
     * Receives partials from up to two peers, folds in a local operand, optionally applies finish, stores the
     * result, and forwards it.
     *
     * @param recvPeer0  first source rank
     * @param recvPeer1  second source rank, or {@link #NO_PEER}
     * @param local      local operand buffer, or {@link Buf#NONE}
     * @param localIndex first element of the local operand
     * @param localIsRaw true when the local operand is raw input (pre-multiplied first), false when a partial
     * @param dst        where the result goes, or {@link Buf#NONE} to keep it in staging
     * @param dstIndex   first element of the result
     * @param count      elements
     * @param finish     apply finish (the division of AVG) to the result
     * @param sendPeer0  first rank to send the result to, or {@link #NO_PEER}
     * @param sendPeer1  second rank to send the result to, or {@link #NO_PEER}
     */
    void recvReduceCopySend(int recvPeer0, int recvPeer1, Buf local, long localIndex, boolean localIsRaw,
                            Buf dst, long dstIndex, long count, boolean finish, int sendPeer0, int sendPeer1);

    /**
     * Local copy, optionally turning raw input into a contribution and/or applying finish.
     *
     * @param src      source buffer
     * @param srcIndex first source element
     * @param dst      destination buffer
     * @param dstIndex first destination element
     * @param count    elements
     * @param prepare  treat the source as raw input
     * @param finish   apply finish
     */
    void copy(Buf src, long srcIndex, Buf dst, long dstIndex, long count, boolean prepare, boolean finish);

    /**
     * Exchanges partials with a peer and combines: {@code acc = acc ⊕ peer's acc}.
     *
     * @param peer     the partner rank
     * @param acc      buffer holding this rank's partial
     * @param accIndex first element
     * @param count    elements
     */
    void exchangeReduce(int peer, Buf acc, long accIndex, long count);

    /**
     * Exchanges with a peer and combines, from a separate local operand: sends this rank's operand at
     * {@code src} (its raw input when {@code prepare}: prepared into {@code acc} first only where the reduction has
     * a prepare step, sent straight from {@code src} otherwise), receives the peer's, and writes
     * {@code acc = src ⊕ peer's}. An out-of-place all-reduce thus needs no copy of its input into its output before
     * the exchange can start.
     *
     * @param peer     the partner rank
     * @param src      buffer holding this rank's operand
     * @param srcIndex its first element
     * @param prepare  the operand is raw input
     * @param acc      buffer for the result
     * @param accIndex its first element
     * @param count    elements
     */
    void exchangeReduce(int peer, Buf src, long srcIndex, boolean prepare, Buf acc, long accIndex, long count);

    /** Starts a new lane: the following steps run concurrently with earlier lanes. */
    void newLane();

    /**
     * Selects which member of a group the following steps belong to (their tag).
     *
     * @param member index of the operation within its group
     */
    void member(int member);
}
