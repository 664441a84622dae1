package io.jccl.net.aeronipc;

import io.aeron.Aeron;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.jccl.net.Listener;
import io.jccl.net.NetException;
import io.jccl.net.PendingConnect;
import io.jccl.net.ProgressSignal;
import io.jccl.net.TransportContext;
import io.jccl.net.aeron.AeronTransport;
import java.util.concurrent.locks.LockSupport;

/**
 * One rank's aeron-ipc transport: listeners, connection attempts and connections over Aeron IPC publications in the
 * host's media driver ({@link AeronIpcDriver}), progressed by the caller inside {@link io.jccl.net.NetRequest#test()};
 * it starts no threads of its own and never calls the {@link ProgressSignal}s it is given.
 */
final class AeronIpcTransport extends AeronTransport {
    /** Sustained bandwidth reported to the tuner: one memory copy per byte, a round figure of what we measured. */
    static final long SPEED_MBPS = 40_000;
    /** One-way small-message latency reported to the tuner: a poll loop on shared memory. */
    static final double LATENCY_US = 3.0;
    /** The MTU of a connection's publication: Aeron's largest, so a frame carries up to 64 KiB - 64 bytes. */
    static final int MTU_BYTES = 65_504;
    /** Term length of the short-lived hello publications. */
    static final int HELLO_TERM_BYTES = 64 << 10;
    /** Channel every subscription uses: IPC, told apart by stream id. */
    static final String SUBSCRIPTION_CHANNEL = "aeron:ipc";
    static final String HELLO_CHANNEL = "aeron:ipc?term-length=" + HELLO_TERM_BYTES + "|sparse=true";

    private final AeronIpcOptions options;
    private final AeronIpcDriver driver;
    private final String dataChannel;

    /**
     * @param context the rank's context
     * @throws IllegalArgumentException when an option is invalid
     * @throws NetException             when no media driver can be started or joined
     */
    AeronIpcTransport(TransportContext context) {
        super(AeronIpcTransportProvider.NAME, context, SPEED_MBPS, LATENCY_US);
        this.options = AeronIpcOptions.parse(context.options());
        this.dataChannel = "aeron:ipc?term-length=" + options.termBytes() + "|mtu=" + MTU_BYTES + "|sparse=true";
        this.driver = AeronIpcDriver.acquire(options, connectTimeoutNs());
    }

    @Override
    public Listener listen(ProgressSignal signal) {
        checkOpen();
        int streamId = StreamIds.allocate();
        Aeron aeron = driver.aeron();
        Subscription hellos;
        try {
            long registration = aeron.asyncAddSubscription(SUBSCRIPTION_CHANNEL, streamId);
            long deadline = listenDeadlineNs();
            while ((hellos = aeron.getSubscription(registration)) == null) {
                if (System.nanoTime() - deadline > 0) {
                    aeron.asyncRemoveSubscription(registration);
                    throw new NetException(NetException.Reason.IO_ERROR, "the aeron-ipc media driver "
                            + driver.directory() + " did not add the listener's subscription in time");
                }
                LockSupport.parkNanos(100_000);
            }
        } catch (RuntimeException e) {
            StreamIds.release(streamId);
            if (e instanceof NetException n) {
                throw n;
            }
            throw new NetException(NetException.Reason.IO_ERROR, "rank " + rank() + " cannot listen on aeron-ipc: " + e, e);
        }
        byte[] token = newToken(Wire.TOKEN_BYTES);
        AeronIpcListener listener = new AeronIpcListener(this, hellos, streamId, new AeronIpcHandle(driver.directory().toString(),
                streamId, ProcessHandle.current().pid(), token));
        register(listener);
        return listener;
    }

    @Override
    public PendingConnect connect(byte[] peerHandle, ProgressSignal signal) {
        checkOpen();
        AeronIpcHandle handle = AeronIpcHandle.decode(peerHandle);
        if (!handle.directory().equals(driver.directory().toString())) {
            throw new NetException(NetException.Reason.IO_ERROR, "rank " + rank() + " cannot connect over aeron-ipc to a"
                    + " listener of another media driver: it uses " + handle.directory() + ", this rank "
                    + driver.directory() + "; every rank on a host needs the same " + AeronIpcOptions.DIR);
        }
        int dataStream = StreamIds.allocate();
        Aeron aeron = driver.aeron();
        long helloRegistration;
        long dataRegistration;
        try {
            helloRegistration = aeron.asyncAddExclusivePublication(HELLO_CHANNEL, handle.streamId());
            dataRegistration = aeron.asyncAddPublication(dataChannel, dataStream);
        } catch (RuntimeException e) {
            StreamIds.release(dataStream);
            throw new NetException(NetException.Reason.IO_ERROR, "rank " + rank() + " cannot connect over aeron-ipc: " + e,
                    e);
        }
        AeronIpcPendingConnect pending = new AeronIpcPendingConnect(this, handle, helloRegistration, dataRegistration,
                dataStream);
        register(pending);
        return pending;
    }

    /** Wraps a data publication the peer subscribed to. */
    AeronIpcSendConnection openSend(Publication publication, int streamId, AeronIpcHandle peer) {
        AeronIpcSendConnection connection = new AeronIpcSendConnection(this, publication, streamId, -1, peer.pid(),
                "aeron-ipc send connection rank " + rank() + " -> pid " + peer.pid() + " (stream " + streamId + ")");
        register(connection);
        return connection;
    }

    /** Wraps a data subscription whose sender's log is linked. */
    AeronIpcRecvConnection openRecv(Subscription subscription, Image image, int peerRank, long peerPid) {
        AeronIpcRecvConnection connection = new AeronIpcRecvConnection(this, subscription, image, peerRank, peerPid,
                "aeron-ipc receive connection rank " + rank() + " <- rank " + peerRank + " (pid " + peerPid + ", stream "
                        + subscription.streamId() + ")");
        register(connection);
        return connection;
    }

    @Override
    protected AeronIpcDriver driver() {
        return driver;
    }

    private void register(Object resource) {
        resources().register(resource);
    }

    private void checkOpen() {
        resources().checkOpen();
    }

    @Override
    public void close() {
        if (!resources().closeAll()) {
            return;
        }
        driver.release();
    }
}
