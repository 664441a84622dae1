package io.jccl.metaroce.protocol.wire;

/** One flyweight of each packet layout, for a test that writes or reads packets of every type. */
final class PacketFlyweights {
    final DataFlyweight data = new DataFlyweight();
    final AckFlyweight ack = new AckFlyweight();
    final HandshakeInitFlyweight init = new HandshakeInitFlyweight();
    final HandshakeAcceptFlyweight accept = new HandshakeAcceptFlyweight();
    final ProbeFlyweight probe = new ProbeFlyweight();
    final CloseFlyweight close = new CloseFlyweight();
    final RnrFlyweight rnr = new RnrFlyweight();
}
