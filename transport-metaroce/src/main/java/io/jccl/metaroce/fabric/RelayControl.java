package io.jccl.metaroce.fabric;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The proxy's control datagrams, big-endian. A request and a reply have the same 16-byte header, then one 6-byte
 * IPv4 address (4 bytes address, 2 bytes port) per path:
 *
 * <pre>
 *   0  magic   int   0x4A43524C ("JCRL")
 *   4  version byte  1
 *   5  type    byte  1 = REGISTER (endpoint to relay), 2 = REGISTERED (relay to endpoint)
 *   6  status  byte  request: 0; reply: {@link #OK}, {@link #REFUSED_LIMIT} or {@link #REFUSED_IO}
 *   7  count   byte  paths, 1-64 (a refusal: 0)
 *   8  nonce   long  chosen by the endpoint, echoed in the reply (matches a reply to its request)
 *  16  count x {IPv4 address, port}: the endpoint's path sockets (request) or its fronts (reply), in path order
 * </pre>
 *
 * A datagram that is not exactly this (wrong magic, version, type, status, count, length, a port of 0 or a wildcard
 * address) is ignored.
 */
final class RelayControl {
    static final int MAGIC = 0x4A43524C;
    static final int VERSION = 1;
    static final int REGISTER = 1;
    static final int REGISTERED = 2;
    static final int OK = 0;
    static final int REFUSED_LIMIT = 1;
    static final int REFUSED_IO = 2;
    static final int HEADER = 16;
    static final int ADDRESS = 6;
    static final int MAX_PATHS = 64;
    static final int MAX_LENGTH = HEADER + MAX_PATHS * ADDRESS;

    private RelayControl() {
    }

    /** Writes a whole datagram into {@code b} (cleared first) and flips it. */
    static void encode(ByteBuffer b, int type, int status, long nonce, List<InetSocketAddress> addresses) {
        b.clear();
        b.putInt(MAGIC).put((byte) VERSION).put((byte) type).put((byte) status).put((byte) addresses.size())
                .putLong(nonce);
        for (InetSocketAddress a : addresses) {
            b.put(a.getAddress().getAddress()).putShort((short) a.getPort());
        }
        b.flip();
    }

    /** @return true when an address can be carried: IPv4, resolved, not the wildcard, a port */
    static boolean carriable(InetSocketAddress a) {
        return a != null && !a.isUnresolved() && a.getAddress() instanceof Inet4Address
                && !a.getAddress().isAnyLocalAddress() && a.getPort() > 0;
    }

    /**
     * Checks the header of the datagram in {@code b} ({@code [0, limit)}).
     *
     * @return its address count, or -1 when it is not a well-formed {@code type} datagram
     */
    static int check(ByteBuffer b, int type) {
        int length = b.limit();
        if (length < HEADER || b.getInt(0) != MAGIC || b.get(4) != VERSION || b.get(5) != type) {
            return -1;
        }
        int status = b.get(6) & 0xFF;
        int count = b.get(7) & 0xFF;
        boolean statusOk = type == REGISTER ? status == OK : status <= REFUSED_IO;
        boolean countOk = status == OK ? count >= 1 && count <= MAX_PATHS : count == 0;
        return statusOk && countOk && length == HEADER + count * ADDRESS ? count : -1;
    }

    static int status(ByteBuffer b) {
        return b.get(6) & 0xFF;
    }

    static long nonce(ByteBuffer b) {
        return b.getLong(8);
    }

    /** @return the addresses of a checked datagram, or null when one cannot be carried */
    static List<InetSocketAddress> addresses(ByteBuffer b, int count) {
        List<InetSocketAddress> out = new ArrayList<>(count);
        byte[] ip = new byte[4];
        for (int i = 0; i < count; i++) {
            int at = HEADER + i * ADDRESS;
            b.get(at, ip);
            InetSocketAddress a;
            try {
                a = new InetSocketAddress(InetAddress.getByAddress(ip), b.getShort(at + 4) & 0xFFFF);
            } catch (UnknownHostException e) {
                return null;   // not with 4 bytes
            }
            if (!carriable(a)) {
                return null;
            }
            out.add(a);
        }
        return out;
    }
}
