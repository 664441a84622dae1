package io.jccl.bootstrap;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A parsed {@code JCCL_SOCKET_IFNAME} value, with NCCL's {@code NCCL_SOCKET_IFNAME} syntax: a comma-separated
 * list of interface names. Names are prefixes ({@code eth} matches {@code eth0}) unless the list starts with
 * {@code =}, which makes them exact. A leading {@code ^} turns the list into an exclude list; {@code ^=} excludes
 * exact names. The markers apply to the whole list, as in NCCL, so they may only appear at its start.
 */
final class InterfaceNameFilter {
    private final String spec;
    private final boolean exclude;
    private final boolean exact;
    private final List<String> names;

    private InterfaceNameFilter(String spec, boolean exclude, boolean exact, List<String> names) {
        this.spec = spec;
        this.exclude = exclude;
        this.exact = exact;
        this.names = List.copyOf(names);
    }

    /**
     * @param spec       e.g. {@code eth,ib}, {@code ^docker,lo}, {@code =eth0} or {@code ^=docker0}
     * @param variable   the name of the setting, for error messages
     * @return the filter
     * @throws IllegalArgumentException naming the value and what is wrong with it
     */
    static InterfaceNameFilter parse(String spec, String variable) {
        Objects.requireNonNull(spec, "spec");
        String rest = spec.strip();
        boolean exclude = rest.startsWith("^");
        if (exclude) {
            rest = rest.substring(1);
        }
        boolean exact = rest.startsWith("=");
        if (exact) {
            rest = rest.substring(1);
        }
        List<String> names = new ArrayList<>();
        for (String part : rest.split(",", -1)) {
            String name = part.strip();
            if (name.isEmpty()) {
                throw new IllegalArgumentException(variable + "='" + spec + "' has an empty interface name;"
                        + " expected a comma-separated list such as eth,ib or ^docker,lo or =eth0");
            }
            if (name.startsWith("^") || name.startsWith("=")) {
                throw new IllegalArgumentException(variable + "='" + spec + "': '" + name.charAt(0)
                        + "' may only start the whole list (it applies to every name), as in ^docker,lo or =eth0,eth1");
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                if (c <= ' ' || c >= 0x7f) {
                    throw new IllegalArgumentException(variable + "='" + spec + "': interface name '" + name
                            + "' contains a space or a non-printable or non-ASCII character");
                }
            }
            names.add(name);
        }
        return new InterfaceNameFilter(spec, exclude, exact, names);
    }

    /** @return whether an interface with this name may be used */
    boolean accepts(String interfaceName) {
        boolean listed = false;
        for (String name : names) {
            if (exact ? interfaceName.equals(name) : interfaceName.startsWith(name)) {
                listed = true;
                break;
            }
        }
        return listed != exclude;
    }

    /** @return the text this filter was parsed from */
    String spec() {
        return spec;
    }

    @Override
    public String toString() {
        return spec;
    }
}
