package io.jccl.cli.bench;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The JVM options rank JVMs inherit from the JVM that starts them. */
@Tag("integration")
class RankProcessesInheritTest {
    @Test
    void anAotCacheIsInheritedButATrainingRunsOutputAndADebuggerAreNot() {
        List<String> parent = List.of("--add-modules=jdk.incubator.vector", "-XX:AOTCache=/d/jccl.aot",
                "-Xlog:aot*=off,cds*=off", "-agentlib:jdwp=transport=dt_socket,server=y,address=5005",
                "-XX:AOTCacheOutput=/d/jccl.aot.tmp.1", "-XX:AOTConfiguration=/d/x.conf", "-XX:AOTMode=record",
                "-Xmx1g");
        assertThat(RankProcesses.inheritable(parent)).containsExactly("--add-modules=jdk.incubator.vector",
                "-XX:AOTCache=/d/jccl.aot", "-Xlog:aot*=off,cds*=off", "-Xmx1g");
    }
}
