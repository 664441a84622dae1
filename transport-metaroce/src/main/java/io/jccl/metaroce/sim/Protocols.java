package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.EndpointConfig;
import io.jccl.metaroce.protocol.Verbs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * The protocols the simulator can run, by name: {@code metaroce} (the MetaRoCE core,
 * {@code io.jccl.metaroce.protocol.Endpoint}) and {@code gbn} (the RoCEv2 go-back-N baseline,
 * {@link GoBackNEndpoint}).
 */
public final class Protocols {
    /** The class of the MetaRoCE endpoint. */
    public static final String METAROCE_ENDPOINT_CLASS = "io.jccl.metaroce.protocol.Endpoint";

    /** Names {@link #byName} knows. */
    public static final List<String> NAMES = List.of("metaroce", "gbn");

    private Protocols() {
    }

    /**
     * The MetaRoCE endpoint. Until {@code io.jccl.metaroce.protocol.Endpoint} exists this throws
     * {@link UnsupportedOperationException} ("not available yet").
     *
     * <p><b>Plugging it in.</b> This looks the class up by name and accepts either a public constructor
     * {@code Endpoint(EndpointConfig, long nodeId, RandomGenerator)} or a public static method
     * {@code Endpoint.create(EndpointConfig, long, RandomGenerator)} returning it. Once the class is in this module,
     * the body may simply become {@code return Endpoint::new;}.
     *
     * @return a factory of MetaRoCE endpoints
     */
    public static VerbsFactory metaRoCE() {
        Class<?> type;
        try {
            type = Class.forName(METAROCE_ENDPOINT_CLASS, true, Protocols.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new UnsupportedOperationException("protocol metaroce is not available yet: "
                    + METAROCE_ENDPOINT_CLASS + " is not built yet (the MetaRoCE core is in progress); use gbn");
        }
        MethodType shape = MethodType.methodType(void.class, EndpointConfig.class, long.class, RandomGenerator.class);
        MethodHandle make;
        try {
            make = MethodHandles.publicLookup().findConstructor(type, shape);
        } catch (ReflectiveOperationException e) {
            try {
                make = MethodHandles.publicLookup().findStatic(type, "create", shape.changeReturnType(type));
            } catch (ReflectiveOperationException e2) {
                throw new UnsupportedOperationException(METAROCE_ENDPOINT_CLASS + " has neither a public constructor "
                        + "(EndpointConfig, long, RandomGenerator) nor a static create(EndpointConfig, long, "
                        + "RandomGenerator); plug it into io.jccl.metaroce.sim.Protocols.metaRoCE()");
            }
        }
        if (!Verbs.class.isAssignableFrom(type)) {
            throw new UnsupportedOperationException(METAROCE_ENDPOINT_CLASS + " does not implement Verbs");
        }
        MethodHandle m = make;
        return (config, nodeId, random) -> {
            try {
                return (Verbs) m.invoke(config, nodeId, random);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("creating a MetaRoCE endpoint failed", t);
            }
        };
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
     * @throws UnsupportedOperationException for a protocol that is not available yet
     */
    public static VerbsFactory byName(String name, GoBackNConfig gbn) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "metaroce" -> metaRoCE();
            case "gbn" -> goBackN(gbn);
            default -> throw new IllegalArgumentException("unknown protocol '" + name + "' (known: "
                    + String.join(", ", NAMES) + ")");
        };
    }

    /** @return true when {@code name} can run now */
    public static boolean available(String name) {
        try {
            byName(name, GoBackNConfig.defaults());
            return true;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }
}
