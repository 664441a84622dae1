package io.jccl.cli.bench.loss;

import java.util.Locale;
import java.util.Set;

/** The impairing links {@code jccl bench loss} can put between its two JVMs, and what each carries. */
public enum LinkKind {
    /**
     * The user-space UDP relay ({@code io.jccl.metaroce.fabric.ImpairmentProxy}) in the benchmark's JVM: the
     * {@code metaroce} transport registers with it ({@code JCCL_METAROCE_RELAY}); nothing else can use it.
     */
    RELAY(Set.of("metaroce")),
    /** A TUN packet relay between two network namespaces: any IP traffic, so every transport. */
    TUN(null);

    private final Set<String> transports;

    LinkKind(Set<String> transports) {
        this.transports = transports;
    }

    /**
     * @param transport a transport name
     * @return whether this link can carry that transport's traffic
     */
    public boolean carries(String transport) {
        return transports == null || transports.contains(transport);
    }

    /** @return the name used on the command line and in reports */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
