package io.jccl.metaroce.protocol.conn;

import java.util.Arrays;

/**
 * A connection's spare {@link InboundMessage}s (posted receives and arriving WRITEs alike), reused so that the steady
 * state allocates none. Grows to the most ever in use at once.
 */
final class InboundPool {
    private InboundMessage[] spare = new InboundMessage[8];
    private int count;

    /** @return a spare message, or a new one when none is left */
    InboundMessage take() {
        return count > 0 ? spare[--count] : new InboundMessage();
    }

    /** Takes back a message nothing refers to any more (its memory reference dropped). */
    void give(InboundMessage m) {
        m.buffer = null;
        if (count == spare.length) {
            spare = Arrays.copyOf(spare, count * 2);
        }
        spare[count++] = m;
    }
}
