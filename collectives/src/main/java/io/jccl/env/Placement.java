package io.jccl.env;

import java.util.Map;

/**
 * Where a rank stands in the job, as a launcher's four variables give it: rank and size (required), local rank and
 * local size (-1 where the launcher does not say), checked to fit together.
 */
record Placement(int rank, int size, int localRank, int localSize) {
    /**
     * Reads the four variables and checks them ({@link EnvVars#checkPlacement}).
     *
     * @param rankWhy what needs the rank, for the message when it is unset (e.g. "under Open MPI")
     * @param sizeWhy what needs the size, likewise
     */
    static Placement read(Map<String, String> env, String rankVar, String rankWhy, String sizeVar, String sizeWhy,
                          String localRankVar, String localSizeVar) {
        int rank = EnvVars.required(env, rankVar, 0, rankWhy);
        int size = EnvVars.required(env, sizeVar, 1, sizeWhy);
        int localRank = EnvVars.optional(env, localRankVar, 0);
        int localSize = EnvVars.optional(env, localSizeVar, 1);
        EnvVars.checkPlacement(rankVar, rank, sizeVar, size, localRankVar, localRank, localSizeVar, localSize);
        return new Placement(rank, size, localRank, localSize);
    }

    /** @return the launch environment of this placement under {@code launcher}, meeting through {@code rendezvous} */
    LaunchEnvironment in(String launcher, Rendezvous rendezvous) {
        return new LaunchEnvironment(launcher, rank, size, localRank, localSize, rendezvous);
    }
}
