package io.jccl.net.aeronudp;

import io.jccl.net.HandleFormat;
import io.jccl.net.HandleToken;
import io.jccl.net.NetException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A listener's handle: the UDP endpoint its subscription is bound to, the stream its hellos arrive on and the
 * token a hello must carry. Little-endian layout:
 *
 * <pre>
 *  0  int32   magic 0x4A554448 ("JUDH")
 *  4  uint8   version 1
 *  5  uint8   address length, 4 (IPv4) or 16 (IPv6)
 *  6  uint16  UDP port, 1 to 65535
 *  8  int32   hello stream id
 * 12  int32   reserved 0
 * 16  byte[16] token
 * 32  byte[]  the address
 * </pre>
 *
 * @param address  the listener's bind address
 * @param port     the listener's UDP port
 * @param streamId the stream id hellos are published on
 * @param token    the secret a hello presents
 */
record AeronUdpHandle(InetAddress address, int port, int streamId, HandleToken token) {
    static final int MAGIC = 0x4A554448;
    static final int VERSION = 1;
    static final int FIXED_BYTES = 32;

    AeronUdpHandle(InetAddress address, int port, int streamId, byte[] token) {
        this(address, port, streamId, HandleToken.of(token, UdpWire.TOKEN_BYTES));
    }

    /** @return the Aeron endpoint, {@code host:port} ({@code [v6]:port} for IPv6) */
    String endpoint() {
        return AeronUdpTransport.host(address) + ":" + port;
    }

    /** @return the handle's bytes */
    byte[] encode() {
        byte[] addr = address.getAddress();
        ByteBuffer out = ByteBuffer.allocate(FIXED_BYTES + addr.length).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(MAGIC).put((byte) VERSION).put((byte) addr.length).putShort((short) port).putInt(streamId)
                .putInt(0);
        token.put(out).put(addr);
        return out.array();
    }

    /**
     * Parses a handle made by {@link #encode()}.
     *
     * @throws NetException with {@link NetException.Reason#PROTOCOL_ERROR} when the bytes are not a valid handle
     */
    static AeronUdpHandle decode(byte[] bytes) {
        ByteBuffer in = HandleFormat.open(bytes, FIXED_BYTES + 4, ByteOrder.LITTLE_ENDIAN, MAGIC, VERSION,
                AeronUdpHandle::malformed);
        if (bytes.length != FIXED_BYTES + 4 && bytes.length != FIXED_BYTES + 16) {
            throw malformed("it has " + bytes.length + " bytes instead of " + (FIXED_BYTES + 4) + " or "
                    + (FIXED_BYTES + 16));
        }
        int addressBytes = Byte.toUnsignedInt(in.get());
        int port = Short.toUnsignedInt(in.getShort());
        int streamId = in.getInt();
        if (in.getInt() != 0) {
            throw malformed("nonzero reserved field");
        }
        if (addressBytes != bytes.length - FIXED_BYTES) {
            throw malformed("address length " + addressBytes + " does not match its " + bytes.length + " bytes");
        }
        if (port == 0) {
            throw malformed("port 0");
        }
        HandleToken token = HandleToken.read(in, UdpWire.TOKEN_BYTES);
        byte[] addr = new byte[addressBytes];
        in.get(addr);
        try {
            return new AeronUdpHandle(InetAddress.getByAddress(addr), port, streamId, token);
        } catch (UnknownHostException e) {
            throw malformed("bad address: " + e.getMessage());
        }
    }

    private static NetException malformed(String why) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "malformed aeron-udp handle: " + why);
    }

    @Override
    public String toString() {
        return "AeronUdpHandle[" + endpoint() + ", stream " + streamId + "]";
    }
}
