package io.jccl.plan;

/**
 * One primitive step of a plan. Offsets are in bytes from the start of the referenced buffer; {@code count}
 * is in elements. Peers are ranks, or -1 for none. Which fields matter depends on the kind:
 *
 * <ul>
 * <li>{@link Kind#SEND}: send {@code count} elements at {@code src} to {@code sendPeer0/1}; with
 *     {@code prepare} the data is this rank's raw input and is turned into a contribution first.</li>
 * <li>{@link Kind#RECV_COPY_SEND}: receive from {@code recvPeer0} straight into {@code dst}, then send
 *     {@code dst} on to {@code sendPeer0/1} if any (recv when there is none).</li>
 * <li>{@link Kind#RECV_REDUCE_SEND}: receive from {@code recvPeer0} (and {@code recvPeer1}) into staging,
 *     combine with the local operand at {@code src} (raw input when {@code prepare}, a partial otherwise;
 *     none when {@code src} is {@link Buf#NONE}), apply finish when {@code finish}, write the result to
 *     {@code dst} ({@link Buf#NONE}: keep it in staging), then send it to {@code sendPeer0/1} if any.</li>
 * <li>{@link Kind#COPY}: {@code dst = finish?(prepare?(src))}; in place when src and dst are the same.</li>
 * <li>{@link Kind#EXCHANGE_REDUCE}: send the partial at {@code dst} to {@code sendPeer0} while receiving
 *     the peer's partial from {@code recvPeer0}; when both are done, {@code dst = dst ⊕ received}. With a
 *     {@code src} (not {@link Buf#NONE}) the local operand is there instead (raw input when {@code prepare}): it
 *     is sent from {@code src} (prepared into {@code dst} first where the reduction prepares) and
 *     {@code dst = src ⊕ received}.</li>
 * </ul>
 *
 * @param kind      what the step does
 * @param member    which operation of a group the step belongs to (selects its tag)
 * @param recvPeer0 first peer received from
 * @param recvPeer1 second peer received from
 * @param sendPeer0 first peer sent to
 * @param sendPeer1 second peer sent to
 * @param src       source or local operand buffer
 * @param srcOffset byte offset in {@code src}
 * @param dst       destination buffer
 * @param dstOffset byte offset in {@code dst}
 * @param count     elements
 * @param prepare   the local operand is raw input (apply prepare)
 * @param finish    apply finish to the result
 */
public record Step(Kind kind, int member, int recvPeer0, int recvPeer1, int sendPeer0, int sendPeer1,
                   Buf src, long srcOffset, Buf dst, long dstOffset, long count, boolean prepare, boolean finish) {

    /** The primitive a step performs. */
    public enum Kind {
        /** Send (optionally turning raw input into a contribution first). */
        SEND,
        /** Receive into place, then forward. */
        RECV_COPY_SEND,
        /** Receive into staging, reduce with a local operand, optionally store, then forward. */
        RECV_REDUCE_SEND,
        /** Local copy with optional prepare/finish. */
        COPY,
        /** Symmetric exchange of partials with one peer, then combine. */
        EXCHANGE_REDUCE
    }

    /** @return how many peers the step receives from */
    public int recvPeerCount() {
        return (recvPeer0 >= 0 ? 1 : 0) + (recvPeer1 >= 0 ? 1 : 0);
    }

    /** @return how many peers the step sends to */
    public int sendPeerCount() {
        return (sendPeer0 >= 0 ? 1 : 0) + (sendPeer1 >= 0 ? 1 : 0);
    }
}
