package io.jccl.memory.cuda;

import io.jccl.memory.DeviceDomainConformance;

/**
 * The device conformance suite on the CUDA domain: runs only where a CUDA device answers (skipped on the build
 * machines, required by {@code benchmarks/gpu/run-gpu-checks.sh} on an NVIDIA machine).
 */
class CudaDomainConformanceTest extends DeviceDomainConformance {
    @Override
    protected String domainName() {
        return CudaMemoryDomain.NAME;
    }
}
