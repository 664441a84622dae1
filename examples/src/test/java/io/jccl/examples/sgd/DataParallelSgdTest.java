package io.jccl.examples.sgd;

import io.jccl.Communicator;
import io.jccl.UniqueId;
import io.jccl.cli.Main;
import io.jccl.testing.JvmProcesses;
import io.jccl.testing.JvmProcesses.Jvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link DataParallelSgd} as users run it: {@code jccl run -np 2} (the launcher a JVM of its own, each rank a JVM
 * joined through {@code Communicator.fromEnvironment()}), against the same training in one process.
 */
@Tag("integration")
class DataParallelSgdTest {
    private static final Pattern EPOCH = Pattern.compile("\\[0] epoch +(\\d+)/(\\d+) +loss ([0-9.]+) +accuracy ([0-9.]+).*");
    /** Small enough for a few seconds on 2 cores; 16 steps per epoch, 64 steps in all. */
    private static final List<String> ARGS = List.of("--examples", "8192", "--features", "16", "--batch", "512",
            "--epochs", "4", "--lr", "0.1", "--seed", "7");

    @TempDir
    Path tmp;

    @Test
    void twoRanksUnderJcclRunLearnAndMatchOneProcess() throws Exception {
        Path weights = tmp.resolve("weights.txt");
        List<String> args = new ArrayList<>(List.of("run", "-np", "2", "--timeout", "120", "--",
                DataParallelSgd.class.getName()));
        args.addAll(ARGS);
        args.addAll(List.of("--weights-out", weights.toString()));
        Jvm launcher = JvmProcesses.start(Main.class, args, Map.of(), "sgd-jccl-run");
        assertThat(launcher.await(180)).as("jccl run; output:%n%s", launcher.outputText()).isZero();
        String out = launcher.outputText();

        // Rank 0 alone prints the loss of every epoch (epoch 0 = before training), and it falls every epoch.
        List<Double> losses = new ArrayList<>();
        for (String line : out.lines().toList()) {
            Matcher m = EPOCH.matcher(line);
            if (m.matches()) {
                assertThat(Integer.parseInt(m.group(1))).isEqualTo(losses.size());
                losses.add(Double.parseDouble(m.group(3)));
            }
        }
        assertThat(out).doesNotContain("[1] epoch").contains("[0] DataParallelSgd: 2 ranks");
        assertThat(losses).as(out).hasSize(5);
        assertThat(losses.getFirst()).isCloseTo(Math.log(2), within(1e-4));
        for (int e = 1; e < losses.size(); e++) {
            assertThat(losses.get(e)).as("loss after epoch %d of %s", e, losses).isLessThan(losses.get(e - 1));
        }
        assertThat(losses.getLast()).isLessThan(0.45);

        // Same data, same global batches: the model equals a single process's up to the order of additions.
        // Each step's gradient is a mean of 512 float64 terms of size below ~10, so the two orders differ by at
        // most ~512 * 2^-53 * 10 ≈ 6e-13 per component; the step (lr 0.1, well below 2 / the Hessian's largest
        // eigenvalue) does not amplify differences, so 64 steps add up to below 1e-10. 1e-9 leaves a margin of
        // 10 while still catching any real difference (one example more or less in a batch moves the model ~1e-4).
        double[] distributed = DataParallelSgd.readModel(weights);
        DataParallelSgd.Options options = DataParallelSgd.Options.parse(ARGS.toArray(String[]::new));
        double[] single = DataParallelSgd.train(options, null, stats -> { }).model();
        assertThat(distributed).hasSize(17);
        for (int j = 0; j < single.length; j++) {
            assertThat(distributed[j]).as("model[%d]", j).isCloseTo(single[j], within(1e-9));
        }
    }

