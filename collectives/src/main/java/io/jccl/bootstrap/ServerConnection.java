package io.jccl.bootstrap;

import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.slf4j.Logger;

import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client connection of a {@link RendezvousServer}: a reader thread runs the handshake and then turns frames
 * into calls on {@link RendezvousState}; once the client has joined, a writer thread sends what the state queues.
 * A slow client therefore only ever blocks its own writer.
 */
final class ServerConnection implements RendezvousState.Peer {
    /** The most items queued for one client; a client that lets more pile up is not reading. */
    static final int MAX_QUEUED = 1024;
    /** How long a closing connection waits for the client to close its end, so the last frames are not lost. */
    static final Duration LINGER = Duration.ofSeconds(2);
    private static final int MAX_DRAIN_BYTES = 64 << 10;
    private static final Object CLOSE = new Object();
    private static final Logger LOG = JcclLog.logger(Subsystem.BOOTSTRAP, ServerConnection.class);

    private final RendezvousServer server;
    private final FrameChannel channel;
    private final String remote;
    private final String threadName;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicBoolean finishing = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch readerDone = new CountDownLatch(1);

    ServerConnection(RendezvousServer server, Socket socket, String threadName) throws IOException {
        this.server = server;
        this.channel = new FrameChannel(socket);
        this.remote = String.valueOf(socket.getRemoteSocketAddress());
        this.threadName = threadName;
    }

    /** Starts the reader thread. */
    void start() {
        Thread.ofVirtual().name(threadName + "-read").start(this::serve);
    }

    @Override
    public String remote() {
        return remote;
    }

    @Override
    public boolean send(Outbound item) {
        if (queued.incrementAndGet() > MAX_QUEUED) {
            queued.decrementAndGet();
            return false;
        }
        queue.add(item);
        return true;
    }

    @Override
    public void finish() {
        if (finishing.compareAndSet(false, true)) {
            queue.add(CLOSE);
        }
    }

    private void serve() {
        RendezvousState.Member member = null;
        boolean slotHeld = true;
        try {
            long deadlineNs = System.nanoTime() + server.handshakeTimeoutNs();
            Handshake.JoinRequest request;
            try {
                request = Handshake.server(channel, server.secret(), deadlineNs);
            } catch (RefusedException e) {
                refuse(e.getMessage());
                return;
            } catch (FrameTimeoutException e) {
                refuse("handshake timed out: the client did not complete it within "
                        + Durations.describe(server.handshakeTimeoutNs()));
                return;
            } catch (ProtocolException e) {
                refuse("protocol error during the handshake: " + e.getMessage());
                return;
            } catch (IOException e) {
                LOG.warn("rendezvous {}: dropped a connection from {} during the handshake: {}", server.where(),
                        remote, describe(e));
                return;
            }
            server.releaseHandshakeSlot();
            slotHeld = false;
            try {
                member = server.state().join(this, request.rank(), request.size());
            } catch (RefusedException e) {
                refuse("rank " + request.rank() + " (size " + request.size() + ") refused: " + e.getMessage());
                return;
            }
            Thread.ofVirtual().name(threadName + "-write").start(this::writeLoop);
            readLoop(member);
        } finally {
            if (slotHeld) {
                server.releaseHandshakeSlot();
            }
            readerDone.countDown();
            if (member == null) {
                close();
            }
        }
    }

    private void readLoop(RendezvousState.Member member) {
        RendezvousState state = server.state();
        while (true) {
            Frame frame;
            try {
                frame = channel.receive(FrameChannel.NO_DEADLINE);
            } catch (EOFException e) {
                state.disconnected(member, "its connection from " + remote + " was closed");
                return;
            } catch (ProtocolException e) {
                state.misbehaved(member, e.getMessage());
                return;
            } catch (IOException e) {
                state.disconnected(member, "its connection from " + remote + " failed: " + describe(e));
                return;
            }
            switch (frame.type()) {
                case RendezvousProtocol.CONTRIBUTE -> state.contribute(member, frame.intAt(0),
                        Arrays.copyOfRange(frame.body(), 4, frame.body().length));
                case RendezvousProtocol.QUERY -> state.query(member, frame.intAt(0));
                case RendezvousProtocol.BYE -> state.bye(member);
                case RendezvousProtocol.ABORT -> {
                    state.disconnected(member, "it gave up: " + RendezvousProtocol.reasonText(frame.body()));
                    return;
                }
                default -> {
                    state.misbehaved(member, "it sent an unexpected " + RendezvousProtocol.typeName(frame.type())
                            + " frame");
                    return;
                }
            }
        }
    }

    private void writeLoop() {
        try {
            while (true) {
                Object item = queue.take();
                if (item == CLOSE) {
                    break;
                }
                queued.decrementAndGet();
                write((Outbound) item);
                if (queue.isEmpty()) {
                    channel.flush();
                }
            }
            channel.shutdownOutput();
            readerDone.await(LINGER.toMillis(), TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            LOG.debug("rendezvous {}: sending to {} failed: {}", server.where(), remote, describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    private void write(Outbound item) throws IOException {
        switch (item) {
            case Outbound.Single single -> channel.write(single.type(), single.parts());
            case Outbound.Table table -> {
                byte[][] entries = table.entries();
                for (int rank = 0; rank < entries.length; rank++) {
                    channel.write(RendezvousProtocol.ENTRY, RendezvousProtocol.ints(table.round(), rank),
                            entries[rank]);
                }
            }
        }
    }

    private void refuse(String reason) {
        LOG.warn("rendezvous {} refused a connection from {}: {}", server.where(), remote, reason);
        try {
            channel.send(RendezvousProtocol.REFUSE, RendezvousProtocol.reason(reason));
        } catch (IOException | RuntimeException e) {
            return;
        }
        channel.shutdownOutput();
        long lingerNs = Math.min(server.handshakeTimeoutNs(), TimeUnit.SECONDS.toNanos(1));
        channel.drain(MAX_DRAIN_BYTES, System.nanoTime() + lingerNs);
    }

    private void close() {
        if (closed.compareAndSet(false, true)) {
            channel.close();
            server.connectionClosed(this);
        }
    }

    private static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
