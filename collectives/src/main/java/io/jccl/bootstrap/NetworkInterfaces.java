package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.config.OptionReader;
import io.jccl.log.JcclLog;
import io.jccl.log.Subsystem;
import org.slf4j.Logger;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Chooses the local address for JCCL's sockets, with NCCL's rules.
 *
 * <p>{@value #IFNAME_VARIABLE} restricts the interfaces, with the syntax of NCCL's {@code NCCL_SOCKET_IFNAME}: a
 * comma-separated list of name prefixes ({@code eth,ib}); a leading {@code ^} excludes them instead
 * ({@code ^docker,lo}); a leading {@code =} makes the names exact ({@code =eth0}); {@code ^=} excludes exact
 * names ({@code ^=docker0}). When it is set, only it decides which interfaces qualify (so {@code ^docker} alone
 * may pick {@code lo}; write {@code ^docker,lo}).
 *
 * <p>When it is unset (or blank), any interface that is up and whose name starts with neither {@code docker} nor
 * {@code lo} qualifies, with its non-loopback addresses; if none has a usable address, a loopback address is used.
 *
 * <p>{@value #FAMILY_VARIABLE} is {@code AF_INET} (IPv4 only) or {@code AF_INET6} (IPv6 only); unset, IPv4 is
 * preferred: an IPv6 address is chosen only when no qualifying interface has an IPv4 address. Link-local IPv6
 * addresses are never chosen (they are meaningless on other hosts), nor are wildcard or multicast addresses.
 * Among qualifying interfaces and addresses, the first in the system's order wins.
 *
 * <p>{@link #select(Map, List)} is the pure rule, over a list of {@link InterfaceInfo}; {@link #select(Map)}
 * applies it to this machine's interfaces.
 */
public final class NetworkInterfaces {
    /** The environment variable restricting the interfaces, NCCL's {@code NCCL_SOCKET_IFNAME}. */
    public static final String IFNAME_VARIABLE = "JCCL_SOCKET_IFNAME";
    /** The environment variable choosing the address family, NCCL's {@code NCCL_SOCKET_FAMILY}. */
    public static final String FAMILY_VARIABLE = "JCCL_SOCKET_FAMILY";

    private static final Logger LOG = JcclLog.logger(EnumSet.of(Subsystem.INIT, Subsystem.NET),
            NetworkInterfaces.class);

    private NetworkInterfaces() {
    }

    /**
     * The outcome of a selection.
     *
     * @param interfaceName the interface the address belongs to
     * @param address       the address to bind to and advertise
     */
    public record Selection(String interfaceName, InetAddress address) {
        /** Validates the arguments. */
        public Selection {
            Objects.requireNonNull(interfaceName, "interfaceName");
            Objects.requireNonNull(address, "address");
        }
    }

    /** The address families {@value #FAMILY_VARIABLE} can ask for. */
    private enum Family {
        ANY("an IPv4 or IPv6"), IPV4("an IPv4"), IPV6("an IPv6");

        final String description;

        Family(String description) {
            this.description = description;
        }

        boolean admits(InetAddress address) {
            return switch (this) {
                case ANY -> true;
                case IPV4 -> address instanceof Inet4Address;
                case IPV6 -> address instanceof Inet6Address;
            };
        }
    }

    /**
     * Chooses the address on this machine.
     *
     * @param env the environment, e.g. {@link System#getenv()}; only {@value #IFNAME_VARIABLE} and
     *            {@value #FAMILY_VARIABLE} are read
     * @return the address to bind JCCL's sockets to
     * @throws JcclException INVALID_ARGUMENT for a malformed setting or one that matches nothing, SYSTEM_ERROR
     *                       when the interfaces cannot be listed or none is usable
     */
    public static InetAddress select(Map<String, String> env) {
        Selection selection = select(env, systemInterfaces());
        LOG.info("JCCL sockets use interface {} address {} ({}={}, {}={})", selection.interfaceName(),
                selection.address().getHostAddress(), IFNAME_VARIABLE, describeSetting(env.get(IFNAME_VARIABLE)),
                FAMILY_VARIABLE, describeSetting(env.get(FAMILY_VARIABLE)));
        return selection.address();
    }

    /**
     * The selection rule, without looking at the machine.
     *
     * @param env        the settings; only {@value #IFNAME_VARIABLE} and {@value #FAMILY_VARIABLE} are read
     * @param interfaces the interfaces, in the system's order
     * @return the chosen interface and address
     * @throws JcclException INVALID_ARGUMENT for a malformed setting or one that matches nothing (the message
     *                       lists the interfaces seen), SYSTEM_ERROR when no interface at all is usable
     */
    public static Selection select(Map<String, String> env, List<InterfaceInfo> interfaces) {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(interfaces, "interfaces");
        Family family = parseFamily(env.get(FAMILY_VARIABLE));
        String spec = env.get(IFNAME_VARIABLE);
        if (spec != null && !spec.isBlank()) {
            InterfaceNameFilter filter;
            try {
                filter = InterfaceNameFilter.parse(spec, IFNAME_VARIABLE);
            } catch (IllegalArgumentException e) {
                throw new JcclException(ErrorCode.INVALID_ARGUMENT, e.getMessage());
            }
            Selection chosen = pick(interfaces, i -> filter.accepts(i.name()), a -> true, family);
            if (chosen == null) {
                throw new JcclException(ErrorCode.INVALID_ARGUMENT, IFNAME_VARIABLE + "='" + spec
                        + "' matches no interface that is up and has " + family.description
                        + " address (link-local IPv6 does not count)" + familyNote(env) + "; interfaces seen: "
                        + describe(interfaces));
            }
            return chosen;
        }
        Predicate<InterfaceInfo> notDockerOrLo = i -> !i.name().startsWith("docker") && !i.name().startsWith("lo");
        Selection chosen = pick(interfaces, notDockerOrLo, a -> !a.isLoopbackAddress(), family);
        if (chosen == null) {
            chosen = pick(interfaces, i -> !i.name().startsWith("docker"), InetAddress::isLoopbackAddress, family);
        }
        if (chosen == null) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "no usable network interface: none is up with "
                    + family.description + " address outside docker* and lo*, and there is no loopback address"
                    + familyNote(env) + "; set " + IFNAME_VARIABLE + " to choose one; interfaces seen: "
                    + describe(interfaces));
        }
        return chosen;
    }

    /**
     * @return this machine's interfaces, in the system's order
     * @throws JcclException SYSTEM_ERROR when they cannot be listed
     */
    public static List<InterfaceInfo> systemInterfaces() {
        try {
            List<InterfaceInfo> result = new ArrayList<>();
            for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
                result.add(new InterfaceInfo(nic.getName(), nic.isUp(), nic.inetAddresses().toList()));
            }
            return result;
        } catch (SocketException e) {
            throw new JcclException(ErrorCode.SYSTEM_ERROR, "cannot list the network interfaces: " + e.getMessage(), e);
        }
    }

    private static Selection pick(List<InterfaceInfo> interfaces, Predicate<InterfaceInfo> interfaceFilter,
                                  Predicate<InetAddress> addressFilter, Family family) {
        List<Family> passes = family == Family.ANY ? List.of(Family.IPV4, Family.IPV6) : List.of(family);
        for (Family pass : passes) {
            for (InterfaceInfo nic : interfaces) {
                if (!nic.up() || !interfaceFilter.test(nic)) {
                    continue;
                }
                for (InetAddress address : nic.addresses()) {
                    if (pass.admits(address) && usable(address) && addressFilter.test(address)) {
                        return new Selection(nic.name(), address);
                    }
                }
            }
        }
        return null;
    }

    private static boolean usable(InetAddress address) {
        if (address.isAnyLocalAddress() || address.isMulticastAddress()) {
            return false;
        }
        return !(address instanceof Inet6Address && address.isLinkLocalAddress());
    }

    private static Family parseFamily(String value) {
        if (value == null || value.isBlank()) {
            return Family.ANY;
        }
        return switch (value.strip()) {
            case "AF_INET" -> Family.IPV4;
            case "AF_INET6" -> Family.IPV6;
            default -> throw new JcclException(ErrorCode.INVALID_ARGUMENT, OptionReader.of(Map.of(FAMILY_VARIABLE,
                    value)).invalid(FAMILY_VARIABLE, "an address family, AF_INET (IPv4) or AF_INET6 (IPv6), or unset")
                    .getMessage());
        };
    }

    private static String familyNote(Map<String, String> env) {
        String family = env.get(FAMILY_VARIABLE);
        return family == null || family.isBlank() ? "" : " (" + FAMILY_VARIABLE + "=" + family.strip() + ")";
    }

    private static String describeSetting(String value) {
        return value == null || value.isBlank() ? "unset" : "'" + value + "'";
    }

    private static String describe(List<InterfaceInfo> interfaces) {
        return interfaces.isEmpty() ? "none"
                : interfaces.stream().map(InterfaceInfo::describe).collect(Collectors.joining("; "));
    }
}
