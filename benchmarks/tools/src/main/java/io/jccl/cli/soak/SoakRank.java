package io.jccl.cli.soak;

import io.jccl.CollectiveFuture;
import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.check.Workload;
import io.jccl.check.WorkloadOp;
import io.jccl.check.WorkloadRank;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * One rank of {@code jccl soak}, started by {@link SoakCommand}: joins through
 * {@link Communicator#fromEnvironment()}, runs the workload (drawn here from the same seed, so every rank and the
 * parent agree on it), checks every operation and tells the parent in {@value #PREFIX} lines on standard output:
 * <ul>
 * <li>{@code ready}: joined;</li>
 * <li>{@code wrong INDEX COUNT PROBLEM}: the operation's check found COUNT problems, the first described;</li>
 * <li>{@code done INDEX WRONG}: the operation completed and was checked;</li>
 * <li>{@code fail INDEX CODE MESSAGE}: it failed (INDEX -1: joining did), after which the rank exits 1;</li>
 * <li>{@code stall INDEX}: the test hook stops this rank before the operation;</li>
 * <li>{@code end WRONG}: every operation and a last barrier are done; the rank closes its communicator and
 *     exits 0.</li>
 * </ul>
 * An operation that does not complete fails with {@code TIMEOUT} after {@code JCCL_OP_TIMEOUT_MS}, which the
 * parent sets. The rank halts if the parent exits.
 */
final class SoakRank {
    /** Starts every line meant for the parent. */
    static final String PREFIX = "jccl-soak ";

    private final SoakCommand.Settings s;
    private final PrintStream out = System.out;

    private SoakRank(SoakCommand.Settings s) {
        this.s = s;
    }

    /**
     * Runs this process as one rank.
     *
     * @param s the checked settings
     * @return the exit status: 0 when every operation completed (wrong elements are the parent's to judge), 1 when
     *         one failed
     */
    static int run(SoakCommand.Settings s) {
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        return new SoakRank(s).runAll();
    }

    private void say(String line) {
        out.println(PREFIX + line.replace('\n', ' ').replace('\r', ' '));
        out.flush();
    }

    private int runAll() {
        Communicator comm;
        try {
            comm = Communicator.fromEnvironment();
        } catch (RuntimeException e) {
            say("fail -1 " + code(e) + " " + message(e));
            return 1;
        }
        int status;
        try {
            status = runOps(comm);
        } catch (RuntimeException e) {
            say("fail -1 " + code(e) + " " + message(e));
            status = 1;
        }
        if (status == 0) {
            comm.close();
        } else {
            comm.abort();   // not close: it would wait for peers that may be gone
        }
        return status;
    }

    /** @return 0 when every operation and the last barrier completed, else 1 (and the failure was said) */
    private int runOps(Communicator comm) {
        int n = comm.size();
        List<WorkloadOp> ops = Workload.generate(s.seed(), n, s.ops(), s.spec());
        try (WorkloadRank rank = new WorkloadRank(comm.rank(), n, s.seed(), ops)) {
            say("ready");
            long total = 0;
            boolean spoiled = false;
            for (WorkloadOp op : ops) {
                if (s.stallsBefore(comm.rank(), op.index())) {
                    say("stall " + op.index());
                    stallForever();
                }
                try {
                    CollectiveFuture f = rank.issue(comm, op);
                    f.await();
                } catch (RuntimeException e) {
                    say("fail " + op.index() + " " + code(e) + " " + message(e));
                    return 1;
                }
                if (!spoiled && s.spoilsFrom(comm.rank(), op.index()) && spoil(rank.output())) {
                    spoiled = true;
                }
                long wrong = rank.check(op);
                if (wrong > 0) {
                    say("wrong " + op.index() + " " + wrong + " " + rank.lastProblem());
                }
                total += wrong;
                say("done " + op.index() + " " + wrong);
            }
            try {
                comm.barrier().await();
            } catch (RuntimeException e) {
                say("fail " + ops.size() + " " + code(e) + " " + message(e));
                return 1;
            }
            say("end " + total);
            return 0;
        }
    }

    /** The test hook: flips every bit of the first byte of a non-empty output; false when there is none. */
    private static boolean spoil(MemorySegment output) {
        if (output == null || output.byteSize() == 0) {
            return false;
        }
        output.set(ValueLayout.JAVA_BYTE, 0, (byte) ~output.get(ValueLayout.JAVA_BYTE, 0));
        return true;
    }

    /** The test hook's stall: no progress at all, as a rank stuck outside JCCL would make. */
    private static void stallForever() {
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                // keep stalling: only the parent's kill ends this
            }
        }
    }

    private static String code(RuntimeException e) {
        return e instanceof JcclException j ? j.code().name() : e.getClass().getSimpleName();
    }

    private static String message(Throwable e) {
        // The code goes in its own field, so a JcclException's message goes without it.
        String first = e instanceof JcclException j ? j.detail() : e.getMessage();
        StringBuilder b = new StringBuilder(first == null ? e.getClass().getSimpleName() : first);
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
                b.append(": ").append(c.getMessage());
            }
        }
        return b.toString();
    }
}
