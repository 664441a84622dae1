package io.jccl.cli.bench.loss;

import java.util.Objects;
import java.util.Optional;

/**
 * The link a transport runs over in {@code jccl bench loss}, or why it cannot run: {@code --link tun} and
 * {@code --link relay} ask for one link; {@code --link auto} takes the TUN link where it is available (it carries
 * every transport the same way) and the relay otherwise, for the transports the relay carries.
 *
 * @param transport  the transport's name
 * @param link       the link to use, null when the transport is skipped
 * @param skipReason why it is skipped, null when it runs
 */
public record LinkChoice(String transport, LinkKind link, String skipReason) {
    /** What the TUN link needs, for the reasons of skipped transports. */
    public static final String TUN_NEEDS = "root, /dev/net/tun, ip netns";

    /** Exactly one of {@code link} and {@code skipReason} is given. */
    public LinkChoice {
        Objects.requireNonNull(transport, "transport");
        if ((link == null) == (skipReason == null)) {
            throw new IllegalArgumentException("a choice has either a link or a reason to skip");
        }
    }

    /** @return whether the transport runs */
    public boolean runs() {
        return link != null;
    }

    /**
     * Chooses the link of one transport.
     *
     * @param transport      the transport's name
     * @param wanted         the link asked for, or null for {@code auto}
     * @param tunUnavailable why the TUN link cannot be set up here, empty when it can (injected, so that tests can
     *                       take either branch on any machine)
     * @return the choice
     */
    public static LinkChoice choose(String transport, LinkKind wanted, Optional<String> tunUnavailable) {
        boolean tunUp = tunUnavailable.isEmpty();
        if (wanted == LinkKind.TUN || (wanted == null && !LinkKind.RELAY.carries(transport))) {
            return tunUp ? new LinkChoice(transport, LinkKind.TUN, null)
                    : new LinkChoice(transport, null, transport + ": needs the TUN link (" + TUN_NEEDS + "): "
                    + tunUnavailable.get());
        }
        if (wanted == LinkKind.RELAY) {
            return LinkKind.RELAY.carries(transport) ? new LinkChoice(transport, LinkKind.RELAY, null)
                    : new LinkChoice(transport, null, transport + ": the relay link carries metaroce only (it needs "
                    + "the transport to register with it); use --link tun or auto");
        }
        // auto, for a transport the relay carries: the TUN link where it is up, so all transports share one link
        return new LinkChoice(transport, tunUp ? LinkKind.TUN : LinkKind.RELAY, null);
    }
}
