package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.bootstrap.Secrets;
import io.jccl.bootstrap.RendezvousServer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a communicator keeps so that its survivors can build a new one after some ranks failed, when its own
 * connections may be gone: every rank listens on a TCP socket from creation on (bound, never accepted from until
 * a shrink), and all ranks know each other's socket addresses and share a secret. A shrink makes the lowest
 * surviving rank serve a one-off rendezvous on its socket, keyed by a secret derived from the shared one and the
 * excluded ranks, so ranks that disagree on who is excluded cannot meet.
 *
 * <p>The socket costs one file descriptor per rank and communicator; it is closed by {@link #close()}, which
 * {@link io.jccl.Communicator#close()} calls. A communicator can be shrunk once (the serving rank's socket is used
 * up); the result can be shrunk again.
 */
final class ShrinkRendezvous implements AutoCloseable {
    private static final int BACKLOG = 256;
    private static final int MAX_ADDRESS_BYTES = 16;

    private final ServerSocket listener;
    private final InetSocketAddress[] addresses;
    private final byte[] secret;
    private final AtomicBoolean used = new AtomicBoolean();
    private volatile boolean closed;

    private ShrinkRendezvous(ServerSocket listener, InetSocketAddress[] addresses, byte[] secret) {
        this.listener = listener;
        this.addresses = addresses;
        this.secret = secret;
    }

    /** Opens this rank's socket on {@code bindAddress}, an ephemeral port. */
    static ServerSocket listen(InetAddress bindAddress) {
        try {
            ServerSocket s = new ServerSocket();
            try {
                s.bind(new InetSocketAddress(bindAddress, 0), BACKLOG);
            } catch (IOException e) {
                s.close();
                throw e;
            }
            return s;
        } catch (IOException e) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "cannot listen on " + bindAddress.getHostAddress()
                    + " for a later shrink: " + e.getMessage(), e);
        }
    }

    /** @return the socket's address as the round-2 record carries it */
    static byte[] encode(ServerSocket listener) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            byte[] ip = listener.getInetAddress().getAddress();
            out.writeByte(ip.length);
            out.write(ip);
            out.writeShort(listener.getLocalPort());
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @throws JcclException REMOTE_ERROR when {@code peer} sent something that is not an address */
    static InetSocketAddress decode(byte[] data, int peer) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            int n = in.readUnsignedByte();
            if (n != 4 && n != MAX_ADDRESS_BYTES) {
                throw new IOException("address of " + n + " bytes");
            }
            byte[] ip = in.readNBytes(n);
            int port = in.readUnsignedShort();
            if (ip.length != n || port == 0 || in.available() != 0) {
                throw new IOException("truncated, port 0 or trailing bytes");
            }
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (IOException e) {
            throw new JcclException(ErrorCode.REMOTE_ERROR, "rank " + peer + " sent a malformed shrink address: "
                    + e.getMessage());
        }
    }

    static ShrinkRendezvous of(ServerSocket listener, InetSocketAddress[] addresses, byte[] secret) {
        return new ShrinkRendezvous(listener, addresses, secret);
    }

    /**
     * The rendezvous of the survivors: started here when this rank is the lowest survivor.
     *
     * @param rank            this rank in the old communicator
     * @param sortedExcluded  the excluded ranks, ascending, checked
     * @param survivors       the remaining ranks, ascending
     * @param timeout         how long the handshake with each survivor may take
     * @return the id every survivor joins with
     */
    UniqueId start(int rank, int[] sortedExcluded, int[] survivors, Duration timeout) {
        if (closed) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "the communicator is closed; shrink it before closing it"
                    + " (aborting is fine)");
        }
        if (!used.compareAndSet(false, true)) {
            throw new JcclException(ErrorCode.INVALID_USAGE, "this communicator was shrunk already; shrink the "
                    + "communicator that shrink returned");
        }
        byte[] derived = Secrets.derive(secret, "shrink excluding " + Arrays.toString(sortedExcluded));
        int host = survivors[0];
        if (rank == host) {
            RendezvousServer.start(listener, derived, timeout);
        }
        return UniqueId.of(addresses[host], derived);
    }

    /**
     * @param purpose what the secret is for (e.g. a split's call number and color)
     * @return a secret derived from the communicator's, alike on every rank that passes the same purpose
     */
    byte[] derive(String purpose) {
        return Secrets.derive(secret, purpose);
    }

    /** @return this rank's socket address */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // Nothing to do: the descriptor is gone either way.
        }
    }
}
