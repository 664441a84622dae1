package io.jccl.metaroce.simnet;

/** A rank's process that reaches its peers through their listeners' handles ({@link SimulatedCluster#connectAll}). */
interface PeeredProcess extends RankProcess {
    /** @return the handle of this rank's listener */
    byte[] handle();

    /** Takes every rank's handle, indexed by rank (its own included). */
    void peers(byte[][] allHandles);
}
