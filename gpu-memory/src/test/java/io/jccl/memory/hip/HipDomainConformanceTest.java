package io.jccl.memory.hip;

import io.jccl.memory.DeviceDomainConformance;

/**
 * The device conformance suite on the HIP domain: over the stub in the build (which is how the suite itself is
 * checked without a GPU), over ROCm on an AMD machine through {@code benchmarks/gpu/run-gpu-checks.sh}.
 */
class HipDomainConformanceTest extends DeviceDomainConformance {
    @Override
    protected String domainName() {
        return HipMemoryDomain.NAME;
    }
}
