package io.jccl.plan;

import java.util.List;

/**
 * Everything one rank does for one operation (or one group): lanes of steps. Steps within a lane run in
 * order; lanes run concurrently. Immutable, so it can be cached and reused.
 *
 * @param lanes        the lanes; each an ordered list of steps
 * @param elementBytes size of one element
 * @param stagingBytes the largest staging buffer a step needs (0 when none)
 * @param algorithm    a short name of the algorithm, for logs and metrics
 */
public record Plan(List<List<Step>> lanes, int elementBytes, long stagingBytes, String algorithm) {
    /** Copies the lists so the plan stays immutable. */
    public Plan {
        lanes = lanes.stream().map(List::copyOf).toList();
    }

    /** @return the number of steps in all lanes */
    public int stepCount() {
        int n = 0;
        for (List<Step> lane : lanes) {
            n += lane.size();
        }
        return n;
    }
}
