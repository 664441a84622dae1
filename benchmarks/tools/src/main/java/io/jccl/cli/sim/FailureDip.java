package io.jccl.cli.sim;

/**
 * What a failure did to the throughput over time: the mean of the ten buckets before it, the lowest bucket from the
 * failure until recovery, and how long after the failure a bucket first carried 90% of what is left
 * ({@code before x remainingShare}: (P - 1) / P when one of P planes failed).
 *
 * @param beforeGbps       mean throughput of the ten buckets before the failure
 * @param dipGbps          the lowest bucket from the failure until it recovered (or to the end)
 * @param recoveredAfterUs from the failure to the start of the first bucket at 90% of the remaining share;
 *                         -1 when none was
 */
record FailureDip(double beforeGbps, double dipGbps, double recoveredAfterUs) {

    static FailureDip of(double[] gbps, long bucketPs, long failPs, double remainingShare) {
        int failBucket = (int) Math.min(gbps.length, failPs / bucketPs);
        int from = Math.max(0, failBucket - 10);
        double before = 0;
        for (int i = from; i < failBucket; i++) {
            before += gbps[i];
        }
        before = failBucket > from ? before / (failBucket - from) : 0;
        double target = 0.9 * before * remainingShare;
        double dip = Double.POSITIVE_INFINITY;
        // The bucket holding the failure is partly before it: recovery is judged from the next one.
        for (int i = failBucket + 1; i < gbps.length; i++) {
            dip = Math.min(dip, gbps[i]);
            if (gbps[i] >= target && before > 0) {
                return new FailureDip(before, dip, (i * bucketPs - failPs) / 1e6);
            }
        }
        return new FailureDip(before, dip == Double.POSITIVE_INFINITY ? 0 : dip, -1);
    }
}
