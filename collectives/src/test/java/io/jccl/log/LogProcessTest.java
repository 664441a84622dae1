package io.jccl.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real JVMs (slf4j-simple at its default, INFO) creating two in-JVM ranks under different {@code JCCL_DEBUG}
 * settings: what reaches the output is what the variables ask for.
 */
@Tag("integration")
class LogProcessTest {
    @Test
    void infoShowsInitLinesWithRankAndTransportAndTheDefaultShowsNone() throws Exception {
        Jvm info = start("log-info", Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "INIT"),
                JvmProcesses.inheritedJvmOptions());
        Jvm quiet = start("log-default", Map.of("JCCL_DEBUG", "", "JCCL_DEBUG_SUBSYS", ""),
                JvmProcesses.inheritedJvmOptions());
        Jvm version = start("log-version", Map.of("JCCL_DEBUG", "version", "JCCL_DEBUG_SUBSYS", ""),
                JvmProcesses.inheritedJvmOptions());

        String out = finish(info);
        assertThat(out).containsPattern("\\[INIT\\] JCCL version \\S+ \\(Java ")
                .containsPattern("\\[INIT\\] comm0 rank 0 \\(pid \\d+ on [^)]+\\) nranks 2 - Init COMPLETE: "
                        + "local to rank 1")
                .containsPattern("\\[INIT\\] comm0 rank 1 \\(pid \\d+ on [^)]+\\) nranks 2 - Init COMPLETE: "
                        + "local to rank 0")
                .contains("[INIT] comm0 rank 0 nranks 2 - Init START");
        assertThat(out.split("JCCL version", -1)).as("one version line per JVM").hasSize(2);
        assertThat(out).doesNotContain("[TUNE]").doesNotContain("[COLL]");

        String none = finish(quiet);
        assertThat(none).doesNotContain("[INIT]").doesNotContain("INFO");

        String versionOnly = finish(version);
        assertThat(versionOnly).contains("[INIT] JCCL version").doesNotContain("Init COMPLETE")
                .doesNotContain("Init START");
    }

    @Test
    void warningsAppearWhenTheirSubsystemIsExcluded() throws Exception {
        // Without jdk.incubator.vector, the reduction kernels (INIT) warn that they fall back to scalar code.
        List<String> options = JvmProcesses.inheritedJvmOptions().stream()
                .filter(o -> !o.contains("jdk.incubator.vector")).toList();
        Jvm jvm = start("log-excluded-warning", Map.of("JCCL_DEBUG", "INFO", "JCCL_DEBUG_SUBSYS", "^INIT"), options);
        String out = finish(jvm);
        assertThat(out).contains("WARN").contains("[INIT] JCCL uses its scalar reduction kernels")
                .doesNotContain("Init COMPLETE");
    }

    private static Jvm start(String name, Map<String, String> env, List<String> options) throws Exception {
        return JvmProcesses.start(LogDemoMain.class, List.of(), env, name, options);
    }

    private static String finish(Jvm jvm) throws InterruptedException {
        assertThat(jvm.await(120)).as("exit code; output:%n%s", jvm.outputText()).isZero();
        String out = jvm.outputText();
        assertThat(out).contains("RESULT OK");
        return out;
    }
}
