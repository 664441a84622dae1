package io.jccl.metaroce.udp;

import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.Object2LongHashMap;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Socket addresses as primitive {@code long} keys, so that the data path looks peers up without objects. An IPv4
 * address and port is its own key, {@code ipv4 << 16 | port} (never negative); an IPv6 one (the channel path only)
 * is given a negative serial number the first time it is seen. The {@link InetSocketAddress} of each key met on the
 * control path is kept, for the I/O methods that need one to send; {@link #forget} drops a key that is no longer
 * used, so the table stays as small as the set of live peer addresses.
 */
final class AddressKeys {
    /** No address: never a key. */
    static final long NONE = -1;

    private final Long2ObjectHashMap<InetSocketAddress> addresses = new Long2ObjectHashMap<>();
    private final Object2LongHashMap<InetSocketAddress> ipv6Keys = new Object2LongHashMap<>(NONE);
    private long nextIpv6Serial;

    /** @return the key of an IPv4 address (host byte order, as {@code 127.0.0.1 == 0x7F000001}) and port */
    static long ipv4Key(int ipv4, int port) {
        return (ipv4 & 0xFFFF_FFFFL) << 16 | (port & 0xFFFF);
    }

    /** @return whether {@code key} is an IPv4 address and port */
    static boolean isIpv4(long key) {
        return key >= 0;
    }

    /** @return the IPv4 address of an IPv4 key */
    static int ipv4(long key) {
        return (int) (key >>> 16);
    }

    /** @return the port of an IPv4 key */
    static int port(long key) {
        return (int) (key & 0xFFFF);
    }

    /**
     * The key of {@code address}, remembered with it (control path: may allocate).
     *
     * @param address a resolved socket address
     * @return its key
     */
    long keyOf(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        long key;
        if (ip instanceof Inet4Address) {
            byte[] b = ip.getAddress();
            key = ipv4Key((b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF),
                    address.getPort());
        } else {
            key = ipv6Keys.getValue(address);
            if (key == NONE) {
                key = Long.MIN_VALUE | nextIpv6Serial++;
                ipv6Keys.put(address, key);
            }
        }
        if (!addresses.containsKey(key)) {
            addresses.put(key, address);
        }
        return key;
    }

    /**
     * @param key a key from {@link #keyOf}, or an IPv4 key
     * @return its address: the one remembered, or (IPv4 only, allocating) made from the key; null for an unknown
     *         IPv6 key
     */
    InetSocketAddress addressOf(long key) {
        InetSocketAddress a = addresses.get(key);
        if (a == null && isIpv4(key)) {
            int ip = ipv4(key);
            try {
                a = new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16),
                        (byte) (ip >>> 8), (byte) ip}), port(key));
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e);   // four bytes are always a valid IPv4 address
            }
            addresses.put(key, a);
        }
        return a;
    }

    /** Drops what is remembered of {@code key}. */
    void forget(long key) {
        InetSocketAddress a = addresses.remove(key);
        if (a != null && !isIpv4(key)) {
            ipv6Keys.removeKey(a);
        }
    }

    /** @return keys remembered (for tests: the table stays bounded) */
    int size() {
        return addresses.size();
    }
}
