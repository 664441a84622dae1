package io.jccl.metaroce.verbs;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The libibverbs struct layouts against the sizes and offsets of rdma-core's {@code <infiniband/verbs.h>} on LP64
 * Linux (measured with {@code offsetof} from rdma-core 44's header and written down here, so the check needs no
 * header); and, where a C compiler and {@code libibverbs-dev} are installed, against the installed header itself.
 */
@Tag("integration")
class IbvLayoutsTest {
    /** Field, offset, size of the fields read, per struct, as rdma-core's header has them on x86_64 and aarch64. */
    private static final Object[][] DEVICE_ATTR = {
        {"fw_ver", 0, 64}, {"node_guid", 64, 8}, {"sys_image_guid", 72, 8}, {"max_mr_size", 80, 8},
        {"page_size_cap", 88, 8}, {"vendor_id", 96, 4}, {"vendor_part_id", 100, 4}, {"hw_ver", 104, 4},
        {"max_qp", 108, 4}, {"max_qp_wr", 112, 4}, {"device_cap_flags", 116, 4}, {"max_sge", 120, 4},
        {"max_sge_rd", 124, 4}, {"max_cq", 128, 4}, {"max_cqe", 132, 4}, {"max_mr", 136, 4}, {"max_pd", 140, 4},
        {"max_pkeys", 224, 2}, {"local_ca_ack_delay", 226, 1}, {"phys_port_cnt", 227, 1},
    };
    private static final Object[][] PORT_ATTR = {
        {"state", 0, 4}, {"max_mtu", 4, 4}, {"active_mtu", 8, 4}, {"gid_tbl_len", 12, 4}, {"port_cap_flags", 16, 4},
        {"max_msg_sz", 20, 4}, {"pkey_tbl_len", 32, 2}, {"lid", 34, 2}, {"sm_lid", 36, 2}, {"lmc", 38, 1},
        {"active_width", 43, 1}, {"active_speed", 44, 1}, {"phys_state", 45, 1}, {"link_layer", 46, 1},
        {"flags", 47, 1}, {"port_cap_flags2", 48, 2},
    };
    private static final Object[][] DEVICE = {
        {"node_type", 16, 4}, {"transport_type", 20, 4}, {"name", 24, 64}, {"dev_name", 88, 64},
        {"dev_path", 152, 256}, {"ibdev_path", 408, 256},
    };

    @Test
    void structSizesAreTheHeaders() {
        assertThat(IbvLayouts.IBV_DEVICE_ATTR.byteSize()).isEqualTo(232);
        assertThat(IbvLayouts.IBV_DEVICE.byteSize()).isEqualTo(664);
        assertThat(IbvLayouts.IBV_PORT_ATTR.byteSize()).as("rdma-core 44; later releases append 4 bytes")
                .isEqualTo(52);
        assertThat(IbvLayouts.PORT_ATTR_BUFFER_BYTES).isGreaterThanOrEqualTo(56 * 4);
    }

    @Test
    void fieldOffsetsAndSizesAreTheHeaders() {
        assertFields(IbvLayouts.IBV_DEVICE_ATTR, DEVICE_ATTR);
        assertFields(IbvLayouts.IBV_PORT_ATTR, PORT_ATTR);
        assertFields(IbvLayouts.IBV_DEVICE, DEVICE);
    }

    @Test
    void theOffsetsReadAreTheNamedFields() {
        assertThat(IbvLayouts.ATTR_VENDOR_ID).isEqualTo(96);
        assertThat(IbvLayouts.ATTR_VENDOR_PART_ID).isEqualTo(100);
        assertThat(IbvLayouts.ATTR_HW_VER).isEqualTo(104);
        assertThat(IbvLayouts.ATTR_MAX_QP).isEqualTo(108);
        assertThat(IbvLayouts.ATTR_PHYS_PORT_CNT).isEqualTo(227);
        assertThat(IbvLayouts.PORT_STATE).isZero();
        assertThat(IbvLayouts.PORT_ACTIVE_MTU).isEqualTo(8);
        assertThat(IbvLayouts.PORT_LINK_LAYER).isEqualTo(46);
        assertThat(IbvLayouts.DEVICE_TRANSPORT_TYPE).isEqualTo(20);
    }

    private static void assertFields(StructLayout layout, Object[][] fields) {
        for (Object[] f : fields) {
            String name = (String) f[0];
            assertThat(layout.byteOffset(groupElement(name))).as(layout + " " + name + " offset").isEqualTo(
                    ((Integer) f[1]).longValue());
            assertThat(layout.select(groupElement(name)).byteSize()).as(name + " size").isEqualTo(
                    ((Integer) f[2]).longValue());
        }
    }

    /** Compiles a C program printing {@code offsetof} of every field above from the installed header. */
    @Test
    void layoutsMatchTheInstalledHeaderWhereThereIsOne(@TempDir Path dir) throws IOException, InterruptedException {
        assumeTrue(Files.exists(Path.of("/usr/include/infiniband/verbs.h")),
                "no <infiniband/verbs.h> (Debian: libibverbs-dev): checked against the offsets written down only");
        assumeTrue(onPath("cc"), "no C compiler (cc): checked against the offsets written down only");
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <infiniband/verbs.h>\n"
                + "#define F(s, f) printf(\"%s.%s %zu %zu\\n\", #s, #f, offsetof(struct s, f), "
                + "sizeof(((struct s *) 0)->f))\nint main(void) {\n"
                + "printf(\"ibv_device_attr %zu\\nibv_device %zu\\n\", sizeof(struct ibv_device_attr), "
                + "sizeof(struct ibv_device));\n");
        Map<String, long[]> expected = new HashMap<>();
        for (Map.Entry<String, Object[][]> s : Map.of("ibv_device_attr", DEVICE_ATTR, "ibv_port_attr", PORT_ATTR,
                "ibv_device", DEVICE).entrySet()) {
            for (Object[] f : s.getValue()) {
                c.append("F(").append(s.getKey()).append(", ").append(f[0]).append(");\n");
                expected.put(s.getKey() + "." + f[0], new long[] {(Integer) f[1], (Integer) f[2]});
            }
        }
        c.append("return 0;\n}\n");
        Path source = Files.writeString(dir.resolve("layout.c"), c);
        Path binary = dir.resolve("layout");
        assertThat(run(dir, "cc", "-o", binary.toString(), source.toString())).isEmpty();
        List<String> lines = run(dir, binary.toString()).lines().toList();
        assertThat(lines).contains("ibv_device_attr 232", "ibv_device 664");
        int checked = 0;
        for (String line : lines) {
            String[] parts = line.split(" ");
            if (parts.length == 3) {
                long[] want = expected.get(parts[0]);
                assertThat(new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])}).as(parts[0])
                        .containsExactly(want);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(expected.size());
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command[0]).isTrue();
        assertThat(p.exitValue()).as("%s exit status; output: %s", command[0], out).isZero();
        return out;
    }
}
