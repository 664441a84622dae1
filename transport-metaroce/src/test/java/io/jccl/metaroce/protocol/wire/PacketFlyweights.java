package io.jccl.metaroce.protocol.wire;

/**
 * One flyweight of each packet layout, for a test that writes or reads packets of every type.
 *
 * @param data   over WRITE and SEND packets
 * @param ack    over ACK packets
 * @param init   over HANDSHAKE_INIT packets
 * @param accept over HANDSHAKE_ACCEPT packets
 * @param probe  over PROBE and PROBE_REPLY packets
 * @param close  over CLOSE packets
 * @param rnr    over RNR packets
 */
public record PacketFlyweights(DataFlyweight data, AckFlyweight ack, HandshakeInitFlyweight init,
                               HandshakeAcceptFlyweight accept, ProbeFlyweight probe, CloseFlyweight close,
                               RnrFlyweight rnr) {
    /** A fresh flyweight of each layout. */
    public PacketFlyweights() {
        this(new DataFlyweight(), new AckFlyweight(), new HandshakeInitFlyweight(), new HandshakeAcceptFlyweight(),
                new ProbeFlyweight(), new CloseFlyweight(), new RnrFlyweight());
    }
}
