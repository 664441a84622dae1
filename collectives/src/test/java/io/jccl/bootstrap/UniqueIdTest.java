package io.jccl.bootstrap;

import io.jccl.ErrorCode;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.stream.Stream;

import static io.jccl.bootstrap.JcclFailures.assertThrowsJccl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class UniqueIdTest {
    private static final byte[] SECRET = HexFormat.of()
            .parseHex("00112233445566778899aabbccddeeff0123456789abcdeffedcba9876543210");
    private static final String SECRET_TEXT = Base64.getUrlEncoder().withoutPadding().encodeToString(SECRET);
    private static final String VALID = "jccl1@192.0.2.2:41234#" + SECRET_TEXT;

    @Test
    void createStartsARendezvousThatRanksCanJoin() {
        UniqueId id = UniqueId.create(TestRendezvous.LOOPBACK);

        assertThat(id.encode()).matches("jccl1@127\\.0\\.0\\.1:[0-9]{1,5}#[A-Za-z0-9_-]{43}");
        assertThat(id.address().getAddress()).isEqualTo(TestRendezvous.LOOPBACK);
        try (TcpBootstrap bootstrap = TcpBootstrap.join(UniqueId.parse(id.encode()), 0, 1, Duration.ofSeconds(30))) {
            assertThat(bootstrap.allGather(new byte[] {7})).isDeepEqualTo(new byte[][] {{7}});
        }
    }

    @Test
    void createWithTheEnvironmentRulesWorksOnThisMachine() {
        UniqueId id = UniqueId.create();

        try (TcpBootstrap bootstrap = TcpBootstrap.join(id, 0, 1, Duration.ofSeconds(30))) {
            assertThat(bootstrap.allGather(new byte[0])).hasDimensions(1, 0);
        }
    }

    @Test
    void createMakesAFreshSecretEachTime() {
        UniqueId a = UniqueId.create(TestRendezvous.LOOPBACK);
        UniqueId b = UniqueId.create(TestRendezvous.LOOPBACK);

        assertThat(a.secretBytes()).hasSize(32).isNotEqualTo(b.secretBytes());
        assertThat(a).isNotEqualTo(b);
        for (UniqueId id : new UniqueId[] {a, b}) {
            TcpBootstrap.join(id, 0, 1, Duration.ofSeconds(30)).close();
        }
    }

    @Test
    void encodeParseRoundTripsIpv4() {
        UniqueId id = UniqueId.parse(VALID);

        assertThat(id.address()).isEqualTo(new InetSocketAddress(InetAddress.ofLiteral("192.0.2.2"), 41234));
        assertThat(id.secretBytes()).isEqualTo(SECRET);
        assertThat(id.encode()).isEqualTo(VALID);
        assertThat(UniqueId.parse(id.encode())).isEqualTo(id).hasSameHashCodeAs(id);
    }

    @Test
    void encodeParseRoundTripsIpv6InBrackets() {
        UniqueId id = UniqueId.of(new InetSocketAddress(InetAddress.ofLiteral("2001:db8::2"), 65535), SECRET);

        assertThat(id.encode()).isEqualTo("jccl1@[2001:db8:0:0:0:0:0:2]:65535#" + SECRET_TEXT);
        assertThat(UniqueId.parse(id.encode())).isEqualTo(id);
        assertThat(UniqueId.parse("jccl1@[2001:db8::2]:65535#" + SECRET_TEXT)).isEqualTo(id);
    }

    @Test
    void scopedIpv6AddressesLoseTheirScope() throws Exception {
        InetAddress scoped = java.net.Inet6Address.getByAddress(null, InetAddress.ofLiteral("2001:db8::9").getAddress(), 1);

        UniqueId id = UniqueId.of(new InetSocketAddress(scoped, 80), SECRET);

        assertThat(id.encode()).startsWith("jccl1@[2001:db8:0:0:0:0:0:9]:80#");
        assertThat(UniqueId.parse(id.encode())).isEqualTo(id);
    }

    @Test
    void equalityCoversAddressPortAndSecret() {
        UniqueId id = UniqueId.parse(VALID);
        byte[] otherSecret = SECRET.clone();
        otherSecret[31] ^= 1;

        assertThat(id).isEqualTo(UniqueId.of(id.address(), SECRET));
        assertThat(id).isNotEqualTo(UniqueId.of(id.address(), otherSecret));
        assertThat(id).isNotEqualTo(UniqueId.of(new InetSocketAddress(id.address().getAddress(), 41235), SECRET));
        assertThat(id).isNotEqualTo(UniqueId.of(new InetSocketAddress(InetAddress.ofLiteral("192.0.2.3"), 41234),
                SECRET));
        assertThat(id).isNotEqualTo(null).isNotEqualTo(VALID);
    }

    @Test
    void secretBytesIsACopyAndOfCopiesItsInput() {
        byte[] mine = SECRET.clone();
        UniqueId id = UniqueId.of(new InetSocketAddress(TestRendezvous.LOOPBACK, 1), mine);
        mine[0] ^= 1;
        id.secretBytes()[1] ^= 1;

        assertThat(id.secretBytes()).isEqualTo(SECRET);
    }

    @Test
    void toStringRedactsTheSecret() {
        UniqueId id = UniqueId.parse(VALID);

        assertThat(id.toString()).isEqualTo("UniqueId[192.0.2.2:41234, secret redacted]");
        assertNoSecret(id.toString());
    }

    /** Inputs wrong before the address: the scheme, its version, or a missing separator. */
    static Stream<Arguments> badIds() {
        String s = SECRET_TEXT;
        return Stream.of(
                arguments("", "must start with 'jccl1@'"),
                arguments("hello", "must start with 'jccl1@'"),
                arguments("JCCL1@192.0.2.2:1#" + s, "must start with 'jccl1@'"),
                arguments("jccl@192.0.2.2:1#" + s, "must start with 'jccl1@'"),
                arguments(" jccl1@192.0.2.2:1#" + s, "must start with 'jccl1@'"),
                arguments("jccl2@192.0.2.2:1#" + s, "version 2 is not supported"),
                arguments("jccl17@192.0.2.2:1#" + s, "version 17 is not supported"),
                arguments("jccl1@192.0.2.2:1", "no '#'"),
                arguments("jccl1@192.0.2.2#" + s, "has no ':<port>'"));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("badIds")
    void parseRejectsBadInputSayingWhatIsWrongWithoutTheSecret(String input, String expectedFragment) {
        assertRejected(input, expectedFragment);
    }

    @ParameterizedTest(name = "host {0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            example.com          | host 'example.com' is not an IPv4 address
            ""                   | host '' is not an IPv4 address
            1.2.3                | host '1.2.3' is not an IPv4 address
            1.2.3.4.5            | host '1.2.3.4.5' is not an IPv4 address
            01.2.3.4             | host '01.2.3.4' is not an IPv4 address
            1.2.3.256            | has the part 256, above 255
            0.0.0.0              | wildcard
            224.0.0.1            | multicast
            ::1                  | host '::1' is not an IPv4 address
            [::1                 | not a bracketed IPv6 address
            []                   | not a bracketed IPv6 address
            [1.2.3.4]            | is not an IPv6 address
            [::ffff:1.2.3.4]     | IPv4-mapped
            [fe80::1%eth0]       | is not an IPv6 address
            [fe80::1]            | link-local
            [gggg::1]            | is not an IPv6 address
            [1:2:3:4:5:6:7:8:9]  | is not an IPv6 address
            """)
    void parseRejectsABadHostSayingWhatIsWrongWithoutTheSecret(String host, String expectedFragment) {
        assertRejected("jccl1@" + host + ":1#" + SECRET_TEXT, expectedFragment);
    }

    @ParameterizedTest(name = "port {0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            0       | port 0 is out of range 1..65535
            65536   | port 65536 is out of range 1..65535
            99999   | port 99999 is out of range
            -1      | port '-1' is not a number
            +1      | port '+1' is not a number
            ""      | port '' is not a number
            123456  | port '123456' is not a number
            http    | port 'http' is not a number
            """)
    void parseRejectsABadPortSayingWhatIsWrongWithoutTheSecret(String port, String expectedFragment) {
        assertRejected("jccl1@192.0.2.2:" + port + "#" + SECRET_TEXT, expectedFragment);
    }

    static Stream<Arguments> badSecrets() {
        String s = SECRET_TEXT;
        return Stream.of(
                arguments("", "secret has 0 characters; expected 43"),
                arguments(s.substring(1), "secret has 42 characters; expected 43"),
                arguments(s + "A", "1 unexpected characters after its secret"),
                arguments(s + " ", "1 unexpected characters after its secret"),
                arguments(s + "\n", "1 unexpected characters after its secret"),
                arguments(s + "#" + s, "44 unexpected characters after its secret"),
                arguments(s.substring(0, 42) + "=", "outside base64url"),
                arguments(s.substring(0, 20) + "+" + s.substring(21), "outside base64url"),
                arguments(s.substring(0, 20) + "/" + s.substring(21), "outside base64url"),
                arguments(s.substring(0, 42) + "B", "not in canonical base64url"),
                arguments(s.repeat(6), "at most 256"));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("badSecrets")
    void parseRejectsABadSecretSayingWhatIsWrongWithoutTheSecret(String secret, String expectedFragment) {
        assertRejected("jccl1@192.0.2.2:1#" + secret, expectedFragment);
    }

    private static void assertRejected(String input, String expectedFragment) {
        assertThatThrownBy(() -> UniqueId.parse(input))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(expectedFragment)
                .satisfies(e -> assertNoSecret(e.getMessage()));
    }

    @Test
    void parseRejectsNull() {
        assertThatThrownBy(() -> UniqueId.parse(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void ofValidatesItsArguments() {
        InetSocketAddress address = new InetSocketAddress(TestRendezvous.LOOPBACK, 1234);
        assertInvalid(() -> UniqueId.of(null, SECRET), "null or unresolved");
        assertInvalid(() -> UniqueId.of(InetSocketAddress.createUnresolved("example.com", 1), SECRET), "unresolved");
        assertInvalid(() -> UniqueId.of(new InetSocketAddress(TestRendezvous.LOOPBACK, 0), SECRET), "port 0");
        assertInvalid(() -> UniqueId.of(address, null), "got null");
        assertInvalid(() -> UniqueId.of(address, new byte[31]), "got 31 bytes");
        assertInvalid(() -> UniqueId.of(new InetSocketAddress(InetAddress.ofLiteral("0.0.0.0"), 1), SECRET),
                "wildcard");
        assertInvalid(() -> UniqueId.of(new InetSocketAddress(InetAddress.ofLiteral("ff02::1"), 1), SECRET),
                "multicast");
        assertInvalid(() -> UniqueId.of(new InetSocketAddress(InetAddress.ofLiteral("fe80::1"), 1), SECRET),
                "link-local");
    }

    @Test
    void createRejectsTheWildcardAddress() {
        assertInvalid(() -> UniqueId.create(InetAddress.ofLiteral("0.0.0.0")), "wildcard");
        assertInvalid(() -> UniqueId.create(null), "null");
    }

    @Test
    void createOnAnAddressThisMachineDoesNotHaveIsASystemError() {
        // 192.0.2.0/24 is TEST-NET-1; .254 is not assigned to any test machine
        assertThrowsJccl(() -> UniqueId.create(InetAddress.ofLiteral("192.0.2.254")), ErrorCode.SYSTEM_ERROR,
                "cannot listen on 192.0.2.254:0");
    }

    private static void assertInvalid(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String fragment) {
        assertThrowsJccl(call, ErrorCode.INVALID_ARGUMENT, fragment);
    }

    private static void assertNoSecret(String text) {
        assertThat(text).doesNotContain(SECRET_TEXT).doesNotContain(SECRET_TEXT.substring(0, 16))
                .doesNotContain(SECRET_TEXT.substring(20, 36)).doesNotContain(HexFormat.of().formatHex(SECRET));
    }
}
