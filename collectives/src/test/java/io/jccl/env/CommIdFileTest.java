package io.jccl.env;

import io.jccl.Buffer;
import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ErrorCode;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The id-file exchange: atomic, owner-only, polled with a bound; and ranks that meet through it. */
@Tag("integration")
class CommIdFileTest {
    @TempDir
    Path dir;

    private static UniqueId someId() {
        return UniqueId.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1234), new byte[32]);
    }

    @Test
    void publishedFileIsOwnerOnlyAndReadBack() throws Exception {
        Path f = dir.resolve("id");
        CommIdFile.publish(f, someId());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-------");
        assertThat(CommIdFile.await(f, 1, Duration.ofSeconds(5))).isEqualTo(someId());
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(f);
        }
        CommIdFile.remove(f);
        assertThat(f).doesNotExist();
    }

    @Test
    void readersWaitForTheFileAndTimeOutNamingIt() throws Exception {
        Path f = dir.resolve("late");
        try (ExecutorService ex = Executors.newSingleThreadExecutor()) {
            Future<UniqueId> reader = ex.submit(() -> CommIdFile.await(f, 2, Duration.ofSeconds(20)));
            Thread.sleep(200);
            assertThat(reader.isDone()).isFalse();
            CommIdFile.publish(f, someId());
            assertThat(reader.get(20, TimeUnit.SECONDS)).isEqualTo(someId());
        }
        assertThatThrownBy(() -> CommIdFile.await(dir.resolve("never"), 3, Duration.ofMillis(300)))
                .isInstanceOfSatisfying(JcclException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TIMEOUT))
                .hasMessageContaining("rank 3 waited").hasMessageContaining(dir.resolve("never").toString())
                .hasMessageContaining("shared filesystem");
    }

    @Test
    void unsafeOrBrokenFilesAreRefused() throws Exception {
        Path open = dir.resolve("open");
        Files.writeString(open, someId().encode());
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> CommIdFile.await(open, 1, Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(JcclException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessageContaining("writable by group or others (mode 666)");
        Path junk = dir.resolve("junk");
        Files.writeString(junk, "hello");
        Files.setPosixFilePermissions(junk, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> CommIdFile.await(junk, 1, Duration.ofSeconds(1)))
                .hasMessageContaining("does not hold an id: not a JCCL unique id");
    }

    @Test
    void threeRanksMeetThroughTheFileUnderOpenMpiVariables() throws Exception {
        Path f = dir.resolve("job.id");
        int n = 3;
        CommConfig config = CommConfig.builder().initTimeout(Duration.ofSeconds(60)).transport("tcp").build();
        try (ExecutorService ex = Executors.newFixedThreadPool(n)) {
            List<Future<float[]>> results = new ArrayList<>();
            // Rank 0 last, so the others are already polling.
            for (int r = n - 1; r >= 0; r--) {
                int rank = r;
                Map<String, String> env = Map.of("OMPI_COMM_WORLD_RANK", "" + r, "OMPI_COMM_WORLD_SIZE", "" + n,
                        "OMPI_COMM_WORLD_LOCAL_RANK", "" + r, "OMPI_COMM_WORLD_LOCAL_SIZE", "" + n,
                        "JCCL_COMM_ID_FILE", f.toString());
                results.add(ex.submit(() -> {
                    try (Communicator c = EnvCommunicator.create(env, config)) {
                        assertThat(c.rank()).isEqualTo(rank);
                        float[] v = {rank + 1, 10 * (rank + 1)};
                        c.allReduce(Buffer.of(v), Buffer.of(v), 2, DataType.FLOAT32, ReduceOp.SUM).await();
                        return v;
                    }
                }));
                if (r == n - 1) {
                    Thread.sleep(100);
                }
            }
            for (Future<float[]> res : results) {
                assertThat(res.get(90, TimeUnit.SECONDS)).containsExactly(6f, 60f);
            }
        }
        // Rank 0 removes the file once everyone joined.
        assertThat(f).doesNotExist();
    }

    @Test
    void aSingleRankNeedsNobody() {
        try (Communicator c = EnvCommunicator.create(Map.of("JCCL_RANK", "0", "JCCL_SIZE", "1"), CommConfig.DEFAULT)) {
            assertThat(c.size()).isEqualTo(1);
            float[] v = {3f};
            c.allReduce(Buffer.of(v), Buffer.of(v), 1, DataType.FLOAT32, ReduceOp.SUM).await();
            assertThat(v).containsExactly(3f);
        }
    }
}
