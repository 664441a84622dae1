package io.jccl.env;

import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every launcher adapter on synthetic environments: placement, rendezvous, detection order and errors. */
class LaunchEnvironmentTest {
    private static final LaunchEnvironment.Context CTX = new LaunchEnvironment.Context(Path.of("/tmp/jt"), "alice");
    private static final String SECRET_HEX = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    private static LaunchEnvironment detect(String... kv) {
        return LaunchEnvironment.detect(env(kv), CTX);
    }

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static void invalid(String message, String... kv) {
        assertThatThrownBy(() -> detect(kv)).isInstanceOf(JcclException.class)
                .satisfies(e -> assertThat(((JcclException) e).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessageContaining(message);
    }

    @Test
    void jcclRunGivesEverything() {
        UniqueId id = UniqueId.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000), new byte[32]);
        LaunchEnvironment e = detect("JCCL_RANK", "2", "JCCL_SIZE", "4", "JCCL_LOCAL_RANK", "0", "JCCL_LOCAL_SIZE",
                "2", "JCCL_COMM_ID", id.encode());
        assertThat(e).extracting(LaunchEnvironment::launcher, LaunchEnvironment::rank, LaunchEnvironment::size,
                LaunchEnvironment::localRank, LaunchEnvironment::localSize).containsExactly("jccl", 2, 4, 0, 2);
        assertThat(e.rendezvous()).isEqualTo(new Rendezvous.Given(id, "JCCL_COMM_ID"));
    }

    @Test
    void jcclErrors() {
        invalid("JCCL_SIZE is not set; it is needed with JCCL_RANK set", "JCCL_RANK", "0");
        invalid("JCCL_RANK is not set", "JCCL_SIZE", "2");
        invalid("JCCL_RANK='x1' is invalid: it must be a whole number, at least 0", "JCCL_RANK", "x1", "JCCL_SIZE", "2");
        invalid("JCCL_RANK=4 is out of range for JCCL_SIZE=4 (0 to 3)", "JCCL_RANK", "4", "JCCL_SIZE", "4");
        invalid("JCCL_RANK='-1' is invalid: it must be a whole number, at least 0", "JCCL_RANK", "-1", "JCCL_SIZE", "4");
        invalid("JCCL_SIZE='0' is invalid: it must be a whole number, at least 1", "JCCL_RANK", "0", "JCCL_SIZE", "0");
        invalid("JCCL_LOCAL_RANK=2 is out of range for JCCL_LOCAL_SIZE=2", "JCCL_RANK", "0", "JCCL_SIZE", "4",
                "JCCL_LOCAL_RANK", "2", "JCCL_LOCAL_SIZE", "2", "JCCL_RENDEZVOUS_ADDR", "h:1");
        invalid("nothing says how the ranks meet", "JCCL_RANK", "0", "JCCL_SIZE", "2");
        invalid("JCCL_COMM_ID: not a JCCL unique id", "JCCL_RANK", "0", "JCCL_SIZE", "2", "JCCL_COMM_ID", "x");
        invalid("JCCL_COMM_ID and JCCL_RENDEZVOUS_ADDR are set", "JCCL_RANK", "0", "JCCL_SIZE", "2",
                "JCCL_COMM_ID", "x", "JCCL_RENDEZVOUS_ADDR", "h:1");
        invalid("JCCL_RENDEZVOUS_ADDR and JCCL_COMM_ID_FILE", "JCCL_RANK", "0", "JCCL_SIZE", "2",
                "JCCL_RENDEZVOUS_ADDR", "h:1", "JCCL_COMM_ID_FILE", "/tmp/f");
        invalid("no launcher environment found", "HOME", "/root");
    }

    @Test
    void aSingleRankNeedsNoRendezvous() {
        assertThat(detect("JCCL_RANK", "0", "JCCL_SIZE", "1").rendezvous()).isInstanceOf(Rendezvous.Alone.class);
    }

