package io.jccl.cli.aot;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The JVM options of JCCL's AOT cache (JEP 483/515), as they pass from a launcher JVM to the rank JVMs it starts.
 *
 * <p>One place decides whether the cache is used: {@code scripts/aot-cache.sh}, which {@code ./jccl} runs (the cache
 * exists, matches the build, the JDK and the JVM flags, and {@value #VARIABLE} is not {@code 0}). {@code ./jccl} then
 * starts its JVM with {@code -XX:AOTCache=launcher/target/dist/jccl.aot -Xlog:aot*=off,cds*=off}, and every JVM started
 * from it inherits those options: {@code jccl perf}'s, {@code soak}'s and {@code bench}'s ranks with all of the
 * launcher's flags ({@code RankProcesses}), {@code jccl run}'s Java ranks through {@link #rankOptions(Map)}. A JVM
 * whose cache does not match (another JDK, rebuilt jars, a heap too large for compressed pointers) runs without it:
 * the log options keep that silent.
 */
public final class AotOptions {
    /** {@code 0} turns the AOT cache off: {@code ./jccl} neither builds nor uses it, and ranks do not inherit it. */
    public static final String VARIABLE = "JCCL_AOT";

    private AotOptions() {
    }

    /**
     * @param option a JVM option
     * @return whether it makes an AOT cache (a training run's {@code -XX:AOTCacheOutput},
     *         {@code -XX:AOTConfiguration}, {@code -XX:AOTMode=record} or {@code create}): no JVM started from this one
     *         may inherit it, or each would write the same file
     */
    public static boolean isTrainingOption(String option) {
        return option.startsWith("-XX:AOTCacheOutput=") || option.startsWith("-XX:AOTConfiguration=")
                || option.equals("-XX:AOTMode=record") || option.equals("-XX:AOTMode=create");
    }

    /**
     * @param option a JVM option
     * @return whether it uses an AOT cache or configures the JVM's AOT log ({@code -XX:AOTCache=},
     *         {@code -XX:AOTMode=auto|on|off}, {@code -Xlog:aot...}, {@code -Xlog:cds...})
     */
    static boolean isUseOption(String option) {
        return option.startsWith("-XX:AOTCache=") || option.startsWith("-Xlog:aot") || option.startsWith("-Xlog:cds")
                || (option.startsWith("-XX:AOTMode=") && !isTrainingOption(option));
    }

    /**
     * @param env an environment
     * @return whether {@value #VARIABLE} there turns the AOT cache off
     */
    public static boolean disabled(Map<String, String> env) {
        String v = env.get(VARIABLE);
        return v != null && v.strip().equals("0");
    }

    /**
     * The AOT options a rank JVM gets from its launcher: those of {@code launcherOptions} that use a cache, in order;
     * none when the rank's environment has {@value #VARIABLE}{@code =0}.
     *
     * @param launcherOptions the launcher JVM's options
     * @param rankEnv         the rank's environment
     * @return the options, possibly empty
     */
    public static List<String> rankOptions(List<String> launcherOptions, Map<String, String> rankEnv) {
        List<String> out = new ArrayList<>();
        if (!disabled(rankEnv)) {
            for (String o : launcherOptions) {
                if (isUseOption(o)) {
                    out.add(o);
                }
            }
        }
        return out;
    }

    /**
     * {@link #rankOptions(List, Map)} with this JVM's options.
     *
     * @param rankEnv the rank's environment
     * @return the options, possibly empty
     */
    public static List<String> rankOptions(Map<String, String> rankEnv) {
        return rankOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(), rankEnv);
    }
}
