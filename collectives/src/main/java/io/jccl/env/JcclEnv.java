package io.jccl.env;

import java.util.Map;

/**
 * {@code jccl run}, or variables set by hand: {@code JCCL_RANK}, {@code JCCL_SIZE}, optionally
 * {@code JCCL_LOCAL_RANK} and {@code JCCL_LOCAL_SIZE}; the rendezvous must be given (jccl run sets
 * {@code JCCL_COMM_ID}).
 */
final class JcclEnv implements EnvAdapter {
    static final String RANK = "JCCL_RANK";
    static final String SIZE = "JCCL_SIZE";
    static final String LOCAL_RANK = "JCCL_LOCAL_RANK";
    static final String LOCAL_SIZE = "JCCL_LOCAL_SIZE";

    @Override
    public boolean detects(Map<String, String> env) {
        return EnvVars.isSet(env, RANK) || EnvVars.isSet(env, SIZE);
    }

    @Override
    public LaunchEnvironment read(Map<String, String> env, LaunchEnvironment.Context context) {
        String why = "with " + (EnvVars.isSet(env, RANK) ? RANK : SIZE) + " set";
        int rank = EnvVars.required(env, RANK, 0, why);
        int size = EnvVars.required(env, SIZE, 1, why);
        int localRank = EnvVars.optional(env, LOCAL_RANK, 0);
        int localSize = EnvVars.optional(env, LOCAL_SIZE, 1);
        EnvVars.checkPlacement(RANK, rank, SIZE, size, LOCAL_RANK, localRank, LOCAL_SIZE, localSize);
        Rendezvous r = RendezvousChoice.choose(env, size, SIZE, null, () -> {
            throw EnvVars.invalid(RANK + " and " + SIZE + " are set but nothing says how the ranks meet: set "
                    + RendezvousChoice.COMM_ID + " (jccl run does), " + RendezvousChoice.ADDR
                    + "=host:port (rank 0 listens there) or " + RendezvousChoice.ID_FILE);
        });
        return new LaunchEnvironment("jccl", rank, size, localRank, localSize, r);
    }

    @Override
    public String sizeVariable(Map<String, String> env) {
        return SIZE;
    }
}
