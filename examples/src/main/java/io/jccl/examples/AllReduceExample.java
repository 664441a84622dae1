package io.jccl.examples;

import io.jccl.Buffer;
import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.util.ArrayList;
import java.util.List;

/**
 * The smallest useful JCCL program: four ranks in this JVM average their "gradients" in place.
 * Rank r starts with every element equal to r, so after AVG every element of every rank is 1.5.
 */
public final class AllReduceExample {
    private AllReduceExample() {
    }

    /**
     * Runs the example and returns rank 0's first element.
     *
     * @param ranks    number of ranks
     * @param elements gradient length
     * @return the averaged value
     */
    public static float run(int ranks, int elements) {
        List<Communicator> comms = Communicator.local(ranks);
        try {
            float[][] gradients = new float[ranks][elements];
            for (int r = 0; r < ranks; r++) {
                java.util.Arrays.fill(gradients[r], r);
            }
            List<CollectiveFuture> pending = new ArrayList<>();
            for (Communicator c : comms) {
                Buffer g = Buffer.of(gradients[c.rank()]);
                pending.add(c.allReduce(g, g, gradients[c.rank()].length, DataType.FLOAT32, ReduceOp.AVG));
            }
            pending.forEach(CollectiveFuture::await);
            return gradients[0][0];
        } finally {
            comms.forEach(Communicator::close);
        }
    }

    /**
     * Runs the example and prints the averaged value.
     *
     * @param args optional: ranks, elements
     */
    public static void main(String[] args) {
        int ranks = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int elements = args.length > 1 ? Integer.parseInt(args[1]) : 1 << 20;
        float v = run(ranks, elements);
        System.out.println("average over " + ranks + " ranks of " + elements + " elements: " + v);
    }
}
