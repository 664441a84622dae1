package io.jccl.env;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * A rank for {@link FromEnvironmentProcessTest}: joins with {@link Communicator#fromEnvironment()}, all-reduces
 * known values and checks the result exactly. Prints {@code RESULT OK rank r of n (launcher)} and exits 0, or
 * prints the error and exits 2.
 */
public final class EnvRankMain {
    private EnvRankMain() {
    }

    /** @param args unused */
    public static void main(String[] args) {
        try (Communicator comm = Communicator.fromEnvironment()) {
            int n = comm.size();
            int count = 1000;
            float[] data = new float[count];
            for (int i = 0; i < count; i++) {
                data[i] = comm.rank() + 1 + i;
            }
            comm.allReduce(Buffer.of(data), Buffer.of(data), count, DataType.FLOAT32, ReduceOp.SUM).await();
            for (int i = 0; i < count; i++) {
                float expected = n * (n + 1) / 2f + (float) n * i;
                if (data[i] != expected) {
                    System.out.println("WRONG at " + i + ": " + data[i] + " != " + expected);
                    System.exit(1);
                }
            }
            System.out.println("RESULT OK rank " + comm.rank() + " of " + n + " ("
                    + LaunchEnvironment.detect().launcher() + ")");
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            System.exit(2);
        }
        System.exit(0);
    }
}
