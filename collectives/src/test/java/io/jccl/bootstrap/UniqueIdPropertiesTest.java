package io.jccl.bootstrap;

import io.jccl.UniqueId;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import static org.assertj.core.api.Assertions.assertThat;

class UniqueIdPropertiesTest {
    @Property(tries = 300)
    void encodeThenParseIsTheIdentity(@ForAll("addresses") InetAddress address,
                                      @ForAll @IntRange(min = 1, max = 65535) int port,
                                      @ForAll @Size(32) byte[] secret) {
        UniqueId id = UniqueId.of(new InetSocketAddress(address, port), secret);

        UniqueId parsed = UniqueId.parse(id.encode());

        assertThat(parsed).isEqualTo(id);
        assertThat(parsed.encode()).isEqualTo(id.encode());
        assertThat(parsed.secretBytes()).isEqualTo(secret);
        assertThat(parsed.toString()).doesNotContain(id.encode().substring(id.encode().indexOf('#') + 1));
    }

    @Provide
    Arbitrary<InetAddress> addresses() {
        Arbitrary<InetAddress> v4 = Arbitraries.bytes().array(byte[].class).ofSize(4).map(UniqueIdPropertiesTest::ip);
        Arbitrary<InetAddress> v6 = Arbitraries.bytes().array(byte[].class).ofSize(16).map(UniqueIdPropertiesTest::ip);
        return Arbitraries.oneOf(v4, v6).filter(a -> !a.isAnyLocalAddress() && !a.isMulticastAddress()
                && !(a instanceof java.net.Inet6Address && a.isLinkLocalAddress()));
    }

    private static InetAddress ip(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
