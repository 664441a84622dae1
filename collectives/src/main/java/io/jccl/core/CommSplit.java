package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.JcclException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A split, run by the parent's executor (thread mode): the parent's ranks all-gather their colours and keys, then
 * each colour's members build their child communicator through a nested bootstrap ({@link SubgroupBootstrap})
 * whose exchanges run over the parent. It blocks until the child is built.
 */
final class CommSplit {
    private CommSplit() {
    }

    /**
     * Runs {@code op}, a split; its result completes with the child (empty without a colour), or exceptionally
     * when the ranks agreed the child could not be built (the parent stays usable).
     *
     * @param splitSeq the parent's collective number of the split's first exchange (it names the child's secret)
     * @throws ReportedFailure when a peer reported a failure
     * @throws ParentFailure   when the parent itself failed while it served the exchanges
     */
    static void run(CommExecutor parent, CommImpl comm, CommConfig.Resolved config, OpRequest op, long splitSeq) {
        int size = parent.size();
        MemorySegment mine = parent.arena().allocate(8);
        MemorySegment all = parent.arena().allocate(8L * size);
        mine.set(ValueLayout.JAVA_INT, 0, op.color);
        mine.set(ValueLayout.JAVA_INT, 4, op.key);
        parent.internalAllGather(mine, all, 8, op);
        List<int[]> group = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            int color = all.get(ValueLayout.JAVA_INT, 8L * r);
            if (op.color != Communicator.SPLIT_NO_COLOR && color == op.color) {
                group.add(new int[] {all.get(ValueLayout.JAVA_INT, 8L * r + 4), r});
            }
        }
        group.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        int[] members = group.stream().mapToInt(a -> a[1]).toArray();
        byte[] childSecret = comm.shrinkRendezvous().derive("split " + splitSeq + " color " + op.color);
        SubgroupBootstrap bootstrap = new SubgroupBootstrap(parent, members, op, childSecret);
        if (op.color == Communicator.SPLIT_NO_COLOR) {
            CommInit.participateWithoutJoining(bootstrap);
            op.splitResult.complete(Optional.empty());
            return;
        }
        try {
            CommImpl child = CommInit.create(bootstrap, config, comm.name() + ".c" + op.color);
            op.splitResult.complete(Optional.of(child));
        } catch (WrappedFailure e) {
            throw e;
        } catch (JcclException e) {
            // The child could not be built; the ranks agreed on that in the status round, so this communicator
            // stays usable.
            op.splitResult.completeExceptionally(e);
        }
    }
}
