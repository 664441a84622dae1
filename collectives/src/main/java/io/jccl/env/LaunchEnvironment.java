package io.jccl.env;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where this process stands in a job that a launcher started: its rank, the number of ranks, its place on its host,
 * and how the ranks agree on their {@link io.jccl.UniqueId}. Read from environment variables by
 * {@link #detect()}; {@link io.jccl.Communicator#fromEnvironment()} builds a communicator from it.
 *
 * <h2>Detection order</h2>
 * The first launcher whose marker variable is set wins:
 * <ol>
 * <li>{@code jccl}: {@code JCCL_RANK} / {@code JCCL_SIZE} ({@code jccl run}, or set by hand);</li>
 * <li>{@code openmpi}: {@code OMPI_COMM_WORLD_RANK} (mpirun of Open MPI);</li>
 * <li>{@code pmi}: {@code PMI_RANK} (MPICH's Hydra, Intel MPI, srun --mpi=pmi2);</li>
 * <li>{@code torchrun}: {@code RANK} and {@code WORLD_SIZE};</li>
 * <li>{@code slurm}: {@code SLURM_PROCID} (srun);</li>
 * <li>{@code kubernetes}: {@code JOB_COMPLETION_INDEX} (an indexed Job).</li>
 * </ol>
 * MPI and torchrun come before Slurm because a job step of theirs inherits the {@code SLURM_*} variables of the
 * allocation, which then describe the step's launcher, not the ranks.
 *
 * <h2>The rendezvous</h2>
 * For every launcher, {@code JCCL_COMM_ID} (an encoded id), {@code JCCL_RENDEZVOUS_ADDR} ({@code host:port} where
 * rank 0 listens) or {@code JCCL_COMM_ID_FILE} (a file rank 0 writes the id to) decide, at most one of them; a
 * single rank needs none. Otherwise each launcher has a default: torchrun uses {@code MASTER_ADDR} and
 * {@code MASTER_PORT + 1}; Slurm the first node of the step's node list and a port derived from the job id; Open
 * MPI and PMI a file in {@code java.io.tmpdir} named after the job id; {@code jccl} and Kubernetes have none. The
 * full description, with an example per launcher, is docs/launching.md.
 *
 * @param launcher   which launcher was detected: {@code jccl}, {@code openmpi}, {@code pmi}, {@code torchrun},
 *                   {@code slurm} or {@code kubernetes}
 * @param rank       this rank, 0 to size-1
 * @param size       the number of ranks
 * @param localRank  this rank's index among the ranks on its host, or -1 when the launcher does not say
 * @param localSize  the number of ranks on this host, or -1 when the launcher does not say
 * @param rendezvous how the ranks agree on their id
 */
public record LaunchEnvironment(String launcher, int rank, int size, int localRank, int localSize,
                                Rendezvous rendezvous) {
    /** The variable naming the number of ranks for Kubernetes, and checked against every other launcher's size. */
    public static final String WORLD_SIZE_VARIABLE = "JCCL_WORLD_SIZE";

    /** The launchers in detection order. */
    private static final List<EnvAdapter> ADAPTERS = List.of(new JcclEnv(), new OpenMpiEnv(), new PmiEnv(),
            new TorchrunEnv(), new SlurmEnv(), new KubernetesEnv());

    /** Checks the components; see the class description. */
    public LaunchEnvironment {
        Objects.requireNonNull(launcher, "launcher");
        Objects.requireNonNull(rendezvous, "rendezvous");
    }

    /**
     * Reads this process's environment.
     *
     * @return where this process stands
     * @throws io.jccl.JcclException INVALID_ARGUMENT naming the variable and its value when one is missing or
     *                               malformed, when sources conflict, or when no launcher is recognised
     */
    public static LaunchEnvironment detect() {
        return detect(System.getenv());
    }

    /**
     * Reads a given environment (a pure function of it, the JVM's temporary directory and user name).
     *
     * @param env environment variables
     * @return where a process with this environment stands
     * @throws io.jccl.JcclException INVALID_ARGUMENT as for {@link #detect()}
     */
    public static LaunchEnvironment detect(Map<String, String> env) {
        return detect(env, new Context(Path.of(System.getProperty("java.io.tmpdir")),
                System.getProperty("user.name", "user")));
    }

    /**
     * @param tmpDir where default id files go
     * @param user   this user's name, part of default id file names
     */
    record Context(Path tmpDir, String user) {
    }

    static LaunchEnvironment detect(Map<String, String> env, Context context) {
        Objects.requireNonNull(env, "env");
        for (EnvAdapter adapter : ADAPTERS) {
            if (adapter.detects(env)) {
                LaunchEnvironment found = adapter.read(env, context);
                checkWorldSize(env, found, adapter);
                return found;
            }
        }
        throw EnvVars.invalid("no launcher environment found: start the ranks with jccl run, mpirun, srun or"
                + " torchrun, or set JCCL_RANK and JCCL_SIZE (plus JCCL_COMM_ID or JCCL_RENDEZVOUS_ADDR); see"
                + " docs/launching.md");
    }

    /** {@code JCCL_WORLD_SIZE}, when set, must agree with what the launcher says. */
    private static void checkWorldSize(Map<String, String> env, LaunchEnvironment found, EnvAdapter adapter) {
        String ws = EnvVars.get(env, WORLD_SIZE_VARIABLE);
        if (ws == null || adapter instanceof KubernetesEnv) {
            return;
        }
        int n = EnvVars.optional(env, WORLD_SIZE_VARIABLE, 1);
        if (n != found.size()) {
            throw EnvVars.invalid("conflicting sizes: " + WORLD_SIZE_VARIABLE + "=" + n + " but "
                    + adapter.sizeVariable(env) + "=" + found.size() + " (" + found.launcher() + ")");
        }
    }
}
