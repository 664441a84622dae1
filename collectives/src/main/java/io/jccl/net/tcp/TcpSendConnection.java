package io.jccl.net.tcp;

import io.jccl.net.MemoryRegistration;
import io.jccl.net.NetRequest;
import io.jccl.net.SendConnection;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The sending end of a TCP connection.
 *
 * <p>Pending sends form a FIFO. Each is split into {@link TcpOptions#stripesFor stripes} when posted: one for a
 * short message, up to one per socket for a long one. Each socket ({@link SendSocket}) writes its stripe of every
 * send in FIFO order, independently of the others, so a slow socket does not hold the others back; socket 0
 * carries the message headers and every short message. On sockets shared with the other direction
 * ({@link SocketLayout#shared()}) a message of at least {@link TcpOptions#minStripeBytes()} goes as a BULK message:
 * its header on socket 0, its payload in stripes on this direction's bulk sockets.
 *
 * <p>A send completes once all its stripes are in the kernel's socket buffers, and sends complete in posting
 * order; bytes already there reach the peer even if this end closes afterwards.
 */
final class TcpSendConnection extends TcpConnection implements SendConnection {
    private final SendSocket[] sockets;
    private final TcpOptions options;

    TcpSendConnection(SocketChannel[] channels, String description, TcpNetTransport transport, TcpOptions options,
                      SocketLayout layout) {
        super(channels, description, transport, layout);
        this.options = options;
        this.sockets = StripeSocket.perChannel(channels, SendSocket[]::new, SendSocket::new);
    }

    @Override
    public NetRequest isend(MemorySegment buffer, long offset, long sizeBytes, long tag, MemoryRegistration mr) {
        boolean wasIdle = queue.size() == 0;
        TcpRequest request = takeQueued(buffer, offset, sizeBytes, tag);
        if (request == null) {
            return null;
        }
        if (!layout.shared()) {
            request.stripes = Math.min(sockets.length, options.stripesFor(sizeBytes));
        } else if (sizeBytes >= options.minStripeBytes()) {
            request.firstSocket = layout.bulkFirst();
            request.stripes = options.stripesFor(sizeBytes, layout.bulkCount());
        } else {
            request.stripes = 1;
        }
        request.pendingSockets = 1 | request.payloadSockets();
        if (wasIdle) {
            progress();
        }
        return request;
    }

    @Override
    protected void progress() {
        if (!usable()) {
            return;
        }
        try {
            for (SendSocket socket : sockets) {
                socket.progress(queue);
            }
        } catch (IOException e) {
            ioFailed(e);
            return;
        }
        while (queue.size() > 0 && queue.get(0).pendingSockets == 0) {
            TcpRequest oldest = queue.get(0);
            queue.pop();
            oldest.complete(oldest.sizeBytes());
        }
    }

    @Override
    int wantedOps(int socket) {
        return sockets[socket].wantsWrite() ? SelectionKey.OP_WRITE : 0;
    }

    @Override
    protected void pendingFailed() {
        for (SendSocket socket : sockets) {
            socket.reset(queue.endSeq());
        }
    }
}
