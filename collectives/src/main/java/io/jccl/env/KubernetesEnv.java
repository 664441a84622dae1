package io.jccl.env;

import java.util.Map;

/**
 * A Kubernetes indexed Job: {@code JOB_COMPLETION_INDEX} is the rank, {@code JCCL_WORLD_SIZE} (set in the pod
 * template, equal to the Job's completions) the size, one rank per pod (local rank 0 of 1). Rank 0 listens on
 * {@code JCCL_RENDEZVOUS_ADDR}, which must name pod 0's stable DNS name under a headless service, e.g.
 * {@code train-0.train-svc:29400} for a Job {@code train} with {@code subdomain: train-svc}.
 */
final class KubernetesEnv extends MarkedEnv {
    static final String RANK = "JOB_COMPLETION_INDEX";

    KubernetesEnv() {
        super(RANK, LaunchEnvironment.WORLD_SIZE_VARIABLE);
    }

    @Override
    public LaunchEnvironment read(Map<String, String> env, LaunchEnvironment.Context context) {
        String size = LaunchEnvironment.WORLD_SIZE_VARIABLE;
        int rank = EnvVars.required(env, RANK, 0, "under Kubernetes");
        int n = EnvVars.required(env, size, 1, "with " + RANK + " set (a Kubernetes indexed Job): set it to the"
                + " Job's completions in the pod template");
        EnvVars.checkPlacement(RANK, rank, size, n, "local rank", 0, "local size", 1);
        Rendezvous r = RendezvousChoice.choose(env, n, size, null, () -> {
            throw EnvVars.invalid("under Kubernetes (" + RANK + " set) " + RendezvousChoice.ADDR + " is needed:"
                    + " pod 0's stable DNS name and a port, e.g. train-0.train-svc:29400");
        });
        return new LaunchEnvironment("kubernetes", rank, n, 0, 1, r);
    }
}
