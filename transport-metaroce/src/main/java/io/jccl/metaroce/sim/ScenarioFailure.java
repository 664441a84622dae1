package io.jccl.metaroce.sim;

import java.util.List;

/**
 * A {@link TransferScenario}'s checks failed (or the simulation could not finish). The message starts with the seed;
 * running the same scenario with that seed replays the failure exactly.
 */
public final class ScenarioFailure extends AssertionError {
    private static final long serialVersionUID = 1L;

    private final long seed;
    private final transient List<String> problems;

    ScenarioFailure(long seed, List<String> problems, Throwable cause) {
        super(message(seed, problems), cause);
        this.seed = seed;
        this.problems = List.copyOf(problems);
    }

    private static String message(long seed, List<String> problems) {
        StringBuilder sb = new StringBuilder("scenario with seed=").append(seed).append(" failed (replay it with seed ")
                .append(seed).append("): ").append(problems.size()).append(problems.size() == 1 ? " problem" : " problems");
        for (String p : problems) {
            sb.append("\n  seed=").append(seed).append(": ").append(p);
        }
        return sb.toString();
    }

    /** @return the seed that replays it */
    public long seed() {
        return seed;
    }

    /** @return what went wrong, one line each */
    public List<String> problems() {
        return problems;
    }
}
