package io.jccl.cli.run;

import io.jccl.JcclException;
import io.jccl.UniqueId;
import io.jccl.bootstrap.NetworkInterfaces;
import io.jccl.cli.LogBackend;
import io.jccl.cli.aot.AotOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code jccl run}: starts {@code -np} ranks of a program, on this host or others (through ssh or another launch
 * agent), with the variables {@link io.jccl.Communicator#fromEnvironment()} reads, and watches them; like mpirun.
 * See docs/launching.md.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Start -np ranks of a Java main class or any program, filling the hosts' slots in order "
                + "(default: all on this host), each with JCCL_RANK, JCCL_SIZE, JCCL_LOCAL_RANK, JCCL_LOCAL_SIZE "
                + "and JCCL_COMM_ID set for Communicator.fromEnvironment() (the rendezvous runs in this launcher). "
                + "Output lines are prefixed with their rank: [2] ...",
                "",
                "When a rank fails the others are stopped (SIGTERM, SIGKILL after --grace), unless --keep-going. "
                + "SIGINT/SIGTERM stop every rank the same way; a second one kills at once. Exit status: 0 when "
                + "every rank exited 0; else the status of the first rank that failed (128+N for signal N); 124 "
                + "after --timeout; 130/143 on SIGINT/SIGTERM; 127 when a rank could not be started; 2 for a "
                + "usage error.",
                "",
                "A first word that looks like a Java class name (a.b.Main, and no such program on the PATH) runs "
                + "in a JVM of this JDK with JCCL's JVM flags and class path plus -cp; anything else runs as given. "
                + "See docs/launching.md.",
                ""},
        footer = {"", "Examples:",
                "  jccl run -np 4 -- io.jccl.cli.run.RunSmokeMain",
                "  jccl run -np 8 -H node1:4,node2:4 -cp app.jar -- com.example.Train --epochs 3",
                "  jccl run -np 2 --keep-going -x OMP_NUM_THREADS=4 -- python3 train.py"})
public final class RunCommand implements Callable<Integer> {
    /** Most ranks one launcher starts. */
    static final int MAX_RANKS = 65_536;
    /** The launch agent unless --launch-agent or JCCL_RUN_SSH says otherwise. */
    static final String DEFAULT_AGENT = "ssh -o BatchMode=yes";
    /** The environment variable naming the launch agent. */
    static final String AGENT_VARIABLE = "JCCL_RUN_SSH";
    /** Transport names --transport accepts, here and in {@code jccl perf}; auto leaves JCCL_NET unset. */
    public static final List<String> TRANSPORTS = List.of("auto", "aeron-ipc", "aeron-udp", "metaroce", "shm", "tcp");
    private static final Pattern JAVA_ID = Pattern.compile(
            "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}"
                    + "\\p{javaJavaIdentifierPart}*)+");
    private static final Pattern VAR_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    @Spec
    CommandSpec spec;

    /** Created by picocli. */
    public RunCommand() {
    }

    @Option(names = {"-np", "--np"}, required = true, paramLabel = "N", description = "number of ranks")
    int np;

