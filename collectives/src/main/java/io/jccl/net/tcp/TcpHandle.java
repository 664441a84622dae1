package io.jccl.net.tcp;

import io.jccl.net.HandleFormat;
import io.jccl.net.HandleToken;
import io.jccl.net.NetException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A listener's handle: where it listens and the token a connecting side must present. Big-endian layout:
 *
 * <pre>
 *  0  int32   magic 0x4A435448 ("JCTH")
 *  4  uint8   version 1
 *  5  uint8   address length: 4 (IPv4) or 16 (IPv6)
 *  6  uint16  port, 1 to 65535
 *  8  int32   IPv6 scope id, 0 when none
 * 12  byte[]  the address
 *  .. byte[16] token
 * </pre>
 *
 * @param address where the listener accepts connections
 * @param token   the secret a connecting side presents in its hello frame
 */
record TcpHandle(InetSocketAddress address, HandleToken token) {
    static final int MAGIC = 0x4A435448;
    static final int VERSION = 1;
    private static final int FIXED_BYTES = 12;

    TcpHandle(InetSocketAddress address, byte[] token) {
        this(address, HandleToken.of(token, Wire.TOKEN_BYTES));
    }

    /** @return the handle's bytes */
    byte[] encode() {
        InetAddress ip = address.getAddress();
        byte[] raw = ip.getAddress();
        int scopeId = ip instanceof Inet6Address v6 ? v6.getScopeId() : 0;
        ByteBuffer out = ByteBuffer.allocate(FIXED_BYTES + raw.length + Wire.TOKEN_BYTES);
        out.putInt(MAGIC).put((byte) VERSION).put((byte) raw.length).putShort((short) address.getPort())
                .putInt(scopeId).put(raw);
        token.put(out);
        return out.array();
    }

    /**
     * Parses a handle made by {@link #encode()}.
     *
     * @param bytes the handle
     * @return the handle
     * @throws NetException with {@link NetException.Reason#PROTOCOL_ERROR} when the bytes are not a valid handle
     */
    static TcpHandle decode(byte[] bytes) {
        ByteBuffer in = HandleFormat.open(bytes, FIXED_BYTES, ByteOrder.BIG_ENDIAN, MAGIC, VERSION,
                TcpHandle::malformed);
        int addressBytes = Byte.toUnsignedInt(in.get());
        if (addressBytes != 4 && addressBytes != 16) {
            throw malformed("address length " + addressBytes + " is neither 4 (IPv4) nor 16 (IPv6)");
        }
        int expectedLength = FIXED_BYTES + addressBytes + Wire.TOKEN_BYTES;
        if (bytes.length != expectedLength) {
            throw malformed("it has " + bytes.length + " bytes; an IPv" + (addressBytes == 4 ? 4 : 6) + " handle has "
                    + expectedLength);
        }
        int port = Short.toUnsignedInt(in.getShort());
        if (port == 0) {
            throw malformed("port 0");
        }
        int scopeId = in.getInt();
        if (scopeId < 0 || (addressBytes == 4 && scopeId != 0)) {
            throw malformed("scope id " + scopeId + " with an IPv" + (addressBytes == 4 ? 4 : 6) + " address");
        }
        byte[] raw = new byte[addressBytes];
        in.get(raw);
        HandleToken token = HandleToken.read(in, Wire.TOKEN_BYTES);
        InetAddress ip;
        try {
            ip = addressBytes == 4 ? Inet4Address.getByAddress(raw)
                    : scopeId > 0 ? Inet6Address.getByAddress(null, raw, scopeId) : InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new NetException(NetException.Reason.PROTOCOL_ERROR, "malformed tcp handle: bad address "
                    + Arrays.toString(raw), e);
        }
        return new TcpHandle(new InetSocketAddress(ip, port), token);
    }

    private static NetException malformed(String why) {
        return new NetException(NetException.Reason.PROTOCOL_ERROR, "malformed tcp handle: " + why);
    }

    @Override
    public String toString() {
        return "TcpHandle[" + address + "]";
    }
}
