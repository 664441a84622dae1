package io.jccl.log;

/**
 * The parts of JCCL that {@code JCCL_DEBUG_SUBSYS} selects, as NCCL's {@code NCCL_DEBUG_SUBSYS}. A logger belongs to
 * one or more of them; {@code ALL} in the variable names every one.
 */
public enum Subsystem {
    /** Communicator creation: the version line, rank and size, the transport per peer. */
    INIT,
    /** Collective operations on the communicator thread (per operation at TRACE). */
    COLL,
    /** Point-to-point operations (per operation at TRACE). */
    P2P,
    /** Network transports: TCP, MetaRoCE over UDP, interface selection. */
    NET,
    /** The same-host shared-memory transport (Aeron IPC). */
    SHM,
    /** The rendezvous that ranks meet through before the communicator exists. */
    BOOTSTRAP,
    /** Launcher environments read by {@code Communicator.fromEnvironment()}. */
    ENV,
    /** The cost model: algorithm and chunk size choices. */
    TUNE,
    /** The MetaRoCE protocol: connections closing, protocol counters. */
    PROTO;

    /** @return this subsystem's bit in a mask of subsystems */
    int bit() {
        return 1 << ordinal();
    }
}
