package io.jccl.cli.perf;

import io.jccl.cli.Main;
import io.jccl.cli.tools.CliJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jccl perf} in an environment it cannot use: a malformed launcher variable or an invalid JCCL setting is
 * not a usage error. It prints one line, the error, and no usage text, and exits with {@link Main#EXIT_CONFIG},
 * not the 2 of a bad flag.
 */
@Tag("integration")
class PerfEnvironmentErrorsTest {
    @TempDir
    Path tmp;

    private CliJvm.Run perf(Map<String, String> env, String... args) throws Exception {
        String[] perfArgs = new String[args.length + 1];
        perfArgs[0] = "perf";
        System.arraycopy(args, 0, perfArgs, 1, args.length);
        return CliJvm.run(tmp, env, List.of(), System.getProperty("java.class.path"), 120, perfArgs);
    }

    @Test
    void aMalformedLauncherVariableIsOneLineWithoutUsage() throws Exception {
        CliJvm.Run r = perf(Map.of("JCCL_RANK", "0", "JCCL_SIZE", "2", "JCCL_COMM_ID", "not-an-id"), "all_reduce", "-b",
                "8", "-e", "8");
        assertThat(r.lines()).as("%s", r).hasSize(1);
        assertThat(r.lines().getFirst()).startsWith("jccl perf: the launcher environment is malformed: "
                + "INVALID_ARGUMENT: JCCL_COMM_ID: ");
        assertThat(r.code()).as("%s", r).isEqualTo(Main.EXIT_CONFIG);
    }

    @Test
    void anInvalidTransportSettingIsOneLineBeforeAnyRankStarts() throws Exception {
        CliJvm.Run r = perf(Map.of("JCCL_SOCKET_NSOCKS", "17"), "all_reduce", "-np", "2", "-b", "8", "-e", "8");
        assertThat(r.lines()).as("%s", r).containsExactly("jccl perf: INVALID_ARGUMENT: JCCL_SOCKET_NSOCKS='17' is "
                + "invalid: it must be a whole number of sockets per connection from 1 to 16 (from the environment)");
        assertThat(r.code()).as("%s", r).isEqualTo(Main.EXIT_CONFIG);
    }

    @Test
    void aBadFlagIsStillAUsageError() throws Exception {
        CliJvm.Run r = perf(Map.of(), "all_reduce", "-b", "8", "-e", "4", "-n", "1");
        assertThat(r.code()).as("%s", r).isEqualTo(2);
        assertThat(String.join("\n", r.lines())).contains("-b 8 is larger than -e 4").contains("Usage:");
    }
}
