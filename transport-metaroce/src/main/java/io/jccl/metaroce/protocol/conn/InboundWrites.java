package io.jccl.metaroce.protocol.conn;

import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.WorkKind;
import io.jccl.metaroce.protocol.wire.DataFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;

import java.util.function.IntToLongFunction;

/**
 * The peer's WRITEs arriving on one connection: each packet placed into its region once (its chunk remembered until
 * the WRITE is whole), the immediate reported once when the last byte is in place, and copies of a completed WRITE
 * recognised as duplicates, so that a late one never lands again on memory the application may reuse.
 */
final class InboundWrites extends InboundKind {
    private final int maxPendingWork;
    /** WRITEs with some but not all chunks placed, by message id. */
    private final Int2ObjectHashMap<InboundMessage> open = new Int2ObjectHashMap<>();
    /** Completed WRITEs above {@link #completeBelow}, remembered until the ones below complete. */
    private final IntHashSet completedAbove = new IntHashSet();
    /** Every WRITE with a lower id is complete. */
    private int completeBelow;
    private IntToLongFunction regionBytes;
    private boolean duplicate;

    InboundWrites(Connection owner, Connection.Context ctx, InboundPool pool, int payloadBytes, int maxPendingWork) {
        super(owner, ctx, pool, payloadBytes);
        this.maxPendingWork = maxPendingWork;
    }

    /** Installs the lookup of regions open for remote writes: a key's size in bytes, or -1. */
    void regions(IntToLongFunction lookup) {
        this.regionBytes = lookup;
    }

    /**
     * One DATA packet of a WRITE, its bounds within the message already checked.
     *
     * @return null when it was accepted (placed, or a duplicate of placed data: see {@link #wasDuplicate()}),
     *         otherwise why it was dropped
     */
    DropReason onPacket(DirectBuffer b, int payloadOffset, int payload, boolean withImmediate, int message,
                        int regionKey, int chunk, long offset, long messageLength, long base) {
        duplicate = false;
        if (message - completeBelow < 0 || completedAbove.contains(message)) {
            // Completed already (in order, or out of order and remembered until the ones below complete): a late
            // duplicate must not start the WRITE over and land again on memory the application may reuse. It is
            // acknowledged even when its region closed since: a receiver told of a WRITE by its immediate may
            // close the region at once, while the sender may still wait for acknowledgements that were lost.
            duplicate = true;
            return null;
        }
        if (message - completeBelow >= maxPendingWork) {
            return DropReason.MESSAGE_BOUNDS;   // beyond what a sender can have outstanding: bounds forged ids
        }
        long size = regionBytes == null ? -1 : regionBytes.applyAsLong(regionKey);
        if (size < 0) {
            return DropReason.BAD_REGION_KEY;
        }
        if (base < 0 || base > size || messageLength > size - base) {
            return DropReason.REGION_BOUNDS;
        }
        InboundMessage w = open.get(message);
        if (w == null) {
            w = pool.take();
            w.reset(0, null, 0, 0, message);
            w.learn(messageLength, payloadBytes);
            open.put(message, w);
        } else if (w.messageLength != messageLength) {
            return DropReason.MESSAGE_BOUNDS;
        }
        duplicate = w.has(chunk);
        if (duplicate) {
            return null;
        }
        ctx.placeWrite(regionKey, b, payloadOffset, base + offset, payload);
        if (withImmediate) {
            w.hasImmediate = true;
            w.immediate = b.getInt(payloadOffset + payload, DataFlyweight.BYTE_ORDER);
        }
        if (w.mark(chunk, payload)) {
            complete(message, w);
        }
        return null;
    }

    /** @return whether the last accepted packet was a duplicate of placed data (nothing placed) */
    boolean wasDuplicate() {
        return duplicate;
    }

    private void complete(int message, InboundMessage w) {
        open.remove(message);
        if (w.hasImmediate) {
            // Every byte in place: the application hears of it now, once (later copies are duplicates).
            ctx.complete(owner, w.immediate & 0xFFFF_FFFFL, WorkKind.IMMEDIATE, CompletionStatus.OK, w.messageLength);
        }
        pool.give(w);
        if (message == completeBelow) {
            completeBelow++;
            while (completedAbove.remove(completeBelow)) {
                completeBelow++;
            }
        } else {
            completedAbove.add(message);
        }
    }
}
