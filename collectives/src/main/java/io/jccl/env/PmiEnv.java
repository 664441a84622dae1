package io.jccl.env;

import java.util.Map;

/**
 * PMI launchers (MPICH's Hydra, Intel MPI, {@code srun --mpi=pmi2}): {@code PMI_RANK}, {@code PMI_SIZE}, and the
 * local rank and size from {@code PMI_LOCAL_RANK}/{@code PMI_LOCAL_SIZE} or Hydra's
 * {@code MPI_LOCALRANKID}/{@code MPI_LOCALNRANKS} when present. By default rank 0 writes the id to a file named
 * after {@code PMI_JOBID}, {@code PMI_KVSNAME} or Slurm's job and step id.
 */
final class PmiEnv extends MarkedEnv {
    static final String RANK = "PMI_RANK";
    static final String SIZE = "PMI_SIZE";

    PmiEnv() {
        super(RANK, SIZE);
    }

    @Override
    public LaunchEnvironment read(Map<String, String> env, LaunchEnvironment.Context context) {
        String localRankVar = EnvVars.isSet(env, "PMI_LOCAL_RANK") ? "PMI_LOCAL_RANK" : "MPI_LOCALRANKID";
        String localSizeVar = EnvVars.isSet(env, "PMI_LOCAL_SIZE") ? "PMI_LOCAL_SIZE" : "MPI_LOCALNRANKS";
        Placement p = Placement.read(env, RANK, "under PMI", SIZE, "with " + RANK + " set (PMI)", localRankVar,
                localSizeVar);
        Rendezvous r = RendezvousChoice.choose(env, p.size(), SIZE, null, () -> {
            String jobVar = EnvVars.firstSet(env, "PMI_JOBID", "PMI_KVSNAME");
            if (jobVar != null) {
                return RendezvousChoice.defaultIdFile(context, jobVar, EnvVars.get(env, jobVar));
            }
            if (EnvVars.isSet(env, SlurmEnv.JOB_ID)) {
                return RendezvousChoice.defaultIdFile(context, SlurmEnv.JOB_ID, SlurmEnv.jobStep(env));
            }
            throw EnvVars.invalid("under PMI without PMI_JOBID, PMI_KVSNAME or SLURM_JOB_ID there is no job id to"
                    + " name the id file after: set " + RendezvousChoice.ID_FILE + " or " + RendezvousChoice.ADDR);
        });
        return p.in("pmi", r);
    }
}
