package io.jccl.cli.tools;

import io.jccl.cli.Main;
import io.jccl.cli.run.RunCommand;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jccl fabric}'s last line, its counters: printed exactly once whether the duration ends the relay or
 * SIGTERM does, and never cut off because the shutdown hook returned while the main thread was still printing it.
 */
@Tag("integration")
class FabricFinalLineTest {
    @Test
    void aSecondCallerReturnsOnlyOnceTheFirstCallersLineIsOut() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CountDownLatch making = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FabricCommand.FinalLine line = new FabricCommand.FinalLine(out, () -> {
            making.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "jccl fabric: counters";
        });
        Thread mainThread = Thread.ofPlatform().start(line::print);   // the duration ended
        assertThat(making.await(60, TimeUnit.SECONDS)).isTrue();
        AtomicReference<String> outputWhenHookReturned = new AtomicReference<>();
        Thread hook = Thread.ofPlatform().start(() -> {   // SIGTERM meanwhile: the JVM halts once the hook returns
            line.print();
            outputWhenHookReturned.set(bytes.toString(StandardCharsets.UTF_8));
        });
        hook.join(300);   // gives a hook that does not wait the chance to return early
        release.countDown();
        mainThread.join(60_000);
        hook.join(60_000);
        assertThat(outputWhenHookReturned.get()).as("the output when the hook returned")
                .isEqualTo("jccl fabric: counters" + System.lineSeparator());
        line.print();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("jccl fabric: counters"
                + System.lineSeparator());
    }

    @Test
    void sigtermEndsARealRelayWithItsCountersOnce() throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(RunCommand.jvmFlags());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "fabric", "--a",
                "127.0.0.1:9", "--b", "127.0.0.1:9"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l = r.readLine(); l != null; l = r.readLine()) {
                lines.add(l);
                if (l.startsWith("for B")) {
                    p.toHandle().destroy();   // SIGTERM
                }
            }
        } finally {
            p.destroyForcibly();
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(lines).as("%s", lines).anyMatch(l -> l.startsWith("for B"));
        assertThat(lines.stream().filter(l -> l.startsWith("jccl fabric: "))).as("%s", lines).hasSize(1);
    }
}
