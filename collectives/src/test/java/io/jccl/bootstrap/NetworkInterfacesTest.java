package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.jccl.bootstrap.JcclFailures.assertThrowsJccl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class NetworkInterfacesTest {
    /** A made-up machine, in "system order". */
    private static final List<InterfaceInfo> MACHINE = List.of(
            nic("lo", true, "127.0.0.1", "::1"),
            nic("eth0", true, "fe80::1", "2001:db8::2", "192.0.2.2"),
            nic("eth1", true, "198.51.100.7"),
            nic("docker0", true, "172.17.0.1"),
            nic("ib0", false, "10.0.0.1"),
            nic("ens5", true, "2001:db8::5"),
            nic("wlan0", true, "fe80::9"));

    /** IFNAME spec and family (empty: unset), and the interface and address chosen on {@link #MACHINE}. */
    @ParameterizedTest(name = "IFNAME={0} FAMILY={1} -> {2} {3}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            # ifname spec  | family   | interface | address
                           |          | eth0      | 192.0.2.2
            ""             |          | eth0      | 192.0.2.2
            "  "           |          | eth0      | 192.0.2.2
            eth            |          | eth0      | 192.0.2.2
            eth1           |          | eth1      | 198.51.100.7
            =eth1          |          | eth1      | 198.51.100.7
            =eth1,eth0     |          | eth0      | 192.0.2.2
            ib,eth1        |          | eth1      | 198.51.100.7
            " eth1 , ens " |          | eth1      | 198.51.100.7
            ^eth,lo        |          | docker0   | 172.17.0.1
            ^docker        |          | lo        | 127.0.0.1
            ^=eth0,lo      |          | eth1      | 198.51.100.7
            ^=eth          |          | lo        | 127.0.0.1
            lo             |          | lo        | 127.0.0.1
            =lo            | AF_INET6 | lo        | ::1
            docker         |          | docker0   | 172.17.0.1
            ens            |          | ens5      | 2001:db8::5
            ens,eth        | AF_INET6 | eth0      | 2001:db8::2
                           | AF_INET6 | eth0      | 2001:db8::2
                           | AF_INET  | eth0      | 192.0.2.2
            ^eth           | AF_INET6 | lo        | ::1
            ^lo,eth        | AF_INET6 | ens5      | 2001:db8::5
            """)
    void selectsByTheRules(String spec, String family, String expectedInterface, String expectedAddress) {
        NetworkInterfaces.Selection selection = NetworkInterfaces.select(env(spec, family), MACHINE);

        assertThat(selection.interfaceName()).isEqualTo(expectedInterface);
        assertThat(selection.address()).isEqualTo(ip(expectedAddress));
    }

    static Stream<Arguments> noMatch() {
        return Stream.of(
                arguments("ib", null),          // ib0 is down
                arguments("=eth", null),        // exact: there is no interface called "eth"
                arguments("wlan", null),        // only a link-local IPv6 address
                arguments("ens", "AF_INET"),    // only IPv6
                arguments("eth1", "AF_INET6"),  // only IPv4
                arguments("bond", null),
                arguments("^e,l,d,i,w", null)); // everything excluded
    }

    @ParameterizedTest(name = "IFNAME={0} FAMILY={1} matches nothing")
    @MethodSource("noMatch")
    void noMatchNamesTheSpecAndListsTheInterfaces(String spec, String family) {
        assertThatThrownBy(() -> NetworkInterfaces.select(env(spec, family), MACHINE))
                .isInstanceOfSatisfying(JcclException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("JCCL_SOCKET_IFNAME='" + spec + "'")
                            .contains("eth0 (up: ").contains("192.0.2.2").contains("ib0 (down: 10.0.0.1)")
                            .contains("wlan0");
                    if (family != null) {
                        assertThat(e.getMessage()).contains("JCCL_SOCKET_FAMILY=" + family);
                    }
                });
    }

    @ParameterizedTest(name = "IFNAME=''{0}'' is malformed")
    @MethodSource("invalidSpecs")
    void malformedSpecsAreRejectedWithTheValue(String spec, String expectedFragment) {
        assertThrowsJccl(() -> NetworkInterfaces.select(env(spec, null), MACHINE), ErrorCode.INVALID_ARGUMENT,
                "'" + spec + "'", expectedFragment);
    }

    static Stream<Arguments> invalidSpecs() {
        return Stream.of(
                arguments("^", "empty interface name"),
                arguments("=", "empty interface name"),
                arguments("^=", "empty interface name"),
                arguments("eth0,,eth1", "empty interface name"),
                arguments("eth0,", "empty interface name"),
                arguments("eth0,^lo", "'^' may only start the whole list"),
                arguments("^=eth0,=lo", "'=' may only start the whole list"),
                arguments("eth 0", "contains a space"),
                arguments("eth\u00e9", "non-ASCII"));
    }

    @ParameterizedTest(name = "FAMILY={0} is rejected")
    @MethodSource("invalidFamilies")
    void badFamilyIsRejectedWithTheValue(String family) {
        assertThrowsJccl(() -> NetworkInterfaces.select(env(null, family), MACHINE), ErrorCode.INVALID_ARGUMENT,
                "JCCL_SOCKET_FAMILY='" + family + "'",
                "is invalid: it must be an address family, AF_INET (IPv4) or AF_INET6 (IPv6), or unset");
    }

    static Stream<String> invalidFamilies() {
        return Stream.of("AF_INET7", "inet", "af_inet", "IPv4", "AF_UNIX");
    }

    @Test
    void defaultFallsBackToLoopbackWhenOnlyLoopbackAndDockerExist() {
        List<InterfaceInfo> machine = List.of(nic("docker0", true, "172.17.0.1"), nic("lo", true, "127.0.0.1", "::1"),
                nic("eth0", false, "192.0.2.2"));

        NetworkInterfaces.Selection selection = NetworkInterfaces.select(Map.of(), machine);

        assertThat(selection.interfaceName()).isEqualTo("lo");
        assertThat(selection.address()).isEqualTo(ip("127.0.0.1"));
    }

    @Test
    void defaultFallbackHonoursTheFamily() {
        List<InterfaceInfo> machine = List.of(nic("lo", true, "127.0.0.1", "::1"));

        assertThat(NetworkInterfaces.select(env(null, "AF_INET6"), machine).address()).isEqualTo(ip("::1"));
    }

    @Test
    void defaultSkipsLoopbackAddressesOnOtherInterfacesAndLinkLocal() {
        List<InterfaceInfo> machine = List.of(nic("weird0", true, "127.0.0.2", "fe80::3"),
                nic("eth7", true, "fe80::7", "2001:db8::7"));

        NetworkInterfaces.Selection selection = NetworkInterfaces.select(Map.of(), machine);

        assertThat(selection.interfaceName()).isEqualTo("eth7");
        assertThat(selection.address()).isEqualTo(ip("2001:db8::7"));
    }

    @Test
    void defaultPrefersIpv4OnALaterInterfaceOverIpv6OnAnEarlierOne() {
        List<InterfaceInfo> machine = List.of(nic("ens1", true, "2001:db8::1"), nic("ens2", true, "192.0.2.9"));

        assertThat(NetworkInterfaces.select(Map.of(), machine).interfaceName()).isEqualTo("ens2");
    }

    @Test
    void noUsableInterfaceAtAllIsASystemError() {
        List<InterfaceInfo> machine = List.of(nic("eth0", false, "192.0.2.2"), nic("docker0", true, "172.17.0.1"));

        assertThrowsJccl(() -> NetworkInterfaces.select(Map.of(), machine), ErrorCode.SYSTEM_ERROR,
                "eth0 (down: 192.0.2.2)", "docker0 (up: 172.17.0.1)", "JCCL_SOCKET_IFNAME");
        assertThatThrownBy(() -> NetworkInterfaces.select(Map.of(), List.of()))
                .hasMessageContaining("interfaces seen: none");
    }

    @Test
    void wildcardAndMulticastAddressesAreNeverChosen() {
        List<InterfaceInfo> machine = List.of(nic("eth0", true, "0.0.0.0", "224.0.0.1", "192.0.2.4"));

        assertThat(NetworkInterfaces.select(Map.of(), machine).address()).isEqualTo(ip("192.0.2.4"));
    }

    @Test
    void thisMachineHasSomeUsableAddress() {
        InetAddress chosen = NetworkInterfaces.select(Map.of());

        assertThat(chosen).isNotNull();
        assertThat(chosen.isAnyLocalAddress()).isFalse();
    }

    @Test
    void onThisMachineAnUnknownExactNameListsTheRealInterfaces() {
        assertThrowsJccl(() -> NetworkInterfaces.select(Map.of("JCCL_SOCKET_IFNAME", "=no-such-nic-jccl")),
                ErrorCode.INVALID_ARGUMENT, "=no-such-nic-jccl", "interfaces seen: ");
    }

    @Test
    void onThisMachineExcludingANameThatDoesNotExistStillFindsOne() {
        assertThat(NetworkInterfaces.select(Map.of("JCCL_SOCKET_IFNAME", "^=no-such-nic-jccl"))).isNotNull();
    }

    private static Map<String, String> env(String spec, String family) {
        Map<String, String> env = new HashMap<>();
        if (spec != null) {
            env.put(NetworkInterfaces.IFNAME_VARIABLE, spec);
        }
        if (family != null) {
            env.put(NetworkInterfaces.FAMILY_VARIABLE, family);
        }
        return env;
    }

    private static InterfaceInfo nic(String name, boolean up, String... addresses) {
        return new InterfaceInfo(name, up, Stream.of(addresses).map(NetworkInterfacesTest::ip).toList());
    }

    private static InetAddress ip(String literal) {
        return InetAddress.ofLiteral(literal);
    }
}
