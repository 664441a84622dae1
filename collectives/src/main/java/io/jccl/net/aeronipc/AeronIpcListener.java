package io.jccl.net.aeronipc;

import io.aeron.Image;
import io.aeron.Subscription;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import io.jccl.net.RecvConnection;
import io.jccl.net.aeron.HelloListener;

/**
 * Accepts the aeron-ipc connections of all peers on the listener's hello stream ({@link HelloListener}); a hello's
 * detail is the connecting process's pid, so a connection whose process died before its log appeared is dropped at
 * once rather than at the connect timeout.
 */
final class AeronIpcListener extends HelloListener {
    private final AeronIpcTransport transport;
    private final int streamId;

    AeronIpcListener(AeronIpcTransport transport, Subscription hellos, int streamId, AeronIpcHandle handle) {
        super(transport, hellos, Wire.HELLO_MAGIC, handle.token().bytes(), handle.encode(),
                "aeron-ipc listener of rank " + transport.rank() + " (stream " + streamId + ")",
                JcclLog.logger(Subsystem.SHM, AeronIpcListener.class));
        this.transport = transport;
        this.streamId = streamId;
    }

    @Override
    protected String detailProblem(long pid) {
        return pid > 0 ? null : "invalid pid";
    }

    @Override
    protected String dataChannel(long pid) {
        return AeronIpcTransport.SUBSCRIPTION_CHANNEL;
    }

    @Override
    protected RecvConnection open(Subscription data, Image image, Waiting waiting) {
        return transport.openRecv(data, image, waiting.rank(), waiting.detail());
    }

    @Override
    protected String goneReason(Waiting waiting) {
        boolean dead = ProcessHandle.of(waiting.detail()).map(h -> !h.isAlive()).orElse(true);
        return dead ? "its process (pid " + waiting.detail() + ") is gone" : null;
    }

    @Override
    protected String lostHellosHint() {
        return " (the aeron-ipc media driver " + transport.driver().directory() + " went away?)";
    }

    @Override
    protected void released() {
        StreamIds.release(streamId);
    }
}
