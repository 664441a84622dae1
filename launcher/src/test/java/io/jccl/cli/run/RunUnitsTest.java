package io.jccl.cli.run;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pure parts of jccl run: -H and hostfiles, slot placement, shell words, exit statuses, main-class test. */
class RunUnitsTest {
    @Test
    void hostOption() {
        assertThat(HostSlots.parseOption("a:2,b,c:1")).containsExactly(new HostSlots("a", 2), new HostSlots("b", 1),
                new HostSlots("c", 1));
        assertThat(HostSlots.parseOption("a:1,b:2,a:3")).containsExactly(new HostSlots("a", 4), new HostSlots("b", 2));
        assertThat(HostSlots.parseOption("[2001:db8::2]:3,2001:db8::3,10.0.0.1:2")).containsExactly(
                new HostSlots("2001:db8::2", 3), new HostSlots("2001:db8::3", 1), new HostSlots("10.0.0.1", 2));
        assertThatThrownBy(() -> HostSlots.parseOption("a,,b")).hasMessageContaining("empty entry");
        assertThatThrownBy(() -> HostSlots.parseOption("a:x")).hasMessageContaining("-H entry 'a:x': slots 'x' is"
                + " not a whole number");
        assertThatThrownBy(() -> HostSlots.parseOption("a:0")).hasMessageContaining("slots 0 is out of range");
        assertThatThrownBy(() -> HostSlots.parseOption("bad host:1")).hasMessageContaining("'bad host' is not a host");
    }

    @Test
    void hostfileInOpenMpiFormat() {
        String text = """
                # two nodes
                node1 slots=4   # the head

                node2 slots=2 max_slots=8
                node3
                node1 slots=1
                """;
        assertThat(HostSlots.parseHostfile("hf", text)).containsExactly(new HostSlots("node1", 5),
                new HostSlots("node2", 2), new HostSlots("node3", 1));
    }

    @Test
    void hostfileErrorsNameTheLine() {
        assertThatThrownBy(() -> HostSlots.parseHostfile("hf", "a slots=2\nb slots=two\n"))
                .hasMessage("hf line 2: slots 'two' is not a whole number");
        assertThatThrownBy(() -> HostSlots.parseHostfile("hf", "# c\n\na cores=2\n"))
                .hasMessage("hf line 3: unknown key 'cores' (expected slots=N or max_slots=N)");
        assertThatThrownBy(() -> HostSlots.parseHostfile("hf", "a 4\n"))
                .hasMessageContaining("hf line 1: '4' is not key=value");
        assertThatThrownBy(() -> HostSlots.parseHostfile("hf", "a slots=4 max_slots=2\n"))
                .hasMessage("hf line 1: slots=4 is above max_slots=2");
        assertThatThrownBy(() -> HostSlots.parseHostfile("hf", "a slots=1 slots=2\n"))
                .hasMessage("hf line 1: slots given twice");
        assertThatThrownBy(() -> HostSlots.parseHostfile("hf", "x\n!bad\n")).hasMessageContaining("hf line 2: '!bad'");
        assertThatThrownBy(() -> HostSlots.parseHostfile("hf", "# only\n\n")).hasMessage("the hostfile hf names no host");
    }

    @Test
    void placementFillsSlotsInOrder() {
        List<Placement.Slot> s = Placement.place(List.of(new HostSlots("a", 2), new HostSlots("b", 3)), 4, false);
        assertThat(s).containsExactly(new Placement.Slot(0, "a", 0, 2), new Placement.Slot(1, "a", 1, 2),
                new Placement.Slot(2, "b", 0, 2), new Placement.Slot(3, "b", 1, 2));
        assertThatThrownBy(() -> Placement.place(List.of(new HostSlots("a", 2), new HostSlots("b", 1)), 4, false))
                .hasMessageContaining("-np 4 needs more slots than the 3 given (a:2, b:1)")
                .hasMessageContaining("--oversubscribe");
        // Oversubscribed: another round in the same order.
        assertThat(Placement.place(List.of(new HostSlots("a", 2), new HostSlots("b", 1)), 5, true))
                .extracting(Placement.Slot::host).containsExactly("a", "a", "b", "a", "a");
        assertThat(Placement.place(List.of(new HostSlots("a", 2), new HostSlots("b", 1)), 5, true).get(4))
                .isEqualTo(new Placement.Slot(4, "a", 3, 4));
    }

    @Test
    void shellWords() {
        assertThat(ShellWords.split("ssh -o BatchMode=yes")).containsExactly("ssh", "-o", "BatchMode=yes");
        assertThat(ShellWords.split("ssh -i '/my keys/id' -o \"Proxy Jump=x\" a\\ b"))
                .containsExactly("ssh", "-i", "/my keys/id", "-o", "Proxy Jump=x", "a b");
        assertThatThrownBy(() -> ShellWords.split("ssh 'x")).hasMessageContaining("unclosed '");
        assertThatThrownBy(() -> ShellWords.split("  ")).hasMessageContaining("empty");
        assertThat(ShellWords.quote("a-b/c.d")).isEqualTo("a-b/c.d");
        assertThat(ShellWords.quote("it's $HOME")).isEqualTo("'it'\\''s $HOME'");
        assertThat(ShellWords.quote("")).isEqualTo("''");
    }

    @Test
    void exitStatuses() {
        assertThat(ExitStatus.describe(3)).isEqualTo("exited with status 3");
        assertThat(ExitStatus.describe(137)).isEqualTo("was killed by signal 9 (SIGKILL)");
        assertThat(ExitStatus.describe(143)).isEqualTo("was killed by signal 15 (SIGTERM)");
        assertThat(ExitStatus.describe(128)).isEqualTo("exited with status 128");
        assertThat(ExitStatus.describe(200)).isEqualTo("exited with status 200");
    }

    @Test
    void mainClassOrProgram() {
        assertThat(RunCommand.looksLikeMainClass("io.jccl.cli.run.RunSmokeMain")).isTrue();
        assertThat(RunCommand.looksLikeMainClass("Main")).isFalse();
        assertThat(RunCommand.looksLikeMainClass("./train.sh")).isFalse();
        assertThat(RunCommand.looksLikeMainClass("python3")).isFalse();
        assertThat(RunCommand.looksLikeMainClass("/usr/bin/env")).isFalse();
        assertThat(RunCommand.jvmFlags()).contains("--add-modules=jdk.incubator.vector");
    }
}
