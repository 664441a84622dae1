package io.jccl.net.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parsing of the TCP transport's options; invalid values are covered by the conformance class. */
class TcpOptionsTest {
    @Test
    void defaultsToFourMebibyteSocketBuffersOneSocketAndSixtyFourKibibyteStripes() {
        for (TcpOptions o : new TcpOptions[] {TcpOptions.parse(Map.of()), TcpOptions.parse(null)}) {
            assertThat(o.socketBufferBytes()).isEqualTo(4 << 20);
            assertThat(o.socketsPerConnection()).isEqualTo(TcpOptions.DEFAULT_SOCKETS_PER_CONNECTION);
            assertThat(o.minStripeBytes()).isEqualTo(64 << 10);
        }
    }

    @Test
    void readsTheSocketBufferSize() {
        Map<String, String> options = new HashMap<>();
        options.put("JCCL_SOCKET_BUFFER_BYTES", "1048576");
        options.put("JCCL_SOMETHING_ELSE", "ignored");
        assertThat(TcpOptions.parse(options).socketBufferBytes()).isEqualTo(1 << 20);
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_BUFFER_BYTES", "0")).socketBufferBytes()).isZero();
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_BUFFER_BYTES", "2147483647")).socketBufferBytes())
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void readsTheSocketCountAndShortestStripeAtTheirBounds() {
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_NSOCKS", "1")).socketsPerConnection()).isEqualTo(1);
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_NSOCKS", " 16 ")).socketsPerConnection()).isEqualTo(16);
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_MIN_STRIPE_BYTES", "4096")).minStripeBytes()).isEqualTo(4096);
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_MIN_STRIPE_BYTES", "1073741824")).minStripeBytes())
                .isEqualTo(1L << 30);
    }

    @Test
    void duplexIsOnUnlessSetToZeroOrMoreSocketsAreAskedForAndAnythingElseIsRefusedByName() {
        assertThat(TcpOptions.parse(Map.of()).duplex()).isTrue();
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_NSOCKS", "7")).duplex()).isTrue();
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_NSOCKS", "8")).duplex()).isFalse();
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_DUPLEX", "1")).duplex()).isTrue();
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_DUPLEX", "0")).duplex()).isFalse();
        for (String bad : new String[] {"2", "yes", "-1", ""}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> TcpOptions.parse(Map.of("JCCL_SOCKET_DUPLEX", bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JCCL_SOCKET_DUPLEX='" + bad);
        }
        // Two ranks then share 1 + 2 x NSOCKS sockets, at most 16.
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_DUPLEX", "1", "JCCL_SOCKET_NSOCKS", "7"))
                .socketsPerConnection()).isEqualTo(7);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> TcpOptions.parse(Map.of("JCCL_SOCKET_DUPLEX", "1", "JCCL_SOCKET_NSOCKS", "8")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JCCL_SOCKET_NSOCKS='8'")
                .hasMessageContaining("1 to 7 with JCCL_SOCKET_DUPLEX=1");
    }

    /** A message gets one stripe per whole shortest stripe it holds, at most one per socket, at least one. */
    @Test
    void stripeCountFollowsTheLengthUpToTheSocketCount() {
        TcpOptions four = TcpOptions.parse(Map.of("JCCL_SOCKET_NSOCKS", "4"));
        assertThat(four.stripesFor(0)).isEqualTo(1);
        assertThat(four.stripesFor((128 << 10) - 1)).isEqualTo(1);
        assertThat(four.stripesFor(128 << 10)).isEqualTo(2);
        assertThat(four.stripesFor(3 * (64 << 10))).isEqualTo(3);
        assertThat(four.stripesFor(1 << 20)).isEqualTo(4);
        assertThat(four.stripesFor(1L << 40)).isEqualTo(4);
        TcpOptions one = TcpOptions.parse(Map.of("JCCL_SOCKET_MIN_STRIPE_BYTES", "4096"));
        assertThat(one.stripesFor(1L << 30)).isEqualTo(1);
    }

    /** Stripes are contiguous, cover the message, start on 64-byte boundaries and are never empty. */
    @Test
    void stripeBoundariesCoverTheMessage() {
        for (long length : new long[] {8192, 8193, 65_536, 100_003, (1 << 20) + 5, 1L << 40}) {
            for (int stripes = 1; stripes <= Wire.MAX_SOCKETS; stripes++) {
                if (stripes > 1 && length < stripes * Wire.MIN_STRIPE_BYTES) {
                    continue;
                }
                assertThat(Wire.stripeStart(length, stripes, 0)).isZero();
                assertThat(Wire.stripeStart(length, stripes, stripes)).isEqualTo(length);
                for (int i = 1; i < stripes; i++) {
                    long start = Wire.stripeStart(length, stripes, i);
                    assertThat(start % 64).isZero();
                    assertThat(start).as("stripe %d of %d of %d bytes", i, stripes, length)
                            .isGreaterThan(Wire.stripeStart(length, stripes, i - 1));
                }
                assertThat(Wire.stripeStart(length, stripes, stripes)).isGreaterThan(
                        Wire.stripeStart(length, stripes, stripes - 1));
            }
        }
    }
}
