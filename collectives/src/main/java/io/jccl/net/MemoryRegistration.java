package io.jccl.net;

import java.lang.foreign.MemorySegment;

/** Memory made known to a transport (NCCL's {@code mhandle}); what it holds is up to the transport. */
public interface MemoryRegistration {
    /** @return the registered memory */
    MemorySegment segment();
}
