package io.jccl.process;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.reduce.Reducers;
import io.jccl.testing.CollectiveRun;
import io.jccl.plan.OpKind;

import java.util.List;

/** Runs exact all-reduces of every type and operation in a JVM started without the Vector API module. */
public final class WithoutVectorApiMain {
    private WithoutVectorApiMain() {
    }

    public static void main(String[] args) {
        System.out.println("VECTOR_KERNELS=" + Reducers.VECTOR_KERNELS);
        List<Communicator> comms = Communicator.local(3);
        for (DataType type : DataType.values()) {
            for (ReduceOp.Kind op : ReduceOp.Kind.values()) {
                CollectiveRun.run(comms, OpKind.ALL_REDUCE, type, op, 1029, false, type.ordinal() * 31L + op.ordinal());
            }
        }
        comms.forEach(Communicator::close);
        System.out.println("RESULT OK");
    }
}
