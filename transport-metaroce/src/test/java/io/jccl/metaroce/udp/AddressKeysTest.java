package io.jccl.metaroce.udp;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.assertj.core.api.Assertions.assertThat;

/** Socket addresses as long keys: IPv4 computed both ways, IPv6 numbered, forgotten keys dropped. */
class AddressKeysTest {
    @Test
    void anIpv4AddressIsItsOwnKey() throws Exception {
        AddressKeys keys = new AddressKeys();
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.1.2.250"), 65535);
        long key = keys.keyOf(a);
        assertThat(key).isEqualTo(AddressKeys.ipv4Key(0x0A0102FA, 65535)).isNotNegative();
        assertThat(AddressKeys.ipv4(key)).isEqualTo(0x0A0102FA);
        assertThat(AddressKeys.port(key)).isEqualTo(65535);
        assertThat(keys.addressOf(key)).isSameAs(a);
        assertThat(new AddressKeys().addressOf(AddressKeys.ipv4Key(0xFFFFFFFE, 1)))
                .isEqualTo(new InetSocketAddress(InetAddress.getByName("255.255.255.254"), 1));
    }

    @Test
    void ipv6AddressesAreNumberedAndForgotten() throws Exception {
        AddressKeys keys = new AddressKeys();
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("::1"), 9);
        InetSocketAddress b = new InetSocketAddress(InetAddress.getByName("fd00::2"), 9);
        long ka = keys.keyOf(a);
        long kb = keys.keyOf(b);
        assertThat(ka).isNegative().isNotEqualTo(kb).isNotEqualTo(AddressKeys.NONE);
        assertThat(keys.keyOf(new InetSocketAddress(InetAddress.getByName("::1"), 9))).isEqualTo(ka);
        assertThat(keys.addressOf(kb)).isEqualTo(b);
        keys.forget(ka);
        keys.forget(kb);
        assertThat(keys.size()).isZero();
        assertThat(keys.addressOf(ka)).isNull();
    }
}
