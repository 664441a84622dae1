package io.jccl.bootstrap;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Formats socket addresses the way JCCL prints them: IP literals only (never a name lookup), IPv6 in brackets.
 * Internal to JCCL.
 */
public final class SocketAddresses {
    private SocketAddresses() {
    }

    /**
     * Formats an IP address.
     *
     * @param address the address
     * @return e.g. {@code 192.0.2.2} or {@code [2001:db8:0:0:0:0:0:2]}, without a scope
     */
    public static String format(InetAddress address) {
        Objects.requireNonNull(address, "address");
        String literal = address.getHostAddress();
        if (address instanceof Inet6Address) {
            int scope = literal.indexOf('%');
            return "[" + (scope < 0 ? literal : literal.substring(0, scope)) + "]";
        }
        return literal;
    }

    /**
     * Formats a socket address without resolving anything.
     *
     * @param address the address and port
     * @return e.g. {@code 192.0.2.2:41234} or {@code [2001:db8:0:0:0:0:0:2]:41234}
     */
    public static String format(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        InetAddress ip = address.getAddress();
        return (ip == null ? address.getHostString() : format(ip)) + ":" + address.getPort();
    }
}
