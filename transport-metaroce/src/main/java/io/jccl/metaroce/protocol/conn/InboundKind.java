package io.jccl.metaroce.protocol.conn;

/**
 * What the receivers of one kind of inbound message ({@link InboundWrites}, {@link InboundSends}) of a connection
 * share: the connection they complete work on, the context that places payloads and takes completions, the pool of
 * message states, and the payload size that cuts a message into chunks.
 */
abstract class InboundKind {
    /** The connection the completions name. */
    protected final Connection owner;
    /** Places payloads and takes completions. */
    protected final Connection.Context ctx;
    /** Lends and takes back the per-message state. */
    protected final InboundPool pool;
    /** The largest payload of one DATA packet: a message's chunk size. */
    protected final int payloadBytes;

    InboundKind(Connection owner, Connection.Context ctx, InboundPool pool, int payloadBytes) {
        this.owner = owner;
        this.ctx = ctx;
        this.pool = pool;
        this.payloadBytes = payloadBytes;
    }
}
