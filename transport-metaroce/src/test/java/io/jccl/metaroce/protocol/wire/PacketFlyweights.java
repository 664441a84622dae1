package io.jccl.metaroce.protocol.wire;

/** One flyweight of each packet layout, for a test that writes or reads packets of every type. */
public final class PacketFlyweights {
    /** Over WRITE and SEND packets. */
    public final DataFlyweight data = new DataFlyweight();
    /** Over ACK packets. */
    public final AckFlyweight ack = new AckFlyweight();
    /** Over HANDSHAKE_INIT packets. */
    public final HandshakeInitFlyweight init = new HandshakeInitFlyweight();
    /** Over HANDSHAKE_ACCEPT packets. */
    public final HandshakeAcceptFlyweight accept = new HandshakeAcceptFlyweight();
    /** Over PROBE and PROBE_REPLY packets. */
    public final ProbeFlyweight probe = new ProbeFlyweight();
    /** Over CLOSE packets. */
    public final CloseFlyweight close = new CloseFlyweight();
    /** Over RNR packets. */
    public final RnrFlyweight rnr = new RnrFlyweight();
}
