package io.jccl.cli;

import io.jccl.Algorithm;
import io.jccl.CommConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jccl selftest}'s communicator settings: an option given wins, one not given leaves the environment's. */
class SelftestConfigTest {
    private static CommConfig configFor(String... args) {
        SelftestCommand command = new SelftestCommand();
        new CommandLine(command).parseArgs(args);
        return command.config();
    }

    @Test
    void jcclAlgoAppliesUnlessAlgoIsGiven() {
        Map<String, String> env = Map.of("JCCL_ALGO", "ring", "JCCL_NET", "tcp");
        CommConfig.Resolved defaults = configFor().resolve(env);
        assertThat(defaults.algorithm()).isEqualTo(Algorithm.RING);
        assertThat(defaults.transport()).isEqualTo("tcp");

        CommConfig.Resolved given = configFor("--algo", "tree", "--transport", "local").resolve(env);
        assertThat(given.algorithm()).isEqualTo(Algorithm.TREE);
        assertThat(given.transport()).isEqualTo("local");
        assertThat(configFor("--algo", "auto").resolve(env).algorithm()).isEqualTo(Algorithm.AUTO);
    }
}
