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
        Placement p = Placement.read(env, RANK, why, SIZE, why, LOCAL_RANK, LOCAL_SIZE);
        Rendezvous r = RendezvousChoice.choose(env, p.size(), SIZE, null, () -> {
            throw EnvVars.invalid(RANK + " and " + SIZE + " are set but nothing says how the ranks meet: set "
                    + RendezvousChoice.COMM_ID + " (jccl run does), " + RendezvousChoice.ADDR
                    + "=host:port (rank 0 listens there) or " + RendezvousChoice.ID_FILE);
        });
        return p.in("jccl", r);
    }

    @Override
    public String sizeVariable(Map<String, String> env) {
        return SIZE;
    }
}