    @Option(names = {"-H", "--host"}, paramLabel = "HOST[:SLOTS],...",
            description = "hosts and their slots (default 1 each), filled in order; may repeat")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--hostfile", paramLabel = "FILE",
            description = "hosts from a file: 'host slots=N' per line, # comments (Open MPI's format)")
    Path hostfile;

    @Option(names = "--oversubscribe", description = "allow more ranks than slots (another round over the hosts)")
    boolean oversubscribe;

    @Option(names = "-x", paramLabel = "VAR[=VALUE]",
            description = "pass VAR to every rank: this launcher's value, or VALUE; may repeat")
    List<String> exports = new ArrayList<>();

    @Option(names = "--transport", defaultValue = "auto", paramLabel = "NAME",
            description = "JCCL_NET for the ranks: auto (leave unset), aeron-ipc, aeron-udp, metaroce, shm, tcp (default ${DEFAULT-VALUE})")
    String transport;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "wall-clock limit for the whole job")
    Double timeoutSeconds;

    @Option(names = "--grace", paramLabel = "SECONDS", defaultValue = "5",
            description = "time between SIGTERM and SIGKILL when ranks are stopped (default ${DEFAULT-VALUE})")
    double graceSeconds;

    @Option(names = "--keep-going", description = "when a rank fails, let the others run to their end (the exit "
            + "status still says it failed)")
    boolean keepGoing;

    @Option(names = {"-cp", "--classpath"}, paramLabel = "CLASSPATH",
            description = "added to JCCL's class path for a Java main class")
    String classpath;

    @Option(names = {"-J", "--jvm-option"}, paramLabel = "OPTION",
            description = "an extra JVM option for Java ranks, e.g. -J=-Xmx8g; may repeat")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = "--launch-agent", paramLabel = "COMMAND",
            description = "how to run a rank on another host: COMMAND host 'shell command' (default: $"
                    + AGENT_VARIABLE + ", else '" + DEFAULT_AGENT + "')")
    String launchAgent;

    @Parameters(arity = "0..*", paramLabel = "COMMAND", description = "after --: a main class and its arguments, "
            + "or a program and its arguments")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws InterruptedException {
        JobSpec job = buildSpec();
        return new Job(job, System.out, System.err).run();
    }

    /** Checks every option and builds the job; a bad option is a usage error naming it. */
    JobSpec buildSpec() {
        if (np < 1 || np > MAX_RANKS) {
            throw usage("-np " + np + " is out of range 1.." + MAX_RANKS);
        }
        if (command.isEmpty()) {
            throw usage("no command after --: give a main class (e.g. io.jccl.cli.run.RunSmokeMain) or a program");
        }
        if (!TRANSPORTS.contains(transport)) {
            throw usage("--transport '" + transport + "' is not one of " + String.join(", ", TRANSPORTS));
        }
        if (timeoutSeconds != null && !(timeoutSeconds > 0 && timeoutSeconds <= 1e9)) {
            throw usage("--timeout " + timeoutSeconds + " must be a positive number of seconds");
        }
        if (!(graceSeconds >= 0 && graceSeconds <= 3600)) {
            throw usage("--grace " + graceSeconds + " must be 0 to 3600 seconds");
        }
        List<HostSlots> hostList = hostList();
        List<Placement.Slot> slots;
        try {
            slots = Placement.place(hostList, np, oversubscribe);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        Map<String, String> rankEnv = rankEnvironment();
        List<String> agent;
        String agentText = launchAgent != null ? launchAgent : System.getenv().getOrDefault(AGENT_VARIABLE,
                DEFAULT_AGENT);
        try {
            agent = ShellWords.split(agentText);
        } catch (IllegalArgumentException e) {
            throw usage("--launch-agent: " + e.getMessage());
        }
        LocalHost localHost = LocalHost.detect();
        boolean allLocal = slots.stream().allMatch(s -> localHost.isLocal(s.host()));
        Path workDir = Path.of("").toAbsolutePath();
        List<String> argv = argv(workDir, rankEnv);
        String commId = createId(allLocal);
        return new JobSpec(slots, argv, rankEnv, commId, agent, localHost, workDir,
                timeoutSeconds == null ? null : Duration.ofMillis(Math.round(timeoutSeconds * 1000)),
                Duration.ofMillis(Math.round(graceSeconds * 1000)), keepGoing);
    }

    private List<HostSlots> hostList() {
        if (!hosts.isEmpty() && hostfile != null) {
            throw usage("give -H or --hostfile, not both");
        }
        try {
            if (hostfile != null) {
                return HostSlots.readHostfile(hostfile);
            }
            if (!hosts.isEmpty()) {
                return HostSlots.parseOption(String.join(",", hosts));
            }
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        return List.of(new HostSlots("localhost", np));
    }

    private Map<String, String> rankEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        if (!transport.equals("auto")) {
            env.put("JCCL_NET", transport);
        }
        for (String x : exports) {
            int eq = x.indexOf('=');
            String name = eq < 0 ? x : x.substring(0, eq);
            if (!VAR_NAME.matcher(name).matches()) {
                throw usage("-x '" + x + "': '" + name + "' is not a variable name");
            }
            if (JobSpec.PER_RANK.contains(name)) {
                throw usage("-x " + name + ": the launcher sets " + name + " for each rank itself");
            }
            if (name.equals("JCCL_NET") && !transport.equals("auto")) {
                throw usage("-x JCCL_NET and --transport " + transport + " both set the transport; give one");
            }
            String value = eq < 0 ? System.getenv(name) : x.substring(eq + 1);
            if (value == null) {
                System.err.println("jccl run: warning: -x " + name + ": " + name + " is not set here; not passed");
                continue;
            }
            env.put(name, value);
        }
        return env;
    }

    /**
     * What every rank runs: a JVM for a main class (behind {@link RankMain}), else the command itself. A JVM gets
     * this JVM's AOT cache ({@link AotOptions#rankOptions(Map)}: unless its {@code JCCL_AOT} is 0), and its SLF4J
     * backend gets the level
     * its {@code JCCL_DEBUG} asks for (this environment's, or {@code -x}'s), before {@code -J} options, which win.
     */
    private List<String> argv(Path workDir, Map<String, String> rankEnv) {
        String first = command.getFirst();
        if (!looksLikeMainClass(first)) {
            return List.copyOf(command);
        }
        List<String> argv = new ArrayList<>();
        argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        argv.addAll(jvmFlags());
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(rankEnv);
        argv.addAll(AotOptions.rankOptions(env));
        argv.addAll(LogBackend.jvmOptions(env));
        argv.addAll(jvmOptions);
        argv.add("-cp");
        StringBuilder cp = new StringBuilder();
        for (String part : (System.getProperty("java.class.path") + (classpath == null ? "" : File.pathSeparator
                + classpath)).split(File.pathSeparator)) {
            if (!part.isEmpty()) {
                // Absolute, so that ranks started elsewhere (another directory, another host) find the same files.
                cp.append(cp.isEmpty() ? "" : File.pathSeparator).append(workDir.resolve(part).normalize());
            }
        }
        argv.add(cp.toString());
        // The rank's main runs behind RankMain, which watches the launcher and checks the JCCL settings first.
        argv.add(RankMain.class.getName());
        argv.addAll(command);
        return argv;
    }

    /** @return whether {@code word} is a qualified Java class name that is not also a program on the PATH */
    static boolean looksLikeMainClass(String word) {
        if (!JAVA_ID.matcher(word).matches()) {
            return false;
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, word))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return the JVM flags of the parent pom's {@code jccl.jvmFlags}, the one place they are defined */
    public static List<String> jvmFlags() {
        try (InputStream in = RunCommand.class.getResourceAsStream("jvm.options")) {
            if (in == null) {
                throw new IllegalStateException("the resource io/jccl/cli/run/jvm.options is missing from the build");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            if (text.contains("${")) {
                throw new IllegalStateException("io/jccl/cli/run/jvm.options was not filtered: " + text);
            }
            return text.isEmpty() ? List.of() : Arrays.asList(text.split("\\s+"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read io/jccl/cli/run/jvm.options: " + e, e);
        }
    }

    /** Starts the job's rendezvous in this JVM: on loopback when every rank is local, else where ranks reach it. */
    private String createId(boolean allLocal) {
        try {
            boolean pinned = System.getenv(NetworkInterfaces.IFNAME_VARIABLE) != null;
            InetAddress bind = allLocal && !pinned ? InetAddress.getLoopbackAddress()
                    : NetworkInterfaces.select(System.getenv());
            return UniqueId.create(bind).encode();
        } catch (JcclException e) {
            throw usage("cannot start the rendezvous: " + e.getMessage());
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
