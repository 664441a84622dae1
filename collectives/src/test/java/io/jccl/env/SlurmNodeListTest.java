package io.jccl.env;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Slurm host-list and tasks-per-node expansion. */
class SlurmNodeListTest {
    @Test
    void plainNamesAndCommas() {
        assertThat(SlurmNodeList.expand("node1")).containsExactly("node1");
        assertThat(SlurmNodeList.expand("a,b.example.com,c-1")).containsExactly("a", "b.example.com", "c-1");
        assertThat(SlurmNodeList.expand("  a  ")).containsExactly("a");
    }

    @Test
    void rangesKeepTheLowerBoundsPadding() {
        assertThat(SlurmNodeList.expand("node[01-03,07]")).containsExactly("node01", "node02", "node03", "node07");
        assertThat(SlurmNodeList.expand("n[098-101]")).containsExactly("n098", "n099", "n100", "n101");
        assertThat(SlurmNodeList.expand("n[8-11]")).containsExactly("n8", "n9", "n10", "n11");
        assertThat(SlurmNodeList.expand("n[5]")).containsExactly("n5");
        assertThat(SlurmNodeList.expand("n[007]")).containsExactly("n007");
    }

    @Test
    void bracketsAndCommasAtTopLevelMix() {
        assertThat(SlurmNodeList.expand("node[01-03,07],gpu-[1-2]"))
                .containsExactly("node01", "node02", "node03", "node07", "gpu-1", "gpu-2");
        assertThat(SlurmNodeList.expand("login,c[1-2]x,d")).containsExactly("login", "c1x", "c2x", "d");
    }

    @Test
    void severalBracketsInOneNameFormEveryCombinationLeftmostSlowest() {
        assertThat(SlurmNodeList.expand("r[1-2]n[01-02]")).containsExactly("r1n01", "r1n02", "r2n01", "r2n02");
        assertThat(SlurmNodeList.expand("rack[1,3]-node[7-8].ib"))
                .containsExactly("rack1-node7.ib", "rack1-node8.ib", "rack3-node7.ib", "rack3-node8.ib");
        assertThat(SlurmNodeList.first("r[2-3]n[5-6],x")).isEqualTo("r2n5");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            ""                 | empty
            a,,b               | empty host name at character 2
            a,                 | empty host name
            n[1-3              | '[' is never closed
            n1-3]              | ']' without '['
            n[1-[2]]           | nested
            n[]                | empty brackets
            n[1,]              | empty range
            n[3-1]             | range 3-1 runs backwards
            n[a-b]             | 'a' is not a number
            n[1-]              | '' is not a number
            n[0-9999999]       | more than
            a[0-999]b[0-9999]  | more than
            """)
    void malformedListsNameTheProblemAndPosition(String list, String expectedFragment) {
        assertThatThrownBy(() -> SlurmNodeList.expand(list)).hasMessageContaining(expectedFragment);
    }

    @Test
    void tasksPerNode() {
        assertThat(SlurmNodeList.expandTasksPerNode("2(x3),1")).containsExactly(2, 2, 2, 1);
        assertThat(SlurmNodeList.expandTasksPerNode("4")).containsExactly(4);
        assertThat(SlurmNodeList.expandTasksPerNode("1,3(x2)")).isEqualTo(List.of(1, 3, 3));
        assertThatThrownBy(() -> SlurmNodeList.expandTasksPerNode("2(3)")).hasMessageContaining("not N or N(xM)");
        assertThatThrownBy(() -> SlurmNodeList.expandTasksPerNode("2(x0)")).hasMessageContaining("repeats 0");
        assertThatThrownBy(() -> SlurmNodeList.expandTasksPerNode("")).hasMessageContaining("not N or N(xM)");
    }
}
