package io.jccl.cli.run;

import io.jccl.cli.LauncherWatch;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Everything {@link Job} needs to start and watch the ranks; built and checked by {@link RunCommand}.
 *
 * @param slots        where each rank runs, in rank order
 * @param argv         what every rank runs: the full java command for a main class, else the command as given
 * @param rankEnv      variables every rank gets besides its own JCCL_RANK etc. ({@code JCCL_NET}, {@code -x})
 * @param commId       the encoded {@link io.jccl.UniqueId} for {@code JCCL_COMM_ID}
 * @param agent        the launch agent's words for remote hosts, e.g. {@code ssh -o BatchMode=yes}
 * @param localHost    which host names mean this machine
 * @param workDir      the directory ranks start in (remote ranks too, when it exists there)
 * @param timeout      wall-clock limit for the job, or null for none
 * @param grace        how long stopped ranks get between SIGTERM and SIGKILL
 * @param keepGoing    whether a failed rank leaves the others running
 */
record JobSpec(List<Placement.Slot> slots, List<String> argv, Map<String, String> rankEnv, String commId,
               List<String> agent, LocalHost localHost, Path workDir, Duration timeout, Duration grace,
               boolean keepGoing) {
    /** Variables that describe a rank's place, set by the launcher per rank. */
    static final List<String> PER_RANK = List.of("JCCL_RANK", "JCCL_SIZE", "JCCL_LOCAL_RANK", "JCCL_LOCAL_SIZE",
            "JCCL_COMM_ID", LauncherWatch.PID_VARIABLE);
    /**
     * Rendezvous variables a local rank would inherit from the launcher's environment and that would conflict with
     * {@code JCCL_COMM_ID}; removed unless passed with {@code -x}.
     */
    static final List<String> INHERITED_CONFLICTS = List.of("JCCL_RENDEZVOUS_ADDR", "JCCL_COMM_ID_FILE",
            "JCCL_WORLD_SIZE", "JCCL_RENDEZVOUS_PORT");
}
