package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.Endpoint;

import java.util.List;
import java.util.Locale;

/**
 * The protocols the simulator can run, by name: {@code metaroce} (the MetaRoCE core,
 * {@link Endpoint}) and {@code gbn} (the RoCEv2 go-back-N baseline,
 * {@link GoBackNEndpoint}).
 */
public final class Protocols {
    /** Names {@link #byName} knows. */
    public static final List<String> NAMES = List.of("metaroce", "gbn");

    private Protocols() {
    }

    /**
     * @return a factory of MetaRoCE endpoints ({@link Endpoint}); the node id is the fabric's business, the
     *         endpoint only needs the node's seeded random source
     */
    public static VerbsFactory metaRoCE() {
        return (config, nodeId, random) -> new Endpoint(config, random);
    }

    /**
     * @param config the baseline's settings
     * @return a factory of RoCEv2 go-back-N baseline endpoints
     */
    public static VerbsFactory goBackN(GoBackNConfig config) {
        return (endpointConfig, nodeId, random) -> new GoBackNEndpoint(endpointConfig, config, nodeId);
    }

    /**
     * @param name   {@code metaroce} or {@code gbn} (case-insensitive)
     * @param gbn    the baseline's settings, used for {@code gbn}
     * @return the factory
     * @throws IllegalArgumentException for an unknown name
     */
    public static VerbsFactory byName(String name, GoBackNConfig gbn) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "metaroce" -> metaRoCE();
            case "gbn" -> goBackN(gbn);
            default -> throw new IllegalArgumentException("unknown protocol '" + name + "' (known: "
                    + String.join(", ", NAMES) + ")");
        };
    }
}
