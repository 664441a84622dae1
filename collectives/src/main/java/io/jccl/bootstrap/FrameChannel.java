package io.jccl.bootstrap;

import javax.crypto.Mac;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

/**
 * Frames over one socket: {@code type:u8 length:u32 body[length]}, followed once {@link #authenticate} has been
 * called by {@code mac[32]} = HMAC-SHA256(direction key, {@code seq:u64 type:u8 length:u32 body}), where
 * {@code seq} counts the frames sent in that direction from 0. Every length is checked against the type's bounds
 * before anything is allocated.
 *
 * <p>One thread may read while another writes; neither side is safe for more than one thread.
 */
final class FrameChannel implements Closeable {
    /** Pass as a deadline to wait without limit. */
    static final long NO_DEADLINE = Long.MAX_VALUE;

    private static final int BUFFER_BYTES = 64 << 10;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] header = new byte[5];
    private final byte[] receivedMac = new byte[RendezvousProtocol.MAC_BYTES];
    private Mac sendMac;
    private Mac receiveMac;
    private long sendSequence;
    private long receiveSequence;

    FrameChannel(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), BUFFER_BYTES);
        this.out = new BufferedOutputStream(socket.getOutputStream(), BUFFER_BYTES);
    }

    /** From now on every frame in both directions carries a MAC under these keys. */
    void authenticate(byte[] sendKey, byte[] receiveKey) {
        sendMac = RendezvousProtocol.newMac(sendKey);
        receiveMac = RendezvousProtocol.newMac(receiveKey);
    }

    /** @return whether frames are authenticated */
    boolean authenticated() {
        return sendMac != null;
    }

    /** Writes bytes that are not a frame (the handshake's HELLO and proof) and flushes. */
    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Reads exactly {@code into.length} bytes that are not a frame. */
    void receiveRaw(byte[] into, long deadlineNs) throws IOException {
        readFully(into, 0, into.length, deadlineNs, true);
    }

    /** Writes a frame whose body is the concatenation of {@code parts}, and flushes. */
    void send(byte type, byte[]... parts) throws IOException {
        write(type, parts);
        out.flush();
    }

    /** Writes a frame whose body is the concatenation of {@code parts}, without flushing. */
    void write(byte type, byte[]... parts) throws IOException {
        long length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        int[] bounds = RendezvousProtocol.bodyBounds(type);
        if (bounds == null || length < bounds[0] || length > bounds[1]) {
            throw new IllegalArgumentException("frame " + RendezvousProtocol.typeName(type) + " with a body of "
                    + length + " bytes is outside the protocol's bounds");
        }
        ByteBuffer head = ByteBuffer.wrap(new byte[5]).put(type).putInt((int) length);
        out.write(head.array());
        for (byte[] part : parts) {
            out.write(part);
        }
        if (sendMac != null) {
            sendMac.update(ByteBuffer.allocate(8).putLong(sendSequence++).array());
            sendMac.update(head.array());
            for (byte[] part : parts) {
                sendMac.update(part);
            }
            out.write(sendMac.doFinal());
        }
    }

    /** Flushes frames written with {@link #write}. */
    void flush() throws IOException {
        out.flush();
    }

    /**
     * Reads the next frame.
     *
     * @param deadlineNs {@link System#nanoTime()} value to give up at, or {@link #NO_DEADLINE}
     * @throws FrameTimeoutException at the deadline
     * @throws ProtocolException     for an unknown type, a length outside the type's bounds or a wrong MAC
     * @throws EOFException          when the other side closed the connection
     */
    Frame receive(long deadlineNs) throws IOException {
        readFully(header, 0, header.length, deadlineNs, true);
        byte type = header[0];
        int length = ByteBuffer.wrap(header).getInt(1);
        int[] bounds = RendezvousProtocol.bodyBounds(type);
        if (bounds == null) {
            throw new ProtocolException("unknown frame type " + RendezvousProtocol.typeName(type));
        }
        if (length < bounds[0] || length > bounds[1]) {
            throw new ProtocolException("frame " + RendezvousProtocol.typeName(type) + " announces a body of "
                    + Integer.toUnsignedString(length) + " bytes; the protocol allows " + bounds[0] + ".." + bounds[1]);
        }
        byte[] body = new byte[length];
        readFully(body, 0, length, deadlineNs, false);
        if (receiveMac != null) {
            readFully(receivedMac, 0, receivedMac.length, deadlineNs, false);
            receiveMac.update(ByteBuffer.allocate(8).putLong(receiveSequence++).array());
            receiveMac.update(header);
            receiveMac.update(body);
            if (!RendezvousProtocol.macEquals(receiveMac.doFinal(), receivedMac)) {
                throw new ProtocolException("a " + RendezvousProtocol.typeName(type)
                        + " frame failed authentication (tampered with or injected in transit?)");
            }
        }
        return new Frame(type, body);
    }

    /** Stops sending; the other side reads end-of-stream once it has read what was sent. */
    void shutdownOutput() {
        try {
            out.flush();
            socket.shutdownOutput();
        } catch (IOException ignored) {
            // the connection is going away anyway
        }
    }

    /** Reads and discards at most {@code maxBytes} until end-of-stream or the deadline; errors are ignored. */
    void drain(int maxBytes, long deadlineNs) {
        byte[] sink = new byte[4096];
        int total = 0;
        try {
            while (total < maxBytes) {
                setTimeout(deadlineNs, false);
                int n = in.read(sink);
                if (n < 0) {
                    return;
                }
                total += n;
            }
        } catch (IOException ignored) {
            // nothing more to learn from this connection
        }
    }

    /** @return the socket underneath */
    Socket socket() {
        return socket;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is best effort
        }
    }

    private void readFully(byte[] into, int offset, int length, long deadlineNs, boolean startsFrame)
            throws IOException {
        int done = 0;
        while (done < length) {
            boolean boundary = startsFrame && done == 0;
            setTimeout(deadlineNs, boundary);
            int n;
            try {
                n = in.read(into, offset + done, length - done);
            } catch (SocketTimeoutException e) {
                throw new FrameTimeoutException(boundary);
            }
            if (n < 0) {
                throw new EOFException(done == 0 && startsFrame ? "the connection was closed"
                        : "the connection was closed in the middle of a frame");
            }
            done += n;
        }
    }

    private void setTimeout(long deadlineNs, boolean atFrameBoundary) throws IOException {
        if (deadlineNs == NO_DEADLINE) {
            socket.setSoTimeout(0);
            return;
        }
        long remainingNs = deadlineNs - System.nanoTime();
        if (remainingNs <= 0) {
            throw new FrameTimeoutException(atFrameBoundary);
        }
        long remainingMs = Math.max(1, (remainingNs + 999_999) / 1_000_000);
        socket.setSoTimeout((int) Math.min(remainingMs, Integer.MAX_VALUE));
    }
}