    @Test
    void rendezvousAddressParsing() {
        Rendezvous r = detect("JCCL_RANK", "1", "JCCL_SIZE", "2", "JCCL_RENDEZVOUS_ADDR", "head.example:29400",
                "JCCL_SECRET", SECRET_HEX).rendezvous();
        assertThat(r).isInstanceOfSatisfying(Rendezvous.RootListens.class, rl -> {
            assertThat(rl.host()).isEqualTo("head.example");
            assertThat(rl.port()).isEqualTo(29400);
            assertThat(rl.secret().derived()).isFalse();
            assertThat(rl.secret().bytes()).isEqualTo(java.util.HexFormat.of().parseHex(SECRET_HEX));
        });
        assertThat(((Rendezvous.RootListens) detect("JCCL_RANK", "1", "JCCL_SIZE", "2", "JCCL_RENDEZVOUS_ADDR",
                "[2001:db8::2]:7").rendezvous()).host()).isEqualTo("2001:db8::2");
        invalid("JCCL_RENDEZVOUS_ADDR='head' is not host:port", "JCCL_RANK", "1", "JCCL_SIZE", "2",
                "JCCL_RENDEZVOUS_ADDR", "head");
        invalid("JCCL_RENDEZVOUS_ADDR: port 0 is out of range", "JCCL_RANK", "1", "JCCL_SIZE", "2",
                "JCCL_RENDEZVOUS_ADDR", "head:0");
        invalid("JCCL_RENDEZVOUS_ADDR: port 'http' is not a number", "JCCL_RANK", "1", "JCCL_SIZE", "2",
                "JCCL_RENDEZVOUS_ADDR", "head:http");
        invalid("'he ad' is not a host name", "JCCL_RANK", "1", "JCCL_SIZE", "2", "JCCL_RENDEZVOUS_ADDR", "he ad:1");
        invalid("is not host:port", "JCCL_RANK", "1", "JCCL_SIZE", "2", "JCCL_RENDEZVOUS_ADDR", "2001:db8::2:7");
    }

