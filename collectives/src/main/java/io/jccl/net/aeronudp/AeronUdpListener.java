package io.jccl.net.aeronudp;

import io.aeron.Image;
import io.aeron.Subscription;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.RecvConnection;
import io.jccl.net.aeron.HelloListener;

/**
 * Accepts the aeron-udp connections of all peers on one UDP endpoint (the rank's bind address, an ephemeral port)
 * through its hello stream ({@link HelloListener}). A hello's detail is the Aeron session id of the sender's data
 * publication; the listener subscribes to exactly that stream and session on the same endpoint (found by its
 * channel tag). A peer on another host cannot be looked up, so a sender that never appears costs the connect
 * timeout.
 */
final class AeronUdpListener extends HelloListener {
    private final AeronUdpTransport transport;
    private final long channelTag;

    AeronUdpListener(AeronUdpTransport transport, Subscription hellos, long channelTag, AeronUdpHandle handle) {
        super(transport, hellos, UdpWire.HELLO_MAGIC, handle.token().bytes(), handle.encode(),
                "aeron-udp listener of rank " + transport.rank() + " (" + handle.endpoint() + ")",
                JcclLog.logger(Subsystem.NET, AeronUdpListener.class));
        this.transport = transport;
        this.channelTag = channelTag;
    }

    /** The session id fills the detail's low half; the high half is reserved, 0. */
    @Override
    protected String detailProblem(long detail) {
        return (detail >>> 32) == 0 ? null : "nonzero reserved bits";
    }

    @Override
    protected String dataChannel(long detail) {
        return "aeron:udp?tags=" + channelTag + "|session-id=" + (int) detail;
    }

    @Override
    protected RecvConnection open(Subscription data, Image image, Waiting waiting) {
        return transport.openRecv(data, image, waiting.rank());
    }

    @Override
    protected String goneReason(Waiting waiting) {
        return null;
    }

    @Override
    protected String lostHellosHint() {
        return "";
    }
}
