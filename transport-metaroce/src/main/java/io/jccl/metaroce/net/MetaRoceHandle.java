package io.jccl.metaroce.net;

import io.jccl.net.NetException;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@code metaroce} listener publishes through the rendezvous: the address of each of its path sockets, the
 * key its handshakes are authenticated with, and which listener of the rank it is.
 *
 * <p>Layout (big-endian): magic {@code "JMRC"}, version 2 (byte), path count (byte), listener id (int), the listening
 * rank (int), the 32-byte handshake key, then per path: address length (4 or 16, byte), the address, the port
 * (unsigned short).
 *
 * @param listenerId   which listener of the rank
 * @param rank         the listening rank (for messages that name the peer)
 * @param handshakeKey the key its handshakes are authenticated with (32 bytes)
 * @param paths        one address per path, in path order
 */
record MetaRoceHandle(int listenerId, int rank, byte[] handshakeKey, List<InetSocketAddress> paths) {
    static final int MAGIC = 0x4A4D5243;
    static final byte VERSION = 2;
    static final int KEY_BYTES = 32;

    MetaRoceHandle {
        handshakeKey = handshakeKey.clone();
        paths = List.copyOf(paths);
    }

    @Override
    public byte[] handshakeKey() {
        return handshakeKey.clone();
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(14 + KEY_BYTES + paths.size() * 19);
        b.putInt(MAGIC).put(VERSION).put((byte) paths.size()).putInt(listenerId).putInt(rank).put(handshakeKey);
        for (InetSocketAddress a : paths) {
            byte[] address = a.getAddress().getAddress();
            b.put((byte) address.length).put(address).putShort((short) a.getPort());
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    /**
     * @param bytes what a listener's {@link #encode()} produced
     * @return the handle
     * @throws NetException PROTOCOL_ERROR naming what is wrong with the bytes
     */
    static MetaRoceHandle decode(byte[] bytes) {
        if (bytes == null) {
            throw malformed("it is null");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            int magic = b.getInt();
            if (magic != MAGIC) {
                throw malformed("it does not start with the metaroce magic (0x" + Integer.toHexString(magic) + ")");
            }
            byte version = b.get();
            if (version != VERSION) {
                throw malformed("version " + version + " is not supported (this build speaks " + VERSION + ")");
            }
            int count = b.get() & 0xFF;
            if (count < 1 || count > 64) {
                throw malformed("it names " + count + " paths (1-64 allowed)");
            }
            int listenerId = b.getInt();
            int rank = b.getInt();
            if (rank < 0) {
                throw malformed("it names rank " + rank);
            }
            byte[] key = new byte[KEY_BYTES];
            b.get(key);
            List<InetSocketAddress> paths = new ArrayList<>(count);
            for (int p = 0; p < count; p++) {
                int length = b.get() & 0xFF;
                if (length != 4 && length != 16) {
                    throw malformed("path " + p + " has an address of " + length + " bytes");
                }
                byte[] address = new byte[length];
                b.get(address);
                int port = b.getShort() & 0xFFFF;
                if (port == 0) {
                    throw malformed("path " + p + " has port 0");
                }
                paths.add(new InetSocketAddress(InetAddress.getByAddress(address), port));
            }
            if (b.hasRemaining()) {
                throw malformed(b.remaining() + " bytes follow the last path");
            }
            return new MetaRoceHandle(listenerId, rank, key, paths);
        } catch (BufferUnderflowException e) {
            throw malformed("it is truncated (" + bytes.length + " bytes)");
        } catch (UnknownHostException e) {
            throw malformed(e.getMessage());
        }
    }

    private static NetException malformed(String why) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "malformed metaroce handle: " + why);
    }
}
