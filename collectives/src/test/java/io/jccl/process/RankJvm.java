package io.jccl.process;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.UniqueId;

import java.time.Duration;

/**
 * What every rank main that a multi-process test starts does the same way: join the job named by
 * {@code JCCL_TEST_UNIQUE_ID} and report its result as the line and exit code the test waits for.
 */
public final class RankJvm {
    /** The exit code of a rank that could not join (it printed {@code JOIN_FAILED <code> <message>}). */
    public static final int JOIN_FAILED_EXIT = 3;

    private RankJvm() {
    }

    /**
     * Joins as {@code rank} of {@code size}; on failure prints {@code JOIN_FAILED <code> <message>} and exits
     * {@value #JOIN_FAILED_EXIT}, so the test can tell a refused join from a wrong result.
     */
    public static Communicator joinOrExit(int rank, int size, Duration initTimeout, Duration opTimeout) {
        UniqueId id = UniqueId.parse(System.getenv("JCCL_TEST_UNIQUE_ID"));
        try {
            return Communicator.init(id, rank, size, CommConfig.builder().initTimeout(initTimeout)
                    .opTimeout(opTimeout).build());
        } catch (JcclException e) {
            System.out.println("JOIN_FAILED " + e.code() + " " + e.detail());
            System.exit(JOIN_FAILED_EXIT);
            throw new AssertionError("unreachable");
        }
    }

    /** Prints {@code RESULT OK} (exit 0) or {@code RESULT WRONG <failures>} (exit 1). */
    public static void exitWithResult(int failures) {
        System.out.println(failures == 0 ? "RESULT OK" : "RESULT WRONG " + failures);
        System.exit(failures == 0 ? 0 : 1);
    }
}
