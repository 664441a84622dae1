package io.jccl.cli.run;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.env.LaunchEnvironment;

/**
 * A first program for {@code jccl run} (and for its tests): joins with {@link Communicator#fromEnvironment()},
 * all-reduces 4099 floats whose sum is known, checks every element exactly and prints one line. Exits 0 when the
 * result is exact, 1 when it is not, 2 when the communicator fails.
 *
 * <pre>{@code ./jccl run -np 4 -- io.jccl.cli.run.RunSmokeMain}</pre>
 */
public final class RunSmokeMain {
    private RunSmokeMain() {
    }

    /** @param args unused */
    public static void main(String[] args) {
        int code;
        try (Communicator comm = Communicator.fromEnvironment()) {
            int n = comm.size();
            int rank = comm.rank();
            int count = 4099;
            float[] data = new float[count];
            for (int i = 0; i < count; i++) {
                data[i] = (rank + 1) * (float) (i % 7 + 1);   // small integers: the sum is exact in any order
            }
            Buffer buffer = Buffer.of(data);
            comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM).await();
            int wrong = 0;
            for (int i = 0; i < count; i++) {
                if (data[i] != n * (n + 1) / 2f * (i % 7 + 1)) {
                    wrong++;
                }
            }
            LaunchEnvironment env = LaunchEnvironment.detect();
            System.out.println("rank " + rank + " of " + n + " (local " + env.localRank() + " of " + env.localSize()
                    + ", " + env.launcher() + "): all-reduce of " + count + " floats "
                    + (wrong == 0 ? "exact" : wrong + " WRONG"));
            code = wrong == 0 ? 0 : 1;
        } catch (RuntimeException e) {
            System.err.println("rank failed: " + e);
            code = 2;
        }
        System.exit(code);
    }
}