    @Test
    void secretsAreValidatedWithoutEchoingAndDerivedOtherwise() {
        String b64 = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32]);
        assertThat(RendezvousSecret.parse(b64)).hasSize(32);
        assertThatThrownBy(() -> detect("JCCL_RANK", "1", "JCCL_SIZE", "2", "JCCL_RENDEZVOUS_ADDR", "h:1",
                "JCCL_SECRET", "hunter2")).isInstanceOf(JcclException.class)
                .hasMessageContaining("JCCL_SECRET (7 characters) is not a secret of 32 bytes")
                .hasMessageNotContaining("hunter2");
        RendezvousSecret a = ((Rendezvous.RootListens) detect("JCCL_RANK", "1", "JCCL_SIZE", "2",
                "JCCL_RENDEZVOUS_ADDR", "h:1").rendezvous()).secret();
        RendezvousSecret b = ((Rendezvous.RootListens) detect("JCCL_RANK", "0", "JCCL_SIZE", "2",
                "JCCL_RENDEZVOUS_ADDR", "h:1").rendezvous()).secret();
        RendezvousSecret c = ((Rendezvous.RootListens) detect("JCCL_RANK", "0", "JCCL_SIZE", "2",
                "JCCL_RENDEZVOUS_ADDR", "h:1", "JCCL_JOB_ID", "run-7").rendezvous()).secret();
        assertThat(a.derived()).isTrue();
        assertThat(a.bytes()).isEqualTo(b.bytes()).isNotEqualTo(c.bytes());
        assertThat(c.derivedFrom()).contains("JCCL_JOB_ID=run-7");
        assertThat(a.toString()).doesNotContain(java.util.HexFormat.of().formatHex(a.bytes()));
    }

    @Test
    void openMpi() {
        LaunchEnvironment e = detect("OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4",
                "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2", "PMIX_NAMESPACE", "12345@1",
                "OMPI_MCA_ess_base_jobid", "999");
        assertThat(e).extracting(LaunchEnvironment::launcher, LaunchEnvironment::rank, LaunchEnvironment::size,
                LaunchEnvironment::localRank, LaunchEnvironment::localSize).containsExactly("openmpi", 3, 4, 1, 2);
        assertThat(e.rendezvous()).isEqualTo(new Rendezvous.IdFile(Path.of("/tmp/jt/jccl-alice-12345_1.id"),
                "PMIX_NAMESPACE=12345@1"));
        assertThat(((Rendezvous.IdFile) detect("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2",
                "OMPI_MCA_ess_base_jobid", "999").rendezvous()).file()).isEqualTo(Path.of("/tmp/jt/jccl-alice-999.id"));
        assertThat(detect("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2", "JCCL_COMM_ID_FILE",
                "/shared/id").rendezvous()).isEqualTo(new Rendezvous.IdFile(Path.of("/shared/id"), "JCCL_COMM_ID_FILE"));
        invalid("no job id to name the id file after", "OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2");
        invalid("OMPI_COMM_WORLD_SIZE is not set", "OMPI_COMM_WORLD_RANK", "0");
        invalid("OMPI_COMM_WORLD_LOCAL_SIZE=8 is larger than OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK", "0",
                "OMPI_COMM_WORLD_SIZE", "4", "OMPI_COMM_WORLD_LOCAL_SIZE", "8");
    }

    @Test
    void pmi() {
        LaunchEnvironment e = detect("PMI_RANK", "1", "PMI_SIZE", "3", "MPI_LOCALRANKID", "1", "MPI_LOCALNRANKS", "3",
                "PMI_KVSNAME", "kvs_77_0");
        assertThat(e).extracting(LaunchEnvironment::launcher, LaunchEnvironment::rank, LaunchEnvironment::size,
                LaunchEnvironment::localRank, LaunchEnvironment::localSize).containsExactly("pmi", 1, 3, 1, 3);
        assertThat(((Rendezvous.IdFile) e.rendezvous()).file()).isEqualTo(Path.of("/tmp/jt/jccl-alice-kvs_77_0.id"));
        LaunchEnvironment p = detect("PMI_RANK", "0", "PMI_SIZE", "2", "PMI_LOCAL_RANK", "0", "SLURM_JOB_ID", "55",
                "SLURM_STEP_ID", "2", "SLURM_PROCID", "0");
        assertThat(p.localRank()).isZero();
        assertThat(p.localSize()).isEqualTo(-1);
        assertThat(((Rendezvous.IdFile) p.rendezvous()).file()).isEqualTo(Path.of("/tmp/jt/jccl-alice-55.2.id"));
        invalid("PMI_SIZE='four' is invalid: it must be a whole number, at least 1", "PMI_RANK", "0", "PMI_SIZE", "four");
        invalid("under PMI without PMI_JOBID", "PMI_RANK", "0", "PMI_SIZE", "2");
    }

    @Test
    void torchrun() {
        LaunchEnvironment e = detect("RANK", "5", "WORLD_SIZE", "8", "LOCAL_RANK", "1", "LOCAL_WORLD_SIZE", "4",
                "MASTER_ADDR", "node0", "MASTER_PORT", "29500", "TORCHELASTIC_RUN_ID", "r1");
        assertThat(e).extracting(LaunchEnvironment::launcher, LaunchEnvironment::rank, LaunchEnvironment::size,
                LaunchEnvironment::localRank, LaunchEnvironment::localSize).containsExactly("torchrun", 5, 8, 1, 4);
        Rendezvous.RootListens r = (Rendezvous.RootListens) e.rendezvous();
        assertThat(r.host()).isEqualTo("node0");
        assertThat(r.port()).isEqualTo(29501);
        assertThat(r.origin()).isEqualTo("MASTER_ADDR=node0, MASTER_PORT+1=29501");
        assertThat(r.secret().derivedFrom()).contains("TORCHELASTIC_RUN_ID=r1", "MASTER_PORT=29500");
        // A restart gets another secret.
        Rendezvous.RootListens restarted = (Rendezvous.RootListens) detect("RANK", "5", "WORLD_SIZE", "8",
                "MASTER_ADDR", "node0", "MASTER_PORT", "29500", "TORCHELASTIC_RUN_ID", "r1",
                "TORCHELASTIC_RESTART_COUNT", "1").rendezvous();
        assertThat(restarted.secret().bytes()).isNotEqualTo(r.secret().bytes());
        invalid("MASTER_ADDR and MASTER_PORT are needed", "RANK", "0", "WORLD_SIZE", "2");
        invalid("MASTER_PORT: port 'x' is not a number", "RANK", "0", "WORLD_SIZE", "2", "MASTER_ADDR", "h",
                "MASTER_PORT", "x");
        invalid("MASTER_PORT=65535 leaves no port", "RANK", "0", "WORLD_SIZE", "2", "MASTER_ADDR", "h",
                "MASTER_PORT", "65535");
        invalid("RANK=2 is out of range for WORLD_SIZE=2", "RANK", "2", "WORLD_SIZE", "2");
        invalid("LOCAL_RANK=4 is out of range for LOCAL_WORLD_SIZE=4", "RANK", "0", "WORLD_SIZE", "8", "LOCAL_RANK",
                "4", "LOCAL_WORLD_SIZE", "4", "MASTER_ADDR", "h", "MASTER_PORT", "1");
    }

    @Test
    void slurm() {
        LaunchEnvironment e = detect("SLURM_PROCID", "5", "SLURM_NTASKS", "16", "SLURM_STEP_NUM_TASKS", "7",
                "SLURM_LOCALID", "1", "SLURM_NODEID", "2", "SLURM_STEP_TASKS_PER_NODE", "2(x3),1",
                "SLURM_JOB_ID", "4242", "SLURM_STEP_ID", "3", "SLURM_STEP_NODELIST", "gpu[07-10]",
                "SLURM_JOB_NODELIST", "gpu[01-10]");
        assertThat(e).extracting(LaunchEnvironment::launcher, LaunchEnvironment::rank, LaunchEnvironment::size,
                LaunchEnvironment::localRank, LaunchEnvironment::localSize).containsExactly("slurm", 5, 7, 1, 2);
        Rendezvous.RootListens r = (Rendezvous.RootListens) e.rendezvous();
        assertThat(r.host()).isEqualTo("gpu07");
        assertThat(r.port()).isEqualTo(10_000 + (31 * 4242 + 3) % 20_000);
        assertThat(r.origin()).contains("first node of SLURM_STEP_NODELIST (gpu07)", "from SLURM_JOB_ID=4242.3");
        LaunchEnvironment j = detect("SLURM_PROCID", "0", "SLURM_NTASKS", "2", "SLURM_JOB_ID", "9",
                "SLURM_JOB_NODELIST", "a[3-4],b", "JCCL_RENDEZVOUS_PORT", "31000");
        assertThat(((Rendezvous.RootListens) j.rendezvous()).host()).isEqualTo("a3");
        assertThat(((Rendezvous.RootListens) j.rendezvous()).port()).isEqualTo(31000);
        assertThat(j.localRank()).isEqualTo(-1);
        invalid("SLURM_STEP_NODELIST: host list 'gpu[07-': '[' is never closed", "SLURM_PROCID", "0",
                "SLURM_NTASKS", "2", "SLURM_JOB_ID", "9", "SLURM_STEP_NODELIST", "gpu[07-");
        invalid("SLURM_NTASKS is not set", "SLURM_PROCID", "0");
        invalid("SLURM_PROCID=3 is out of range for SLURM_NTASKS=2", "SLURM_PROCID", "3", "SLURM_NTASKS", "2");
        invalid("SLURM_NODEID=4 but SLURM_TASKS_PER_NODE='2(x2)' lists 2 nodes", "SLURM_PROCID", "0",
                "SLURM_NTASKS", "4", "SLURM_NODEID", "4", "SLURM_TASKS_PER_NODE", "2(x2)");
        invalid("SLURM_JOB_ID and SLURM_STEP_NODELIST or SLURM_JOB_NODELIST are needed", "SLURM_PROCID", "0",
                "SLURM_NTASKS", "2");
        invalid("SLURM_JOB_ID='abc' is invalid: it must be a whole number, at least 0", "SLURM_PROCID", "0", "SLURM_NTASKS", "2",
                "SLURM_JOB_ID", "abc", "SLURM_JOB_NODELIST", "n1");
        invalid("JCCL_RENDEZVOUS_PORT: port 70000 is out of range", "SLURM_PROCID", "0", "SLURM_NTASKS", "2",
                "SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n1", "JCCL_RENDEZVOUS_PORT", "70000");
    }

    @Test
    void kubernetes() {
        LaunchEnvironment e = detect("JOB_COMPLETION_INDEX", "3", "JCCL_WORLD_SIZE", "4", "JCCL_RENDEZVOUS_ADDR",
                "train-0.train-svc:29400");
        assertThat(e).extracting(LaunchEnvironment::launcher, LaunchEnvironment::rank, LaunchEnvironment::size,
                LaunchEnvironment::localRank, LaunchEnvironment::localSize).containsExactly("kubernetes", 3, 4, 0, 1);
        assertThat(((Rendezvous.RootListens) e.rendezvous()).host()).isEqualTo("train-0.train-svc");
        invalid("JCCL_WORLD_SIZE is not set", "JOB_COMPLETION_INDEX", "0");
        invalid("JCCL_RENDEZVOUS_ADDR is needed", "JOB_COMPLETION_INDEX", "0", "JCCL_WORLD_SIZE", "2");
        invalid("JOB_COMPLETION_INDEX=2 is out of range for JCCL_WORLD_SIZE=2", "JOB_COMPLETION_INDEX", "2",
                "JCCL_WORLD_SIZE", "2");
    }

    @Test
    void detectionOrderAndConflicts() {
        // A step of mpirun or torchrun inside a Slurm allocation still carries the batch step's SLURM_PROCID.
        assertThat(detect("SLURM_PROCID", "0", "SLURM_NTASKS", "4", "OMPI_COMM_WORLD_RANK", "2",
                "OMPI_COMM_WORLD_SIZE", "4", "PMIX_NAMESPACE", "x").launcher()).isEqualTo("openmpi");
        assertThat(detect("SLURM_PROCID", "0", "SLURM_NTASKS", "2", "RANK", "3", "WORLD_SIZE", "8", "MASTER_ADDR",
                "h", "MASTER_PORT", "1").launcher()).isEqualTo("torchrun");
        assertThat(detect("JCCL_RANK", "1", "JCCL_SIZE", "2", "JCCL_RENDEZVOUS_ADDR", "h:1", "OMPI_COMM_WORLD_RANK",
                "0", "RANK", "0").launcher()).isEqualTo("jccl");
        assertThat(detect("PMI_RANK", "0", "PMI_SIZE", "2", "PMI_JOBID", "1", "SLURM_PROCID", "0").launcher())
                .isEqualTo("pmi");
        invalid("conflicting sizes: JCCL_WORLD_SIZE=3 but WORLD_SIZE=8 (torchrun)", "RANK", "0", "WORLD_SIZE", "8",
                "MASTER_ADDR", "h", "MASTER_PORT", "1", "JCCL_WORLD_SIZE", "3");
        assertThat(detect("RANK", "0", "WORLD_SIZE", "8", "MASTER_ADDR", "h", "MASTER_PORT", "1", "JCCL_WORLD_SIZE",
                "8").size()).isEqualTo(8);
    }
}
