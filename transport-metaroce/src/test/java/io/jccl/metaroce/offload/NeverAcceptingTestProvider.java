package io.jccl.metaroce.offload;

import io.jccl.metaroce.verbs.RdmaDevice;

import java.util.List;

/**
 * Registered through {@code META-INF/services} in the test resources, so that {@link OffloadSelector#installed()}
 * has a provider to find in this module's tests. It always declines, so every {@code metaroce} transport of the tests
 * still runs on software UDP (whatever RDMA devices the test machine has), after a real device discovery.
 */
public final class NeverAcceptingTestProvider implements OffloadProvider {
    /** Its name. */
    public static final String NAME = "test-never-accepts";

    /** Created by {@link java.util.ServiceLoader}. */
    public NeverAcceptingTestProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Probe probe(List<RdmaDevice> devices) {
        return Probe.decline("a test provider that never accepts");
    }

    @Override
    public MetaRoceDataPath open(DataPathSpec spec) {
        throw new UnsupportedOperationException("never accepted, so never opened");
    }
}
