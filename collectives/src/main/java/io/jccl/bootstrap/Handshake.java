package io.jccl.bootstrap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;

/**
 * The two sides of the rendezvous handshake: mutual HMAC challenge–response over fresh nonces, then the client's
 * JOIN. See {@link RendezvousServer} for the wire format.
 */
final class Handshake {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What the client asked for in its JOIN frame; not yet checked against the rendezvous. */
    record JoinRequest(int rank, int size) {
    }

    private Handshake() {
    }

    /**
     * The client side, up to the server's answer to JOIN. On return the channel is authenticated and the rank
     * is a member of the rendezvous.
     *
     * @throws RefusedException      when the server sends REFUSE (or ERROR) with its reason
     * @throws ProtocolException     when the server breaks the protocol or cannot prove it knows the secret
     * @throws FrameTimeoutException at the deadline
     */
    static void client(FrameChannel channel, byte[] secret, int rank, int size, long deadlineNs)
            throws IOException, RefusedException {
        byte[] clientNonce = nonce();
        channel.sendRaw(ByteBuffer.allocate(RendezvousProtocol.HELLO_BYTES).putInt(RendezvousProtocol.MAGIC)
                .putShort((short) RendezvousProtocol.VERSION).put(clientNonce).array());

        Frame challenge = expect(channel.receive(deadlineNs), RendezvousProtocol.CHALLENGE);
        ByteBuffer body = ByteBuffer.wrap(challenge.body());
        int magic = body.getInt();
        int version = body.getShort() & 0xffff;
        if (magic != RendezvousProtocol.MAGIC) {
            throw new ProtocolException(String.format("the server answered with magic 0x%08x, not JCCL's 0x%08x"
                    + " (is this port a JCCL rendezvous?)", magic, RendezvousProtocol.MAGIC));
        }
        if (version != RendezvousProtocol.VERSION) {
            throw new ProtocolException("the rendezvous speaks protocol version " + version
                    + "; this JCCL speaks version " + RendezvousProtocol.VERSION);
        }
        byte[] serverNonce = new byte[RendezvousProtocol.NONCE_BYTES];
        body.get(serverNonce);
        channel.sendRaw(RendezvousProtocol.clientProof(secret, clientNonce, serverNonce));

        Frame accept = expect(channel.receive(deadlineNs), RendezvousProtocol.ACCEPT);
        if (!RendezvousProtocol.macEquals(accept.body(),
                RendezvousProtocol.serverProof(secret, clientNonce, serverNonce))) {
            throw new ProtocolException("the server could not prove it knows the unique id's secret"
                    + " (not the rendezvous of this unique id, or someone in between?)");
        }
        channel.authenticate(RendezvousProtocol.clientToServerKey(secret, clientNonce, serverNonce),
                RendezvousProtocol.serverToClientKey(secret, clientNonce, serverNonce));

        channel.send(RendezvousProtocol.JOIN, RendezvousProtocol.ints(rank, size));
        expect(channel.receive(deadlineNs), RendezvousProtocol.WELCOME);
    }

    /**
     * The server side, up to and including reading the client's JOIN. On return the channel is authenticated.
     *
     * @throws RefusedException      with the reason to send the client (bad magic or version, wrong proof)
     * @throws ProtocolException     for a malformed frame or one other than JOIN
     * @throws FrameTimeoutException at the deadline
     */
    static JoinRequest server(FrameChannel channel, byte[] secret, long deadlineNs)
            throws IOException, RefusedException {
        byte[] word = new byte[4];
        channel.receiveRaw(word, deadlineNs);
        int magic = ByteBuffer.wrap(word).getInt();
        if (magic != RendezvousProtocol.MAGIC) {
            throw new RefusedException(String.format("bad magic 0x%08x: this port is a JCCL rendezvous, which"
                    + " expects magic 0x%08x", magic, RendezvousProtocol.MAGIC));
        }
        byte[] half = new byte[2];
        channel.receiveRaw(half, deadlineNs);
        int version = ByteBuffer.wrap(half).getShort() & 0xffff;
        if (version != RendezvousProtocol.VERSION) {
            throw new RefusedException("protocol version " + version + " is not supported: this rendezvous speaks"
                    + " version " + RendezvousProtocol.VERSION + " (are all ranks running the same JCCL?)");
        }
        byte[] clientNonce = new byte[RendezvousProtocol.NONCE_BYTES];
        channel.receiveRaw(clientNonce, deadlineNs);

        byte[] serverNonce = nonce();
        channel.send(RendezvousProtocol.CHALLENGE, ByteBuffer.allocate(RendezvousProtocol.HELLO_BYTES)
                .putInt(RendezvousProtocol.MAGIC).putShort((short) RendezvousProtocol.VERSION).put(serverNonce)
                .array());

        byte[] proof = new byte[RendezvousProtocol.MAC_BYTES];
        channel.receiveRaw(proof, deadlineNs);
        if (!RendezvousProtocol.macEquals(proof, RendezvousProtocol.clientProof(secret, clientNonce, serverNonce))) {
            throw new RefusedException("authentication failed (wrong secret?)");
        }
        channel.send(RendezvousProtocol.ACCEPT, RendezvousProtocol.serverProof(secret, clientNonce, serverNonce));
        channel.authenticate(RendezvousProtocol.serverToClientKey(secret, clientNonce, serverNonce),
                RendezvousProtocol.clientToServerKey(secret, clientNonce, serverNonce));

        Frame join = channel.receive(deadlineNs);
        if (join.type() != RendezvousProtocol.JOIN) {
            throw new ProtocolException("expected a JOIN frame after the handshake, got "
                    + RendezvousProtocol.typeName(join.type()));
        }
        return new JoinRequest(join.intAt(0), join.intAt(4));
    }

    private static Frame expect(Frame frame, byte type) throws ProtocolException, RefusedException {
        if (frame.type() == RendezvousProtocol.REFUSE) {
            throw new RefusedException(RendezvousProtocol.reasonText(frame.body()));
        }
        if (frame.type() == RendezvousProtocol.ERROR) {
            throw new RefusedException("the rendezvous failed: " + RendezvousProtocol.reasonText(frame.body()));
        }
        if (frame.type() != type) {
            throw new ProtocolException("expected a " + RendezvousProtocol.typeName(type) + " frame, got "
                    + RendezvousProtocol.typeName(frame.type()));
        }
        return frame;
    }

    private static byte[] nonce() {
        byte[] nonce = new byte[RendezvousProtocol.NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }
}
