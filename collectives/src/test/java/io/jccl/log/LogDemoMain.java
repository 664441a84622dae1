package io.jccl.log;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;

/** Two in-JVM ranks, one exact all-reduce; what they log depends on JCCL_DEBUG (see {@link LogProcessTest}). */
public final class LogDemoMain {
    private LogDemoMain() {
    }

    /**
     * Runs the ranks and prints {@code RESULT OK}.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        List<Communicator> comms = Communicator.local(2);
        List<float[]> data = new ArrayList<>();
        List<io.jccl.CollectiveFuture> pending = new ArrayList<>();
        for (Communicator c : comms) {
            float[] v = {c.rank() + 1, 10};
            data.add(v);
            pending.add(c.allReduce(Buffer.of(v), Buffer.of(v), v.length, DataType.FLOAT32, ReduceOp.SUM));
        }
        pending.forEach(io.jccl.CollectiveFuture::await);
        comms.forEach(Communicator::close);
        boolean ok = data.stream().allMatch(v -> v[0] == 3 && v[1] == 20);
        System.out.println(ok ? "RESULT OK" : "RESULT WRONG");
        System.exit(ok ? 0 : 1);
    }
}