    @Test
    void threeRanksWithUnevenShardsEndIdenticalAndMatchOneProcess() throws Exception {
        // 8192 examples over 3 ranks: shards of 2731, 2731 and 2730, and a different count per rank in every batch.
        DataParallelSgd.Options options = DataParallelSgd.Options.parse(ARGS.toArray(String[]::new));
        List<Communicator> comms = Communicator.local(3);
        try {
            List<CompletableFuture<double[]>> models = new ArrayList<>();
            for (Communicator c : comms) {
                models.add(CompletableFuture.supplyAsync(() -> DataParallelSgd.train(options, c, s -> { }).model(),
                        Executors.newVirtualThreadPerTaskExecutor()));
            }
            double[] rank0 = models.getFirst().get(120, TimeUnit.SECONDS);
            for (int r = 1; r < 3; r++) {
                // Every rank received the same sums and took the same steps: the models agree bit for bit.
                assertThat(models.get(r).get(120, TimeUnit.SECONDS)).as("rank %d", r).isEqualTo(rank0);
            }
            double[] single = DataParallelSgd.train(options, null, s -> { }).model();
            for (int j = 0; j < single.length; j++) {
                assertThat(rank0[j]).as("model[%d]", j).isCloseTo(single[j], within(1e-9));
            }
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    @Test
    void aRankThatCannotJoinSaysWhyAndExitsWithOne() throws Exception {
        // The rendezvous runs in this JVM; the rank's environment is what jccl run would give rank 0 of 2.
        UniqueId id = UniqueId.create(InetAddress.getLoopbackAddress());
        Map<String, String> env = Map.of("JCCL_RANK", "0", "JCCL_SIZE", "2", "JCCL_INIT_TIMEOUT_MS", "2000");
        UniqueId wrongSecret = UniqueId.of(id.address(), new byte[UniqueId.SECRET_BYTES]);
        Jvm refused = JvmProcesses.start(DataParallelSgd.class, ARGS, merged(env, "JCCL_COMM_ID", wrongSecret.encode()),
                "sgd-wrong-id");
        Jvm alone = JvmProcesses.start(DataParallelSgd.class, ARGS, merged(env, "JCCL_COMM_ID", id.encode()),
                "sgd-alone");
        assertThat(refused.await(60)).as(refused.outputText()).isEqualTo(1);
        assertThat(refused.outputText()).contains("DataParallelSgd: REMOTE_ERROR", "authentication failed");
        // Rank 1 never comes: rank 0 gives up after the init timeout and names the missing rank.
        assertThat(alone.await(60)).as(alone.outputText()).isEqualTo(1);
        assertThat(alone.outputText()).contains("DataParallelSgd: TIMEOUT", "for rank [1]");
    }

    private static Map<String, String> merged(Map<String, String> env, String key, String value) {
        Map<String, String> out = new java.util.HashMap<>(env);
        out.put(key, value);
        return out;
    }

    @Test
    void optionErrorsNameTheOption() {
        assertThatThrownBy(() -> DataParallelSgd.Options.parse("--epochs", "ten"))
                .hasMessage("--epochs: 'ten' is not a whole number");
        assertThatThrownBy(() -> DataParallelSgd.Options.parse("--batch", "0"))
                .hasMessageContaining("--batch must be in [1, ");
        assertThatThrownBy(() -> DataParallelSgd.Options.parse("--lr", "-1"))
                .hasMessageContaining("--lr must be in");
        assertThatThrownBy(() -> DataParallelSgd.Options.parse("--epoch", "3"))
                .hasMessage("unknown option --epoch");
        assertThatThrownBy(() -> DataParallelSgd.Options.parse("--epochs"))
                .hasMessage("--epochs needs a value");
        assertThatThrownBy(() -> DataParallelSgd.Options.parse("--epochs", "1", "--epochs", "2"))
                .hasMessage("--epochs is given twice");
        assertThat(DataParallelSgd.Options.parse("--epochs=3", "--metrics-port", "9400").epochs()).isEqualTo(3);
    }
}
