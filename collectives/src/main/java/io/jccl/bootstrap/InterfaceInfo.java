package io.jccl.bootstrap;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * What {@link NetworkInterfaces} needs to know about one network interface: a snapshot, so that the
 * selection rules can be tested on made-up tables.
 *
 * @param name      the interface name, e.g. {@code eth0}
 * @param up        whether the interface is up
 * @param addresses its addresses, in the order the system lists them
 */
public record InterfaceInfo(String name, boolean up, List<InetAddress> addresses) {
    /** Validates and copies the arguments. */
    public InterfaceInfo {
        Objects.requireNonNull(name, "name");
        addresses = List.copyOf(Objects.requireNonNull(addresses, "addresses"));
    }

    /** @return e.g. {@code eth0 (up: 192.0.2.2, 2001:db8::2)}, for error messages */
    String describe() {
        StringBuilder sb = new StringBuilder(name).append(up ? " (up" : " (down");
        if (addresses.isEmpty()) {
            sb.append(", no addresses");
        } else {
            sb.append(": ");
            for (int i = 0; i < addresses.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(addresses.get(i).getHostAddress());
            }
        }
        return sb.append(')').toString();
    }
}
