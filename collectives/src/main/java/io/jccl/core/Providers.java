package io.jccl.core;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.net.NetTransportProvider;
import io.jccl.net.PeerIdentity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/** The transport providers on the class path, best first, and the choice for a pair of ranks. */
final class Providers {
    private static volatile List<NetTransportProvider> all;

    private Providers() {
    }

    static List<NetTransportProvider> all() {
        List<NetTransportProvider> l = all;
        if (l == null) {
            List<NetTransportProvider> found = new ArrayList<>();
            ServiceLoader.load(NetTransportProvider.class, Providers.class.getClassLoader()).forEach(found::add);
            found.sort(Comparator.comparingInt(NetTransportProvider::priority).reversed()
                    .thenComparing(NetTransportProvider::name));
            all = l = List.copyOf(found);
        }
        return l;
    }

    static String names() {
        return String.join(", ", all().stream().map(NetTransportProvider::name).toList());
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

    /** The same answer on both ranks of the pair: the forced transport, or the best that can connect them. */
    static NetTransportProvider choose(PeerIdentity a, PeerIdentity b, String forced) {
        if (forced != null) {
            NetTransportProvider p = byName(forced);
            if (!p.canConnect(a, b)) {
                throw new JcclException(ErrorCode.INVALID_ARGUMENT, "JCCL_NET=" + forced + " cannot connect rank "
                        + a.rank() + " and rank " + b.rank() + " (different processes or hosts)");
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
