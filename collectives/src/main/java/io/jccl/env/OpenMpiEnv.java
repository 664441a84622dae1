package io.jccl.env;

import java.util.Map;

/**
 * Open MPI's mpirun: {@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE}. By
 * default rank 0 writes the id to a file named after the job ({@code PMIX_NAMESPACE}, else
 * {@code OMPI_MCA_ess_base_jobid}) in {@code java.io.tmpdir}: one host, or a shared temporary directory.
 */
final class OpenMpiEnv extends MarkedEnv {
    static final String RANK = "OMPI_COMM_WORLD_RANK";
    static final String SIZE = "OMPI_COMM_WORLD_SIZE";
    static final String LOCAL_RANK = "OMPI_COMM_WORLD_LOCAL_RANK";
    static final String LOCAL_SIZE = "OMPI_COMM_WORLD_LOCAL_SIZE";
    private static final String[] JOB_VARS = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"};

    OpenMpiEnv() {
        super(RANK, SIZE);
    }

    @Override
    public LaunchEnvironment read(Map<String, String> env, LaunchEnvironment.Context context) {
        Placement p = Placement.read(env, RANK, "under Open MPI", SIZE, "with " + RANK + " set (Open MPI)",
                LOCAL_RANK, LOCAL_SIZE);
        String jobVar = EnvVars.firstSet(env, JOB_VARS);
        Rendezvous r = RendezvousChoice.choose(env, p.size(), SIZE, null, () -> {
            if (jobVar == null) {
                throw EnvVars.invalid("under Open MPI without PMIX_NAMESPACE or OMPI_MCA_ess_base_jobid there is"
                        + " no job id to name the id file after: set " + RendezvousChoice.ID_FILE + " or "
                        + RendezvousChoice.ADDR);
            }
            return RendezvousChoice.defaultIdFile(context, jobVar, EnvVars.get(env, jobVar));
        });
        return p.in("openmpi", r);
    }
}
