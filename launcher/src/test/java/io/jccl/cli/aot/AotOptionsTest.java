package io.jccl.cli.aot;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which JVM options of a launcher pass on to its rank JVMs for the AOT cache. */
class AotOptionsTest {
    private static final List<String> LAUNCHER = List.of("--add-modules=jdk.incubator.vector", "-XX:+UseParallelGC",
            "-XX:AOTCache=/opt/jccl/dist/jccl.aot", "-Xlog:aot*=off,cds*=off", "-Xmx2g");

    @Test
    void aRankGetsTheLaunchersCacheAndItsLogOptionsInOrder() {
        assertThat(AotOptions.rankOptions(LAUNCHER, Map.of()))
                .containsExactly("-XX:AOTCache=/opt/jccl/dist/jccl.aot", "-Xlog:aot*=off,cds*=off");
        assertThat(AotOptions.rankOptions(LAUNCHER, Map.of("JCCL_AOT", "1")))
                .containsExactly("-XX:AOTCache=/opt/jccl/dist/jccl.aot", "-Xlog:aot*=off,cds*=off");
        assertThat(AotOptions.rankOptions(List.of("-XX:AOTMode=on", "-XX:AOTCache=a.aot"), Map.of()))
                .containsExactly("-XX:AOTMode=on", "-XX:AOTCache=a.aot");
    }

    @Test
    void jcclAotZeroInTheRanksEnvironmentLeavesTheCacheOut() {
        assertThat(AotOptions.rankOptions(LAUNCHER, Map.of("JCCL_AOT", "0"))).isEmpty();
        assertThat(AotOptions.rankOptions(LAUNCHER, Map.of("JCCL_AOT", " 0 "))).isEmpty();
        assertThat(AotOptions.disabled(Map.of("JCCL_AOT", "1"))).isFalse();
        assertThat(AotOptions.disabled(Map.of())).isFalse();
    }

    @Test
    void aLauncherWithoutACacheGivesNone() {
        assertThat(AotOptions.rankOptions(List.of("--add-modules=jdk.incubator.vector", "-Xmx2g"), Map.of())).isEmpty();
    }

    @Test
    void theOptionsOfATrainingRunAreNeverPassedOn() {
        for (String o : List.of("-XX:AOTCacheOutput=x.aot", "-XX:AOTConfiguration=x.conf", "-XX:AOTMode=record",
                "-XX:AOTMode=create")) {
            assertThat(AotOptions.isTrainingOption(o)).as(o).isTrue();
            assertThat(AotOptions.rankOptions(List.of(o), Map.of())).as(o).isEmpty();
        }
        for (String o : List.of("-XX:AOTCache=x.aot", "-XX:AOTMode=auto", "-XX:AOTMode=on", "-Xlog:aot=off")) {
            assertThat(AotOptions.isTrainingOption(o)).as(o).isFalse();
        }
    }
}
