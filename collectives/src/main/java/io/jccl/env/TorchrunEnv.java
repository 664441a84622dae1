package io.jccl.env;

import java.util.Map;

/**
 * torchrun (and PyTorch-style launchers): {@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK},
 * {@code LOCAL_WORLD_SIZE}, {@code MASTER_ADDR}, {@code MASTER_PORT}. Rank 0 listens on {@code MASTER_ADDR} at
 * port {@code MASTER_PORT + 1}: {@code MASTER_PORT} itself is torchrun's own TCP store, which the agent on that
 * host already listens on.
 */
final class TorchrunEnv implements EnvAdapter {
    static final String RANK = "RANK";
    static final String SIZE = "WORLD_SIZE";
    static final String LOCAL_RANK = "LOCAL_RANK";
    static final String LOCAL_SIZE = "LOCAL_WORLD_SIZE";
    static final String MASTER_ADDR = "MASTER_ADDR";
    static final String MASTER_PORT = "MASTER_PORT";

    @Override
    public boolean detects(Map<String, String> env) {
        return EnvVars.isSet(env, RANK) && EnvVars.isSet(env, SIZE);
    }

    @Override
    public LaunchEnvironment read(Map<String, String> env, LaunchEnvironment.Context context) {
        Placement p = Placement.read(env, RANK, "under torchrun", SIZE, "under torchrun", LOCAL_RANK, LOCAL_SIZE);
        String addr = EnvVars.get(env, MASTER_ADDR);
        String portText = EnvVars.get(env, MASTER_PORT);
        // Every rank sees the same run id, store address and restart count; a restart gets a new secret.
        StringBuilder key = new StringBuilder("torchrun");
        for (String v : new String[] {"TORCHELASTIC_RUN_ID", MASTER_ADDR, MASTER_PORT, "TORCHELASTIC_RESTART_COUNT",
            SIZE}) {
            if (EnvVars.isSet(env, v)) {
                key.append(' ').append(v).append('=').append(EnvVars.get(env, v));
            }
        }
        String jobKey = key.toString();
        Rendezvous r = RendezvousChoice.choose(env, p.size(), SIZE, RendezvousChoice.withJobId(env, jobKey), () -> {
            if (addr == null || portText == null) {
                throw EnvVars.invalid("under torchrun (" + RANK + ", " + SIZE + " set) " + MASTER_ADDR + " and "
                        + MASTER_PORT + " are needed, or set " + RendezvousChoice.ADDR);
            }
            RendezvousChoice.HostPort.checkHost(MASTER_ADDR, addr, addr);
            int port = RendezvousChoice.HostPort.port(MASTER_PORT, portText);
            if (port == 65535) {
                throw EnvVars.invalid(MASTER_PORT + "=65535 leaves no port for JCCL's rendezvous (it uses "
                        + MASTER_PORT + " + 1); choose a lower port or set " + RendezvousChoice.ADDR);
            }
            return new Rendezvous.RootListens(addr, port + 1,
                    RendezvousSecret.from(env, RendezvousChoice.withJobId(env, jobKey)),
                    MASTER_ADDR + "=" + addr + ", " + MASTER_PORT + "+1=" + (port + 1));
        });
        return p.in("torchrun", r);
    }

    @Override
    public String sizeVariable(Map<String, String> env) {
        return SIZE;
    }
}
