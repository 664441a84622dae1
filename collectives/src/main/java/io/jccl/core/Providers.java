package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.config.InvalidOptionException;
import io.jccl.config.ProviderList;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The transport providers on the class path, best first, and the choice for a pair of ranks. */
final class Providers {
    private static volatile List<NetTransportProvider> all;

    private Providers() {
    }

    static List<NetTransportProvider> all() {
        List<NetTransportProvider> l = all;
        if (l == null) {
            all = l = ProviderList.load(NetTransportProvider.class, Providers.class.getClassLoader(),
                    NetTransportProvider::priority, NetTransportProvider::name);
        }
        return l;
    }

    static String names() {
        return String.join(", ", all().stream().map(NetTransportProvider::name).toList());
    }

    /**
     * Checks that {@code JCCL_NET}, if set, names a provider, and every provider's own options.
     *
     * @param options the {@code JCCL_*} options in effect
     * @throws IllegalArgumentException for the first invalid one, naming it, its value and what is allowed
     */
    static void checkOptions(Map<String, String> options) {
        String net = options.get(CommConfig.NET);
        if (net != null && !net.isBlank()) {
            String name = net.trim().toLowerCase(Locale.ROOT);
            if (all().stream().noneMatch(p -> p.name().equals(name))) {
                throw new InvalidOptionException(CommConfig.NET, net, "it must name a transport on the class path: "
                        + names(), null);
            }
        }
        for (NetTransportProvider p : all()) {
            p.checkOptions(options);
        }
    }

    static NetTransportProvider byName(String name) {
        for (NetTransportProvider p : all()) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new JcclException(ErrorCode.INVALID_ARGUMENT, "JCCL_NET=" + name + ": no such transport; available: "
                + names());
    }

    /** @return where two ranks are relative to each other, for messages */
    private static String relation(PeerIdentity a, PeerIdentity b) {
        if (a.jvmId().equals(b.jvmId())) {
            return "they share one JVM";
        }
        return a.hostId().equals(b.hostId()) ? "they are different JVMs of one host" : "they are on different hosts";
    }

    /** The same answer on both ranks of the pair: the forced transport, or the best that can connect them. */
    static NetTransportProvider choose(PeerIdentity a, PeerIdentity b, String forced) {
        if (forced != null) {
            NetTransportProvider p = byName(forced);
            if (!p.canConnect(a, b)) {
                throw new JcclException(ErrorCode.INVALID_ARGUMENT, "JCCL_NET=" + forced + " cannot connect rank "
                        + a.rank() + " and rank " + b.rank() + ": " + relation(a, b) + "; transports that can connect"
                        + " them: " + String.join(", ", all().stream().filter(q -> q.canConnect(a, b))
                        .map(NetTransportProvider::name).toList()));
            }
            return p;
        }
        for (NetTransportProvider p : all()) {
            if (p.canConnect(a, b)) {
                return p;
            }
        }
        throw new JcclException(ErrorCode.SYSTEM_ERROR, "no transport can connect rank " + a.rank() + " and rank "
                + b.rank() + "; available: " + names());
    }
}
