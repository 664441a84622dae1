package io.jccl.cli.run;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a host name from {@code -H} or a hostfile means this machine, without asking DNS about it: "localhost",
 * loopback literals, this host's name (full and short), and literals of this host's interface addresses.
 */
final class LocalHost {
    private final Set<String> names = new HashSet<>();

    private LocalHost() {
    }

    /** @return the names of this machine, read once */
    static LocalHost detect() {
        LocalHost l = new LocalHost();
        l.names.add("localhost");
        try {
            InetAddress self = InetAddress.getLocalHost();
            String name = self.getHostName().toLowerCase(Locale.ROOT);
            l.names.add(name);
            int dot = name.indexOf('.');
            if (dot > 0) {
                l.names.add(name.substring(0, dot));
            }
        } catch (UnknownHostException e) {
            // No name for this host: only loopback and interface literals count.
        }
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    String literal = a.getHostAddress();
                    int scope = literal.indexOf('%');
                    l.names.add((scope < 0 ? literal : literal.substring(0, scope)).toLowerCase(Locale.ROOT));
                }
            }
        } catch (SocketException e) {
            // Interfaces unreadable: names only.
        }
        return l;
    }

    /** @return whether {@code host} is this machine */
    boolean isLocal(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return names.contains(h) || h.startsWith("127.") || h.equals("::1");
    }
}
