package io.jccl.memory;

import io.jccl.ErrorCode;
import io.jccl.JcclException;

/** Provides {@link HostMemoryDomain}: always available, priority 0 (what {@code auto} falls back to). */
public final class HostMemoryDomainProvider implements MemoryDomainProvider {
    @Override
    public String name() {
        return HostMemoryDomain.NAME;
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Availability availability() {
        return Availability.yes();
    }

    @Override
    public MemoryDomain open(int device) {
        if (device != 0) {
            throw new JcclException(ErrorCode.INVALID_ARGUMENT, "the host memory domain has one device, 0; got "
                    + device);
        }
        return new HostMemoryDomain();
    }
}
