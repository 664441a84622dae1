package io.jccl.cli.bench.loss;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Which link each transport gets, with the TUN link's availability injected either way. */
class LinkChoiceTest {
    private static final Optional<String> TUN_UP = Optional.empty();
    private static final Optional<String> TUN_DOWN = Optional.of("/dev/net/tun is missing");

    @Test
    void autoTakesTheTunLinkForEveryTransportWhereItIsUp() {
        for (String t : new String[] {"metaroce", "tcp", "aeron-udp"}) {
            LinkChoice c = LinkChoice.choose(t, null, TUN_UP);
            assertThat(c.runs()).isTrue();
            assertThat(c.link()).isEqualTo(LinkKind.TUN);
        }
    }

    @Test
    void autoWithoutTunRunsMetaroceOverTheRelayAndSkipsTheRestSayingWhy() {
        assertThat(LinkChoice.choose("metaroce", null, TUN_DOWN).link()).isEqualTo(LinkKind.RELAY);
        LinkChoice tcp = LinkChoice.choose("tcp", null, TUN_DOWN);
        assertThat(tcp.runs()).isFalse();
        assertThat(tcp.skipReason()).isEqualTo("tcp: needs the TUN link (root, /dev/net/tun, ip netns): "
                + "/dev/net/tun is missing");
        assertThat(LinkChoice.choose("aeron-udp", null, TUN_DOWN).skipReason())
                .startsWith("aeron-udp: needs the TUN link").endsWith("/dev/net/tun is missing");
    }

    @Test
    void anExplicitLinkIsTakenOrTheTransportSkipped() {
        assertThat(LinkChoice.choose("metaroce", LinkKind.RELAY, TUN_UP).link()).isEqualTo(LinkKind.RELAY);
        assertThat(LinkChoice.choose("tcp", LinkKind.RELAY, TUN_UP).skipReason())
                .contains("the relay link carries metaroce only");
        assertThat(LinkChoice.choose("metaroce", LinkKind.TUN, TUN_DOWN).skipReason())
                .startsWith("metaroce: needs the TUN link");
        assertThat(LinkChoice.choose("tcp", LinkKind.TUN, TUN_UP).link()).isEqualTo(LinkKind.TUN);
    }
}
