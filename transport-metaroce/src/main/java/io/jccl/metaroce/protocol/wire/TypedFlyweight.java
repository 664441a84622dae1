package io.jccl.metaroce.protocol.wire;

import org.agrona.DirectBuffer;

/**
 * The base of the flyweights over one packet type: {@link #wrap} and {@link #putHeader} return the typed flyweight
 * {@code F}, so a packet is wrapped and filled in one chain ({@code data.wrap(buffer, 0).putHeader(...).psn(psn)}).
 * Each type's flyweight is final, so calls through it bind statically: nothing here adds a virtual call per packet.
 *
 * @param <F> the typed flyweight itself
 */
public abstract class TypedFlyweight<F extends TypedFlyweight<F>> extends HeaderFlyweight {
    /** Only the typed flyweights of this package extend it. */
    TypedFlyweight() {
    }

    @Override
    public F wrap(DirectBuffer buffer, int offset) {
        super.wrap(buffer, offset);
        return self();
    }

    @Override
    public F putHeader(int type, int flags, int pathId, int pathGeneration, int connectionId, int sessionTag,
                       int bodyLength) {
        super.putHeader(type, flags, pathId, pathGeneration, connectionId, sessionTag, bodyLength);
        return self();
    }

    /** @return this, as the typed flyweight */
    @SuppressWarnings("unchecked")
    protected final F self() {
        return (F) this;
    }
}
