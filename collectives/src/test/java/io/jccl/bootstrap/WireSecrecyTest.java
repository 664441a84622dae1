package io.jccl.bootstrap;

import io.jccl.JcclException;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.jccl.bootstrap.TcpRendezvousTest.TIMEOUT;
import static io.jccl.bootstrap.TcpRendezvousTest.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The secret stays secret: not on the wire, not in messages or toString. */
@Tag("integration")
class WireSecrecyTest {
    @Test
    void theSecretNeverCrossesTheWire() throws Exception {
        int n = 3;
        try (TestRendezvous rv = TestRendezvous.start();
             ByteProxy proxy = ByteProxy.recording(rv.server.address())) {
            UniqueId viaProxy = rv.via(proxy.address());
            UniqueId wrong = UniqueId.of(proxy.address(), TestRendezvous.randomSecret());
            assertThatThrownBy(() -> TcpBootstrap.join(wrong, 0, n, TIMEOUT)).isInstanceOf(JcclException.class)
                    .satisfies(e -> assertNoSecret(e.getMessage(), rv.secret))
                    .satisfies(e -> assertNoSecret(e.getMessage(), wrong.secretBytes()));

            List<CompletableFuture<String>> ranks = Ranks.run(n, rank -> {
                try (TcpBootstrap bootstrap = TcpBootstrap.join(viaProxy, rank, n, TIMEOUT)) {
                    bootstrap.allGather(payload(rank, 0, 100));
                    bootstrap.allGather(payload(rank, 1, 100));
                    return bootstrap.toString();
                }
            });
            for (String description : Ranks.awaitAll(ranks)) {
                assertNoSecret(description, rv.secret);
            }
            rv.assertTerminates();

            byte[] wire = proxy.allBytes();
            assertThat(wire.length).as("bytes captured").isGreaterThan(3 * 2 * 3 * 100);
            for (byte[] secret : List.of(rv.secret, wrong.secretBytes())) {
                assertThat(containsAnyWindow(wire, secret, 12)).as("a 12-byte piece of the secret on the wire").isFalse();
                for (String text : encodings(secret)) {
                    assertThat(containsAnyWindow(wire, text.getBytes(StandardCharsets.US_ASCII), 16))
                            .as("a piece of the secret's text form on the wire").isFalse();
                }
            }
        }
    }

    @Test
    void theSecretIsInNoToStringOrRefusal() {
        try (TestRendezvous rv = TestRendezvous.start()) {
            assertNoSecret(rv.id.toString(), rv.secret);
            assertNoSecret(rv.server.toString(), rv.secret);
            UniqueId wrong = rv.wrongSecret();
            assertThatThrownBy(() -> TcpBootstrap.join(wrong, 0, 1, TIMEOUT))
                    .satisfies(e -> assertNoSecret(String.valueOf(e.getMessage()), rv.secret))
                    .satisfies(e -> assertNoSecret(String.valueOf(e.getMessage()), wrong.secretBytes()));
        }
    }

    private static List<String> encodings(byte[] secret) {
        return List.of(Base64.getUrlEncoder().withoutPadding().encodeToString(secret),
                Base64.getEncoder().encodeToString(secret), HexFormat.of().formatHex(secret));
    }

    private static void assertNoSecret(String text, byte[] secret) {
        for (String encoding : encodings(secret)) {
            assertThat(text).doesNotContain(encoding.substring(0, 16)).doesNotContain(encoding.substring(16, 32));
        }
        assertThat(text).doesNotContain(Arrays.toString(secret).substring(0, 20));
    }

    /** @return whether any {@code window}-long piece of {@code needle} occurs in {@code haystack} */
    private static boolean containsAnyWindow(byte[] haystack, byte[] needle, int window) {
        for (int start = 0; start + window <= needle.length; start++) {
            byte[] piece = Arrays.copyOfRange(needle, start, start + window);
            for (int i = 0; i + window <= haystack.length; i++) {
                if (Arrays.equals(haystack, i, i + window, piece, 0, window)) {
                    return true;
                }
            }
        }
        return false;
    }
}
