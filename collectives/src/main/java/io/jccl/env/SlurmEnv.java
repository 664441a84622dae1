package io.jccl.env;

import io.jccl.config.InvalidOptionException;
import io.jccl.config.OptionReader;

import java.util.List;
import java.util.Map;

/**
 * Slurm's srun: {@code SLURM_PROCID}, {@code SLURM_STEP_NUM_TASKS} (else {@code SLURM_NTASKS}),
 * {@code SLURM_LOCALID}, and the local size from {@code SLURM_STEP_TASKS_PER_NODE} (else
 * {@code SLURM_TASKS_PER_NODE}) at {@code SLURM_NODEID}. Rank 0 listens on the first node of
 * {@code SLURM_STEP_NODELIST} (else {@code SLURM_JOB_NODELIST}, {@code SLURM_NODELIST}), where Slurm places task 0,
 * at port {@code JCCL_RENDEZVOUS_PORT} or {@code 10000 + (31 * SLURM_JOB_ID + SLURM_STEP_ID) mod 20000} (below
 * Linux's ephemeral ports, different for concurrent steps and neighbouring jobs).
 */
final class SlurmEnv implements EnvAdapter {
    static final String RANK = "SLURM_PROCID";
    static final String LOCAL_RANK = "SLURM_LOCALID";
    static final String NODE_ID = "SLURM_NODEID";
    static final String JOB_ID = "SLURM_JOB_ID";
    static final String PORT = "JCCL_RENDEZVOUS_PORT";
    static final int PORT_BASE = 10_000;
    static final int PORT_SPAN = 20_000;

    @Override
    public boolean detects(Map<String, String> env) {
        return EnvVars.isSet(env, RANK);
    }

    @Override
    public LaunchEnvironment read(Map<String, String> env, LaunchEnvironment.Context context) {
        String sizeVar = sizeVariable(env);
        int rank = EnvVars.required(env, RANK, 0, "under Slurm");
        int size = EnvVars.required(env, sizeVar, 1, "with " + RANK + " set (Slurm)");
        int localRank = EnvVars.optional(env, LOCAL_RANK, 0);
        String tasksVar = EnvVars.firstSet(env, "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE");
        int localSize = -1;
        int nodeId = EnvVars.optional(env, NODE_ID, 0);
        if (tasksVar != null && nodeId >= 0) {
            List<Integer> perNode;
            try {
                perNode = SlurmNodeList.expandTasksPerNode(EnvVars.get(env, tasksVar));
            } catch (IllegalArgumentException e) {
                throw EnvVars.invalid(tasksVar + ": " + e.getMessage());
            }
            if (nodeId >= perNode.size()) {
                throw EnvVars.invalid(NODE_ID + "=" + nodeId + " but " + tasksVar + "='" + EnvVars.get(env, tasksVar)
                        + "' lists " + perNode.size() + " nodes");
            }
            localSize = perNode.get(nodeId);
        }
        EnvVars.checkPlacement(RANK, rank, sizeVar, size, LOCAL_RANK, localRank, tasksVar, localSize);
        String jobStep = EnvVars.isSet(env, JOB_ID) ? jobStep(env) : null;
        String jobKey = jobStep == null ? null : RendezvousChoice.withJobId(env, "slurm " + JOB_ID + "=" + jobStep);
        Rendezvous r = RendezvousChoice.choose(env, size, sizeVar, jobKey, () -> {
            String listVar = EnvVars.firstSet(env, "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST");
            if (listVar == null || jobStep == null) {
                throw EnvVars.invalid("under Slurm (" + RANK + " set) " + JOB_ID + " and SLURM_STEP_NODELIST or"
                        + " SLURM_JOB_NODELIST are needed to find rank 0, or set " + RendezvousChoice.ADDR);
            }
            String first;
            try {
                first = SlurmNodeList.first(EnvVars.get(env, listVar));
            } catch (IllegalArgumentException e) {
                throw EnvVars.invalid(listVar + ": " + e.getMessage());
            }
            int port;
            String portOrigin;
            if (EnvVars.isSet(env, PORT)) {
                port = RendezvousChoice.HostPort.port(PORT, EnvVars.get(env, PORT));
                portOrigin = PORT + "=" + port;
            } else {
                port = derivedPort(env);
                portOrigin = "port " + port + " from " + JOB_ID + "=" + jobStep;
            }
            return new Rendezvous.RootListens(first, port, RendezvousSecret.from(env, jobKey),
                    "first node of " + listVar + " (" + first + "), " + portOrigin);
        });
        return new LaunchEnvironment("slurm", rank, size, localRank, localSize, r);
    }

    /** @return {@code <job id>.<step id>} */
    static String jobStep(Map<String, String> env) {
        String step = EnvVars.get(env, EnvVars.isSet(env, "SLURM_STEP_ID") ? "SLURM_STEP_ID" : "SLURM_STEPID");
        return EnvVars.get(env, JOB_ID) + "." + (step == null ? "0" : step);
    }

    /** {@code 10000 + (31 * job + step) mod 20000}. */
    static int derivedPort(Map<String, String> env) {
        long job = parseId(JOB_ID, EnvVars.get(env, JOB_ID));
        String stepVar = EnvVars.isSet(env, "SLURM_STEP_ID") ? "SLURM_STEP_ID" : "SLURM_STEPID";
        String stepText = EnvVars.get(env, stepVar);
        long step = stepText == null ? 0 : parseId(stepVar, stepText);
        return PORT_BASE + (int) Math.floorMod(31 * job + step, (long) PORT_SPAN);
    }

    private static long parseId(String var, String text) {
        try {
            return OptionReader.of(Map.of(var, text)).whole(var, 0, v -> v >= 0, "a whole number, at least 0 (or set "
                    + PORT + " to choose the rendezvous port yourself)");
        } catch (InvalidOptionException e) {
            throw EnvVars.invalid(e.getMessage());
        }
    }

    @Override
    public String sizeVariable(Map<String, String> env) {
        return EnvVars.isSet(env, "SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
    }
}
